// The embedded Postgres for `npm start` and `npm test`: PGlite served over the Postgres wire
// protocol. `dataDir` keeps data across restarts; without it the database lives in memory.
import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { SessionQueue } from './pglite-sessions.mjs';

export async function startPglite({ dataDir, port = 0, host = '127.0.0.1' } = {}) {
  const extensions = { pg_trgm, btree_gin };
  const db = await PGlite.create(dataDir ? { dataDir, extensions } : { extensions });
  const server = new PGLiteSocketServer({ db, port, host, maxConnections: 200 });
  // One session per connection, as a real server gives (see pglite-sessions.mjs).
  server.queryQueue = new SessionQueue(db);
  await server.start();
  const [, actualPort] = server.getServerConn().split(':');
  return {
    url: `postgres://postgres:postgres@${host}:${actualPort}/postgres`,
    stop: async () => {
      await server.stop();
      await db.close();
    },
  };
}
