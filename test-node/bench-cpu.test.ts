/**
 * The bench's CPU figures (scripts/lib/bench-cpu.mjs) say which part of the stack a route's cost
 * is spent in (issue 17); a figure booked to the wrong part would send the next change to the
 * wrong place. Linux only, as the bench reads /proc.
 */
import { spawn } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { cpuReader, perRequest } from '../scripts/lib/bench-cpu.mjs';
import { linuxThreadId } from '../scripts/lib/thread-id.mjs';

/**
 * Spends `ms` of this thread's own CPU time (not of the wall clock: on a busy machine a wall-clock
 * loop gets less CPU than its length, and the figures below would miss their bounds), at most 10 s.
 */
const burn = (ms: number) => {
  const used = () => {
    const { user, system } = process.threadCpuUsage();
    return (user + system) / 1000;
  };
  const from = used();
  const deadline = performance.now() + 10_000;
  while (used() - from < ms && performance.now() < deadline);
};

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A process that spends no CPU, standing for wrangler with nothing below it. */
function idleProcess() {
  const child = spawn('sleep', ['30']);
  cleanups.push(() => child.kill());
  return child.pid as number;
}

const threadIdModule = new URL('../scripts/lib/thread-id.mjs', import.meta.url).href;

/**
 * A worker thread, as PGlite's is, that burns `ms` of CPU when told; it answers first with its
 * Linux thread id from `linuxThreadId`, the helper the PGlite thread reports its own with.
 */
async function burningThread() {
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads');
     const burn = ${burn.toString()};
     parentPort.on('message', (ms) => { burn(ms); parentPort.postMessage('done'); });
     import(${JSON.stringify(threadIdModule)}).then(({ linuxThreadId }) => parentPort.postMessage(linuxThreadId()));`,
    { eval: true },
  );
  cleanups.push(() => worker.terminate());
  const threadId = await new Promise<number>((resolve) => worker.once('message', resolve));
  const run = (ms: number) =>
    new Promise<void>((resolve) => {
      worker.once('message', () => resolve());
      worker.postMessage(ms);
    });
  return { threadId, run };
}

describe.runIf(process.platform === 'linux')('bench CPU figures', () => {
  it('books the database thread’s CPU to the database and the bench thread’s to the bench', async () => {
    const database = await burningThread();
    expect(database.threadId).not.toBe(linuxThreadId());
    const read = cpuReader({ wranglerPid: idleProcess(), databaseThreadId: database.threadId });
    if (!read) throw new Error('no reader on Linux');

    const start = read();
    await database.run(400);
    const afterDatabase = read();
    burn(400);
    const afterBench = read();

    expect(afterDatabase.database! - start.database!).toBeGreaterThanOrEqual(300);
    expect(afterDatabase.bench - start.bench).toBeLessThan(150);
    expect(afterBench.bench - afterDatabase.bench).toBeGreaterThanOrEqual(300);
    expect(afterBench.database! - afterDatabase.database!).toBeLessThan(150);
    expect(afterBench.wrangler - start.wrangler).toBeLessThan(100);
    expect(afterBench.workers).toBe(0);
  });

  it('books what runs below the wrangler process to wrangler, and divides by the requests', async () => {
    const shell = spawn('sh', [
      '-c',
      `${JSON.stringify(process.execPath)} -e "const c = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; }; const f = c(); const d = performance.now() + 10000; while (c() - f < 400 && performance.now() < d);"; sleep 30`,
    ]);
    cleanups.push(() => shell.kill());
    const read = cpuReader({ wranglerPid: shell.pid as number });
    if (!read) throw new Error('no reader on Linux');
    const start = read();
    expect(start.database).toBeUndefined();
    // The burning node is a child of the shell: read while it runs, and after it ended, from the
    // shell's reaped children.
    let now = read();
    const deadline = Date.now() + 5_000;
    while (now.wrangler - start.wrangler < 300 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      now = read();
    }
    expect(now.wrangler - start.wrangler).toBeGreaterThanOrEqual(300);
    // Still there once the node has ended and the shell has reaped it.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(read().wrangler - start.wrangler).toBeGreaterThanOrEqual(300);
    expect(perRequest(start, now, 4)?.wrangler).toBeCloseTo((now.wrangler - start.wrangler) / 4, 1);
  });
});
