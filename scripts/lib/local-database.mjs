// One place that decides which Postgres a local process uses: the URL given, or an embedded
// PGlite; either way reached by the Worker through the relay, and migrated before use.
import { startRelay } from './db-relay.mjs';
import { runMigrations } from './migrate.mjs';
import { startPglite } from './pglite-server.mjs';

export async function startLocalDatabase({ databaseUrl, dataDir } = {}) {
  const embedded = databaseUrl ? null : await startPglite({ dataDir });
  const url = databaseUrl ?? embedded.url;
  await runMigrations(url);
  const relay = await startRelay();
  return {
    url,
    relayAddress: relay.address,
    embedded: Boolean(embedded),
    /** The PGlite thread's Linux id, for the bench's CPU figures (null for a server or off Linux). */
    embeddedThreadId: embedded?.threadId ?? null,
    stop: async () => {
      await relay.stop();
      if (embedded) await embedded.stop();
    },
  };
}
