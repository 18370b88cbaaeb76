// Starts `npm start` (PGlite + relay + wrangler dev) as a newcomer would, on a free port with its
// data in a temporary directory (LM_DATA_DIR), so it never touches a running instance or its
// data. Used by the README check and the browser tests.
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const STARTUP_DEADLINE_MS = 180_000;

export function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

async function healthy(base) {
  try {
    const response = await fetch(`${base}/api/health`, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

/** Ends a process group this script started: SIGTERM, then SIGKILL if it is still there after 15 s. */
export async function stopGroup(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    return;
  }
  const timer = new Promise((done) => setTimeout(() => done('timeout'), 15_000));
  if ((await Promise.race([exited, timer])) === 'timeout') {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {}
    await exited;
  }
}

/**
 * Starts the stack and waits for /api/health. Returns { base, port, work, log(), stop(keep) };
 * `stop(true)` keeps the temporary directory (its server.log) for inspection.
 */
export async function startLocalStack({ label = 'lm-stack', env: extraEnv = {} } = {}) {
  const work = mkdtempSync(join(tmpdir(), `${label}-`));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const serverLog = join(work, 'server.log');
  const logFd = openSync(serverLog, 'w');
  const env = { ...process.env, PORT: String(port), LM_DATA_DIR: join(work, 'data'), ...extraEnv };
  // A fresh embedded database and a secret of its own, whatever the caller's shell has set.
  delete env.DATABASE_URL;
  delete env.JWT_SECRET;
  const server = spawn('npm', ['start'], { cwd: projectRoot, env, stdio: ['ignore', logFd, logFd], detached: true });
  let serverExited = false;
  server.once('exit', () => {
    serverExited = true;
  });
  const log = () => readFileSync(serverLog, 'utf8');
  const stop = async (keep = false) => {
    await stopGroup(server);
    if (!keep) rmSync(work, { recursive: true, force: true });
  };
  const deadline = Date.now() + STARTUP_DEADLINE_MS;
  while (!(await healthy(base))) {
    if (serverExited || Date.now() > deadline) {
      const why = serverExited ? 'npm start exited before the API answered' : `no answer at ${base}/api/health in time`;
      const output = log();
      await stop(true);
      throw new Error(`${why}\n--- npm start output (${serverLog}):\n${output}`);
    }
    await new Promise((done) => setTimeout(done, 500));
  }
  return { base, port, work, log, stop };
}
