// Where a request's CPU time goes, read from Linux's /proc before and after a measurement:
// - `workers`: the workerd that runs both Workers (the edge Worker and the API Worker);
// - `wrangler`: wrangler's own processes (its node process and the proxy workerd on the port);
// - `database`: PGlite's thread in this process, or a throwaway PostgreSQL server with its
//   backends (the postmaster's CPU, its live children's and its ended children's);
// - `bench`: this process's main thread: the relay, the delay proxy and the load clients.
// A throughput ratio says how much slower a route is; these say where the difference is spent
// (issue 17: the wide search's extra cost is the database's, the Workers' CPU is page 1's).
// Off Linux, or for a database named by --database-url, the parts that cannot be read are left out.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { linuxThreadId } from './thread-id.mjs';

let clockTicks;
/** Milliseconds per clock tick of /proc's CPU times (USER_HZ, 100 on Linux's usual builds). */
function msPerTick() {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return 1000 / clockTicks;
}

/** utime+stime (and, with `children`, the reaped children's cutime+cstime) of a /proc stat file, in ticks. */
function ticks(path, children = false) {
  try {
    const stat = readFileSync(path, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is the state (field 3 of proc(5)); utime is field 14, stime 15, cutime 16, cstime 17.
    const own = Number(fields[11]) + Number(fields[12]);
    return children ? own + Number(fields[13]) + Number(fields[14]) : own;
  } catch {
    return 0; // ended meanwhile
  }
}

/** Every process's parent, from /proc. */
function parents() {
  const found = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      found.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // ended meanwhile
    }
  }
  return found;
}

/** Pids of the processes below `root`. */
export function descendants(root, parentOf = parents()) {
  const found = [];
  const walk = (pid) => {
    for (const [child, parent] of parentOf) {
      if (parent === pid) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(root);
  return found;
}

/**
 * Whether `pid` is the workerd that runs the Workers. `wrangler dev` starts two: its own proxy
 * (on the port callers reach, started first) and the runtime of the Workers themselves, the one
 * started with an inspector address.
 */
export function isWorkersRuntime(pid) {
  try {
    if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'workerd') return false;
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .some((arg) => arg.startsWith('--inspector-addr'));
  } catch {
    return false; // the process ended meanwhile
  }
}

/**
 * A reader of the CPU time spent so far, in milliseconds by part. `wranglerPid` is the
 * `wrangler dev` process; `databaseThreadId` PGlite's thread in this process; `postgresPid` a
 * throwaway server's postmaster. Returns null off Linux.
 */
export function cpuReader({ wranglerPid, databaseThreadId = null, postgresPid = null, poolerPid = null }) {
  const benchThread = linuxThreadId();
  if (benchThread === null) return null;
  const ms = msPerTick();
  return () => {
    const parentOf = parents();
    // With the ended children each process has reaped, so a short-lived one is not lost.
    let workers = 0;
    let wrangler = ticks(`/proc/${wranglerPid}/stat`, true);
    for (const pid of descendants(wranglerPid, parentOf)) {
      if (isWorkersRuntime(pid)) workers += ticks(`/proc/${pid}/stat`, true);
      else wrangler += ticks(`/proc/${pid}/stat`, true);
    }
    const parts = { workers: workers * ms, wrangler: wrangler * ms };
    if (databaseThreadId !== null) parts.database = ticks(`/proc/self/task/${databaseThreadId}/stat`) * ms;
    else if (postgresPid !== null) {
      // The backends of ended connections are in the postmaster's children's times once reaped.
      let database = ticks(`/proc/${postgresPid}/stat`, true);
      for (const pid of descendants(postgresPid, parentOf)) database += ticks(`/proc/${pid}/stat`);
      parts.database = database * ms;
    }
    // PgBouncer (--pooler): its own part, so the database's figure stays the server's.
    if (poolerPid !== null) parts.pooler = ticks(`/proc/${poolerPid}/stat`) * ms;
    parts.bench = ticks(`/proc/self/task/${benchThread}/stat`) * ms;
    return parts;
  };
}

/** CPU milliseconds per request by part between two readings, over `requests` requests. */
export function perRequest(before, after, requests) {
  if (!before || !after || requests <= 0) return null;
  return Object.fromEntries(
    Object.keys(after).map((part) => [part, Number(((after[part] - (before[part] ?? 0)) / requests).toFixed(2))]),
  );
}
