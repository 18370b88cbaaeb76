// A transaction-mode PgBouncer in front of a PostgreSQL server, for one bench run (`--pooler`):
// the shape production runs, where DATABASE_URL is a pooled endpoint (Neon's `-pooler` host, or
// Hyperdrive) that hands each transaction to any of its warm server connections and resets
// nothing between clients (docs/data-path.md). Uses Debian's binary (apt-get install pgbouncer);
// like initdb, it refuses to run as root, so as root it runs as the `postgres` user.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './local-stack.mjs';

const BINARIES = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', '/usr/local/bin/pgbouncer'];

function waitForPort(port, timeoutMs) {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve();
      });
      socket.once('error', () => {
        socket.destroy();
        if (Date.now() - started > timeoutMs) reject(new Error(`pgbouncer did not listen on ${port}`));
        else setTimeout(attempt, 100);
      });
    };
    attempt();
  });
}

/**
 * Starts PgBouncer (pool_mode = transaction, `poolSize` server connections per database and user)
 * forwarding every database name to the server of `serverUrl`. Returns the pooled URL (same user,
 * password and database, the pooler's port), its pid for the CPU figures, and stop().
 */
export async function startPgBouncer({ serverUrl, poolSize = 20, log = () => {} }) {
  const binary = BINARIES.find((path) => existsSync(path));
  if (!binary) throw new Error("--pooler: no pgbouncer binary; install Debian's pgbouncer (apt-get install pgbouncer)");
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username || 'postgres');
  const password = decodeURIComponent(server.password || '');
  const dir = mkdtempSync(join(tmpdir(), 'lm-bench-pgbouncer-'));
  const port = await freePort();
  const iniPath = join(dir, 'pgbouncer.ini');
  const pidPath = join(dir, 'pgbouncer.pid');
  const passwordOption = password ? ` password=${password}` : '';
  writeFileSync(join(dir, 'users.txt'), `"${user}" "${password.replaceAll('"', '""')}"\n`);
  writeFileSync(
    iniPath,
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432} user=${user}${passwordOption}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 1000',
      // The driver's start-up parameters that PgBouncer does not track itself.
      'ignore_startup_parameters = extra_float_digits,options',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      `pidfile = ${pidPath}`,
      'log_connections = 0',
      'log_disconnections = 0',
      '',
    ].join('\n'),
  );
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    for (const path of [dir, iniPath, join(dir, 'users.txt')]) chownSync(path, uid, gid);
  }
  const command = `'${binary}' -d '${iniPath}'`;
  if (asRoot)
    execFileSync('su', ['postgres', '-s', '/bin/sh', '-c', command], { stdio: ['ignore', 'ignore', 'inherit'] });
  else execFileSync('/bin/sh', ['-c', command], { stdio: ['ignore', 'ignore', 'inherit'] });
  const stop = async () => {
    try {
      const pid = Number(readFileSync(pidPath, 'utf8').trim());
      if (pid) process.kill(pid, 'SIGTERM');
    } catch {
      // already gone
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForPort(port, 10_000);
  } catch (error) {
    await stop();
    throw error;
  }
  const pid = Number(readFileSync(pidPath, 'utf8').trim()) || null;
  const pooled = new URL(serverUrl);
  pooled.hostname = '127.0.0.1';
  pooled.port = String(port);
  log(`pgbouncer (transaction mode, ${poolSize} server connections) on port ${port}`);
  return { url: pooled.toString(), pid, stop };
}
