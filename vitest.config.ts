import { cloudflareTest } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';
import { writeDocsAssets } from './scripts/docs-assets.mjs';
import { holdFreePorts, releaseHeldPorts } from './scripts/lib/held-ports.mjs';

export default defineConfig(async () => {
  // wrangler.toml's [assets] directory must exist before the pool reads the configuration.
  writeDocsAssets();
  // Chosen here so the Worker's bindings and globalSetup agree on them, and held open until
  // globalSetup's services bind them (scripts/lib/held-ports.mjs).
  const [pgPort, relayPort, smtpPort, smtpControlPort] = await holdFreePorts(4);
  process.env.LM_TEST_PG_PORT ??= String(pgPort);
  process.env.LM_TEST_RELAY_PORT ??= String(relayPort);
  process.env.LM_TEST_SMTP_PORT ??= String(smtpPort);
  process.env.LM_TEST_SMTP_CONTROL_PORT ??= String(smtpControlPort);
  // Evaluated again with the ports already set: the ports just held are not the ones in use.
  await releaseHeldPorts(
    ['LM_TEST_PG_PORT', 'LM_TEST_RELAY_PORT', 'LM_TEST_SMTP_PORT', 'LM_TEST_SMTP_CONTROL_PORT'].map((name) =>
      Number(process.env[name]),
    ),
  );
  const databaseUrl =
    process.env.TEST_DATABASE_URL ?? `postgres://postgres:postgres@127.0.0.1:${process.env.LM_TEST_PG_PORT}/postgres`;
  process.env.LM_TEST_DATABASE_URL = databaseUrl;
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: './wrangler.toml' },
        miniflare: {
          bindings: {
            DATABASE_URL: databaseUrl,
            DB_WS_PROXY: `127.0.0.1:${process.env.LM_TEST_RELAY_PORT}`,
            // The scripted SMTP relay (test/helpers/fake-smtp-relay.ts) and where it tells its sessions.
            LM_TEST_SMTP_PORT: process.env.LM_TEST_SMTP_PORT,
            LM_TEST_SMTP_CONTROL_PORT: process.env.LM_TEST_SMTP_CONTROL_PORT,
            JWT_SECRET: 'test-secret-that-is-long-enough-for-hs256-signing',
            // Seals stored credentials (src/providers/secrets.ts); OAuth clients for token refreshes.
            CREDENTIALS_KEY: 'test-credentials-key-that-is-at-least-32-bytes',
            GOOGLE_CLIENT_ID: 'test-google-client',
            GOOGLE_CLIENT_SECRET: 'test-google-client-secret',
            MICROSOFT_CLIENT_ID: 'test-microsoft-client',
            MICROSOFT_CLIENT_SECRET: 'test-microsoft-client-secret',
            // The service operator's key (granting credits: test/helpers/operator.ts); obviously not a production one.
            OPERATOR_API_KEY: 'test-operator-key-that-is-long-enough-and-local-only',
            HUBSPOT_CLIENT_ID: 'test-hubspot-client',
            HUBSPOT_CLIENT_SECRET: 'test-hubspot-client-secret',
            SIGNUP_ENABLED: 'true',
            LOCAL_PROVIDERS: 'true',
            // One origin the bearer API answers CORS for (test/cors.test.ts).
            CORS_ORIGINS: 'https://app.example.test',
          },
        },
      }),
    ],
    test: {
      globalSetup: ['./test/global-setup.ts'],
      include: ['test/**/*.test.ts'],
      silent: 'passed-only' as const,
      testTimeout: 60_000,
      hookTimeout: 120_000,
    },
  };
});
