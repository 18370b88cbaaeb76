/**
 * Runs in Node before the suite: starts a fresh in-memory PGlite (or uses TEST_DATABASE_URL),
 * applies the migrations, and starts the WebSocket relay the Worker reaches Postgres through.
 */
import { startRelay } from '../scripts/lib/db-relay.mjs';
import { runMigrations } from '../scripts/lib/migrate.mjs';
import { startPglite } from '../scripts/lib/pglite-server.mjs';

export default async function setup() {
  const external = process.env.TEST_DATABASE_URL;
  const embedded = external ? null : await startPglite({ port: Number(process.env.LM_TEST_PG_PORT) });
  await runMigrations(process.env.LM_TEST_DATABASE_URL as string);
  const relay = await startRelay({ port: Number(process.env.LM_TEST_RELAY_PORT) });
  return async () => {
    await relay.stop();
    if (embedded) await embedded.stop();
  };
}
