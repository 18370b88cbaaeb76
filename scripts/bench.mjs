// `npm run bench [-- options]`: measures the API end to end on a stack it starts itself
// (a database, the relay, a delay proxy, `wrangler dev` with the queue consumer and simulated
// R2; the edge Worker in front of the API Worker, as `npm start` runs them). Sections, all by
// default, or some with --only edge,rtt,lists,import,analytics:
//   edge    each public or hot route under load (autocannon, --connections for --load-seconds)
//           against a no-database 404 baseline and health, through the edge Worker; also the
//           edge Worker in workerd directly (miniflare), unless --skip-workerd-direct
//   rtt     sequential database round trips per request, from the latency with and without a
//           delay of --db-rtt ms (default 40) between the relay and the database
//   lists   list throughput at --leads leads (default 100 000) against health, a small
//           organization, a search and cursor page 1000; each case --seconds long, in --rounds
//           interleaved rounds (default 3), reported as its median
//   import  a CSV import and an export of --rows rows (default 100 000) and a tenth of them
//   analytics  the dashboard aggregates' p99 against health's p99 (one client, --samples
//           requests each, default 200) at --leads leads with deals, meetings and signals;
//           --analytics-cases top_accounts,company_stats,… times only those (and health)
// Database: in-memory PGlite, or --database-url postgres://… (migrated first), or --postgres
// (a throwaway server from Debian's binaries, stopped at the end). With --database-url,
// --keep-seed fills the lists' and analytics' organizations on the first run only and measures
// the same ones on later runs (found by a fixed login; new migrations still apply first): a
// million leads take long to seed on a small machine. --pooler (with --postgres or
// --database-url) puts a transaction-mode PgBouncer (Debian's pgbouncer) between the Workers and
// the server, as production's pooled DATABASE_URL (docs/deploy.md). Progress goes to stderr,
// one JSON result to stdout. Bounded: every wait has a deadline, everything started is stopped.
import { parseArgs } from 'node:util';
import { measureAnalytics } from './lib/bench-analytics.mjs';
import { measureEdge } from './lib/bench-edge.mjs';
import { measureImportExport } from './lib/bench-import-export.mjs';
import { measureListScaling } from './lib/bench-list-scaling.mjs';
import { measureRoundTrips } from './lib/bench-round-trips.mjs';
import { startBenchStack } from './lib/bench-stack.mjs';

const SECTIONS = ['edge', 'rtt', 'lists', 'import', 'analytics'];

const { values: options } = parseArgs({
  options: {
    only: { type: 'string', default: SECTIONS.join(',') },
    'db-rtt': { type: 'string', default: '40' },
    requests: { type: 'string', default: '30' },
    leads: { type: 'string', default: '100000' },
    clients: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    'cursor-walk-seconds': { type: 'string', default: '240' },
    rows: { type: 'string', default: '100000' },
    samples: { type: 'string', default: '200' },
    connections: { type: 'string', default: '10' },
    'load-seconds': { type: 'string', default: '5' },
    'skip-workerd-direct': { type: 'boolean', default: false },
    'database-url': { type: 'string' },
    postgres: { type: 'boolean', default: false },
    'keep-seed': { type: 'boolean', default: false },
    pooler: { type: 'boolean', default: false },
    'analytics-cases': { type: 'string' },
    'deadline-minutes': { type: 'string', default: '30' },
  },
});

function positive(name, { integer = true } = {}) {
  const value = Number(options[name]);
  if (!(value > 0) || (integer && !Number.isInteger(value))) {
    console.error(`--${name} must be a positive ${integer ? 'whole ' : ''}number, got ${options[name]}`);
    process.exit(2);
  }
  return value;
}

const only = options.only
  .split(',')
  .map((name) => name.trim())
  .filter(Boolean);
