// The embedded Postgres for `npm start`, `npm test` and the bench: PGlite served over the Postgres
// wire protocol, on a thread of its own. `dataDir` keeps data across restarts; without it the
// database lives in memory.
//
// Why a thread: PGlite runs each statement synchronously on the thread that calls it, so on the
// caller's thread a 15 ms statement also stalls everything else there for 15 ms: the relay the
// Worker reaches it through, the bench's delay proxy and its load generator (autocannon), or
// vitest's own work. Measured with the bench's lists section (100 000 leads, 8 clients), PGlite
// on the bench's thread answered a search matching 2 % of the leads at 0.43 of health's
// requests/s, and the same database in a process of its own at 0.60 (issue 17, docs/benchmarks.md):
// the first figure measured the shared thread, not the API. A database server has its own
// process; here it has its own thread.
import { Worker } from 'node:worker_threads';

/**
 * Starts PGlite and its socket server on a worker thread (pglite-thread.mjs); resolves to its URL,
 * the thread's Linux id (`threadId`, null off Linux) and a stop().
 */
export async function startPglite(options = {}) {
  const worker = new Worker(new URL('./pglite-thread.mjs', import.meta.url), { workerData: options });
  const { url, threadId } = await new Promise((resolve, reject) => {
    const fail = (error) => reject(error instanceof Error ? error : new Error(String(error)));
    worker.once('error', fail);
    worker.once('exit', (code) => fail(new Error(`the PGlite thread exited (code ${code}) before it was ready`)));
    worker.once('message', (message) => {
      worker.off('error', fail);
      worker.removeAllListeners('exit');
      if (message?.url) resolve({ url: message.url, threadId: message.threadId ?? null });
      else fail(new Error(message?.error ?? 'the PGlite thread did not start'));
    });
  });
  // A failure after the start is the database going away: say so where the process logs.
  worker.on('error', (error) => console.error('PGlite thread failed:', error));
  return {
    url,
    threadId,
    stop: async () => {
      const stopped = new Promise((resolve) => {
        worker.once('message', resolve);
        worker.once('exit', resolve);
      });
      worker.postMessage('stop');
      await stopped;
      await worker.terminate();
    },
  };
}
