// `npm start`: migrates and serves the API under `wrangler dev` on http://127.0.0.1:8787 (PORT
// overrides), on an embedded Postgres kept in .data/ unless DATABASE_URL names a real server.
// LM_DATA_DIR (default .data) moves the local data (database, JWT secret, wrangler's R2 and queue
// state) elsewhere, so a second stack (the README check) never touches the first one's.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { writeDocsAssets } from './docs-assets.mjs';
import { localCredentialsKey, localJwtSecret, localOperatorKey } from './lib/dev-secret.mjs';
import { startLocalDatabase } from './lib/local-database.mjs';
import { writeLocalWorkerConfigs } from './lib/worker-configs.mjs';

const port = process.env.PORT ?? '8787';
const localData = process.env.LM_DATA_DIR;
const dataDir = join(localData ?? '.data', 'pglite');
const wranglerState = localData ? join(localData, 'wrangler-state') : '.wrangler/state';
if (!process.env.DATABASE_URL) mkdirSync(dataDir, { recursive: true });
writeDocsAssets();

const database = await startLocalDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir });
// Random per checkout, kept in .data/jwt-secret: tokens of one checkout are worthless to another.
const jwtSecret = process.env.JWT_SECRET ?? localJwtSecret(localData);
// Likewise the key that seals mail and calendar credentials (src/providers/secrets.ts).
const credentialsKey = process.env.CREDENTIALS_KEY ?? localCredentialsKey(localData);
// And the operator's key, which alone may grant credits and fund calling wallets (POST /api/credits/grant,
// POST /api/voice/wallet/top-up): local, in .data/operator-key.
const operatorKey = process.env.OPERATOR_API_KEY ?? localOperatorKey(localData);

// Both Workers read their local secrets from a `.dev.vars` file beside their configuration (a
// `--var` or `--env-file` reaches only the first Worker of a multi-Worker `wrangler dev`), so the
// configurations are copied into the data directory with absolute paths, and the secrets written
// beside them there, never in the repository.
const workerConfigs = writeLocalWorkerConfigs(join(localData ?? '.data', 'workers'), {
  DATABASE_URL: database.url,
  DB_WS_PROXY: database.relayAddress,
  JWT_SECRET: jwtSecret,
  CREDENTIALS_KEY: credentialsKey,
  OPERATOR_API_KEY: operatorKey,
  // Local development may send webhooks to a receiver on this machine over http (src/providers/webhooks/target.ts).
  WEBHOOK_LOCAL_TARGETS: 'true',
  // Without a chat connection, the chat routes use the local chat provider (src/providers/chat/select.ts).
  LOCAL_PROVIDERS: 'true',
});

const wrangler = spawn(
  'wrangler',
  [
    'dev',
    // Two Workers in one process, as in production: the edge Worker (first: it serves the port)
    // and the API Worker behind its service binding.
    '-c',
    workerConfigs.edge,
    '-c',
    workerConfigs.api,
    '--ip',
    '127.0.0.1',
    '--port',
    port,
    '--persist-to',
    wranglerState,
    '--show-interactive-dev-session=false',
    '--test-scheduled',
  ],
  { stdio: ['inherit', 'inherit', 'inherit'], env: { WRANGLER_SEND_METRICS: 'false', ...process.env } },
);

const base = `http://127.0.0.1:${port}`;
console.log(`
Lead Management API starting on ${base}  (database: ${database.embedded ? `embedded PGlite in ${dataDir}` : 'DATABASE_URL'})
  OpenAPI document: ${base}/api/openapi.json   reference: ${base}/api/docs
  Sign up:  curl -s ${base}/api/auth/signup -H 'content-type: application/json' \\
              -d '{"organization_name":"Acme","first_name":"Ada","email":"ada@example.com","password":"correct horse"}'
  Credits (operator only):  curl -s ${base}/api/credits/grant -H "x-operator-key: $(cat ${join(localData ?? '.data', 'operator-key')})" \\
              -H 'content-type: application/json' -d '{"organization_id":1,"amount":500}'
  Calling wallet (operator only): the same header on ${base}/api/voice/wallet/top-up with '{"organization_id":1,"amount":20}'
Ctrl-C stops everything.
`);

let stopping = false;
async function stop(code) {
  if (stopping) return;
  stopping = true;
  wrangler.kill('SIGINT');
  await database.stop();
  process.exit(code);
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));
wrangler.on('exit', (code) => stop(code ?? 0));