const unknown = only.filter((name) => !SECTIONS.includes(name));
if (unknown.length || !only.length) {
  console.error(`--only takes a comma-separated list of ${SECTIONS.join(', ')}; got ${options.only}`);
  process.exit(2);
}
if (options.pooler && !options.postgres && !options['database-url']) {
  console.error('--pooler needs --postgres or --database-url (PgBouncer pools a PostgreSQL server, not PGlite)');
  process.exit(2);
}
if (options.postgres && options['database-url']) {
  console.error('--postgres and --database-url exclude each other');
  process.exit(2);
}
if (options['keep-seed'] && !options['database-url']) {
  console.error('--keep-seed needs --database-url (a database that outlives the run)');
  process.exit(2);
}
const settings = {
  rttMs: positive('db-rtt', { integer: false }),
  requests: positive('requests'),
  leads: positive('leads'),
  clients: positive('clients'),
  seconds: positive('seconds', { integer: false }),
  rounds: positive('rounds'),
  cursorWalkSeconds: positive('cursor-walk-seconds', { integer: false }),
  rows: positive('rows'),
  samples: positive('samples'),
  connections: positive('connections'),
  loadSeconds: positive('load-seconds', { integer: false }),
  deadlineMs: positive('deadline-minutes', { integer: false }) * 60 * 1000,
  keepSeed: options['keep-seed'],
};
const started = Date.now();
/** Progress on stderr, so stdout carries only the JSON result. */
const log = (message) => process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(1)}s] ${message}\n`);
// Ctrl-C or SIGTERM: once the stack is up, stop it at once; while it is starting, the next
// deadline check throws, and the start-up stops what it had started.
let interrupted = false;
let stopStack = null;
const onSignal = async () => {
  if (interrupted) return;
  interrupted = true;
  log('interrupted, stopping');
  if (stopStack) {
    await stopStack();
    process.exit(130);
  }
};
process.once('SIGINT', onSignal);
process.once('SIGTERM', onSignal);
const deadline = (what) => {
  if (interrupted) throw new Error(`interrupted while ${what}`);
  if (Date.now() - started > settings.deadlineMs) throw new Error(`bench deadline passed while ${what}`);
};

async function main() {
  const stack = await startBenchStack({
    databaseUrl: options['database-url'],
    throwawayPostgres: options.postgres,
    pooler: options.pooler,
    log,
    deadline,
  });
  // One stop, shared: a signal's and the finally's callers both wait for it to finish.
  let stopping = null;
  stopStack = () => {
    stopping ??= stack.stop();
    return stopping;
  };
  if (interrupted) {
    await stopStack();
    process.exit(130);
  }
  const output = { database: stack.engine, sections: only };
  try {
    // Import first: its workerd memory figures start from a fresh process, as they did before
    // the other sections existed (the lists' concurrent clients grow the process's RSS). Edge
    // next: its check that the 404 baseline sends nothing to the database needs the database
    // quiet, before the rtt section's pixel hits keep the events queue's consumer busy.
    if (only.includes('import')) {
      log(`section import (${settings.rows} rows)`);
      const { lost_rows: lost, result } = await measureImportExport(stack, { rows: settings.rows, log, deadline });
      output.import = result;
      if (lost) process.exitCode = 1;
    }
    if (only.includes('edge')) {
      log(
        `section edge (${settings.connections} connections, ${settings.loadSeconds} s a route, ${settings.leads} leads)`,
      );
      output.edge = await measureEdge(stack, {
        leads: settings.leads,
        connections: settings.connections,
        seconds: settings.loadSeconds,
        workerdDirect: !options['skip-workerd-direct'],
        log,
        deadline,
      });
    }
    if (only.includes('rtt')) {
      log(`section rtt (${settings.rttMs} ms, ${settings.requests} requests per median)`);
      output.rtt = await measureRoundTrips(stack, {
        rttMs: settings.rttMs,
        requests: settings.requests,
        warmup: 3,
        log,
        deadline,
      });
    }
    if (only.includes('lists')) {
      log(`section lists (${settings.leads} leads, ${settings.clients} clients, ${settings.seconds} s each)`);
      output.lists = await measureListScaling(stack, { ...settings, log, deadline });
    }
    if (only.includes('analytics')) {
      log(`section analytics (${settings.leads} leads, ${settings.samples} requests each)`);
      output.analytics = await measureAnalytics(stack, {
        leads: settings.leads,
        samples: settings.samples,
        keepSeed: settings.keepSeed,
        cases: options['analytics-cases']?.split(',').map((name) => name.trim()) ?? null,
        log,
        deadline,
      });
    }
    output.seconds = Math.round((Date.now() - started) / 1000);
    console.log(JSON.stringify(output, null, 2));
  } finally {
    await stopStack();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
