// A PostgreSQL server for one bench run, from Debian's binaries (/usr/lib/postgresql/<v>/bin),
// in a temporary directory on a free port, removed again by stop(). As root, initdb and pg_ctl
// refuse to run, so they run as the `postgres` user (the recipe of .ci/run).
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './local-stack.mjs';

function newestBinDir() {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'postgres')))
    : [];
  versions.sort((a, b) => Number(a) - Number(b));
  return versions.length ? { version: versions.at(-1), bin: join(root, versions.at(-1), 'bin') } : null;
}

/** Single-quoted for /bin/sh (paths come from mkdtemp, but quote anyway). */
const quote = (value) => `'${String(value).replaceAll("'", "'\\''")}'`;

export async function startThrowawayPostgres({ log = () => {} } = {}) {
  const found = newestBinDir();
  if (!found)
    throw new Error(
      "--postgres: no /usr/lib/postgresql/*/bin/postgres; install Debian's postgresql (apt-get install postgresql) or pass --database-url",
    );
  const asRoot = process.getuid?.() === 0;
  const dataDir = mkdtempSync(join(tmpdir(), 'lm-bench-pg-'));
  const socketDir = mkdtempSync(join(tmpdir(), 'lm-bench-pgsock-'));
  const run = (command) => {
    if (asRoot)
      execFileSync('su', ['postgres', '-s', '/bin/sh', '-c', command], { stdio: ['ignore', 'ignore', 'inherit'] });
    else execFileSync('/bin/sh', ['-c', command], { stdio: ['ignore', 'ignore', 'inherit'] });
  };
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    chownSync(dataDir, uid, gid);
    chownSync(socketDir, uid, gid);
  }
  const port = await freePort();
  const pgCtl = quote(join(found.bin, 'pg_ctl'));
  let started = false;
  const stop = async () => {
    if (started) {
      try {
        run(`${pgCtl} -D ${quote(dataDir)} -m fast -w -t 30 stop`);
      } catch {
        // already gone; the directories are removed below either way
      }
      started = false;
    }
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(socketDir, { recursive: true, force: true });
  };
  try {
    log(`initdb (PostgreSQL ${found.version}) in ${dataDir}`);
    run(`${quote(join(found.bin, 'initdb'))} -D ${quote(dataDir)} -A trust -U postgres`);
    const options = `-p ${port} -k ${socketDir} -c listen_addresses=127.0.0.1 -c max_connections=300`;
    run(`${pgCtl} -D ${quote(dataDir)} -l ${quote(join(dataDir, 'server.log'))} -w -t 60 -o ${quote(options)} start`);
    started = true;
  } catch (error) {
    await stop();
    throw error;
  }
  // The postmaster's pid (the first line of postmaster.pid), for the bench's CPU figures.
  const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]) || null;
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, version: found.version, pid, stop };
}
