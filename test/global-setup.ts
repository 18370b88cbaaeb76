/**
 * Runs in Node before the suite: starts a fresh in-memory PGlite (or uses TEST_DATABASE_URL),
 * applies the migrations, and starts the WebSocket relay the Worker reaches Postgres through, and
 * the scripted SMTP relay of test/smtp-session.test.ts.
 */
import { startRelay } from '../scripts/lib/db-relay.mjs';
import { runMigrations } from '../scripts/lib/migrate.mjs';
import { startPglite } from '../scripts/lib/pglite-server.mjs';
import { startFakeSmtpRelay } from './helpers/fake-smtp-relay';
import { releaseHeldPorts, releasePort } from '../scripts/lib/held-ports.mjs';

export default async function setup() {
  const external = process.env.TEST_DATABASE_URL;
  // Each port vitest.config.ts chose is freed just before the service that binds it starts.
  const port = async (name: string) => {
    const value = Number(process.env[name]);
    await releasePort(value);
    return value;
  };
  const embedded = external ? null : await startPglite({ port: await port('LM_TEST_PG_PORT') });
  await runMigrations(process.env.LM_TEST_DATABASE_URL as string);
  const relay = await startRelay({ port: await port('LM_TEST_RELAY_PORT') });
  const smtp = await startFakeSmtpRelay(await port('LM_TEST_SMTP_PORT'), await port('LM_TEST_SMTP_CONTROL_PORT'));
  // An external database leaves its port unused.
  await releaseHeldPorts();
  return async () => {
    await smtp.stop();
    await relay.stop();
    if (embedded) await embedded.stop();
  };
}
