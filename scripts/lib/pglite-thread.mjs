// The PGlite thread (started by pglite-server.mjs): serves the database over the Postgres wire
// protocol, posts `{ url, threadId }` once it listens (or `{ error }`), and on the message 'stop'
// stops and answers 'stopped'. `threadId` is the thread's Linux id (from /proc/thread-self, null
// elsewhere), so the bench can read the database's own CPU time (bench-cpu.mjs).
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { SessionQueue } from './pglite-sessions.mjs';
import { linuxThreadId } from './thread-id.mjs';

async function servePglite({ dataDir, port = 0, host = '127.0.0.1' } = {}) {
  const extensions = { pg_trgm, btree_gin };
  const db = await PGlite.create(dataDir ? { dataDir, extensions } : { extensions });
  const server = new PGLiteSocketServer({ db, port, host, maxConnections: 200 });
  // Connections share the one backend as behind a transaction-mode pooler (see pglite-sessions.mjs).
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

try {
  const server = await servePglite(workerData ?? {});
  parentPort.on('message', async (message) => {
    if (message !== 'stop') return;
    await server.stop().catch((error) => console.error('stopping PGlite:', error));
    parentPort.postMessage('stopped');
  });
  parentPort.postMessage({ url: server.url, threadId: linuxThreadId() });
} catch (error) {
  parentPort.postMessage({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
}
