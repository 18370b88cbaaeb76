// The stack one bench run measures: a database (in-memory PGlite, a server named by URL, or a
// throwaway Debian PostgreSQL), the migrations, the WebSocket relay, the delay proxy between
// the relay and the database, and `wrangler dev` running both Workers as `npm start` does (the
// edge Worker on the port, the API Worker with the queue consumers and simulated R2 behind it).
// Everything started here is stopped by stop(), whatever failed in between.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeDocsAssets } from '../docs-assets.mjs';
import { cpuReader, descendants, isWorkersRuntime } from './bench-cpu.mjs';
import { startDelayProxy } from './delay-proxy.mjs';
import { startLocalDatabase } from './local-database.mjs';
import { freePort } from './local-stack.mjs';
import { startPgBouncer } from './pgbouncer.mjs';
import { startThrowawayPostgres } from './throwaway-postgres.mjs';
import { writeLocalWorkerConfigs } from './worker-configs.mjs';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The environment wrangler runs in: node_modules/.bin first, as `npm run` does, so wrangler runs
 * on the project's node (22), also when this script was started with `node scripts/bench.mjs`
 * and an older node on PATH.
 */
export function wranglerEnv() {
  return {
    ...process.env,
    PATH: `${join(projectRoot, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`,
    WRANGLER_SEND_METRICS: 'false',
  };
}

export const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

export function memoryOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key) => Number(status.match(new RegExp(`${key}:\\s+(\\d+)`))?.[1] ?? 0);
    return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
  } catch {
    return null;
  }
}

/**
 * Both Workers' configurations as `npm start` writes them (scripts/lib/worker-configs.mjs), with
 * the rate limits lifted: the bench sends thousands of requests a minute from one organization,
 * and 429s would be counted as fast answers. The limiter call itself still runs on every request.
 * The limits go in the `.dev.vars` beside the configurations, whose entries wrangler puts over the
 * `[vars]` of wrangler.toml (a `--var` would reach only the first Worker, the edge).
 */
/** The Workers' signing secret (also the tracking tokens'; the direct workerd run needs it too). */
export const BENCH_JWT_SECRET = 'bench-secret-that-is-long-enough-for-hs256-signing';

const BENCH_PASSWORD = 'correct horse battery';

const LIFTED_RATE_LIMITS = {
  API_RATE_LIMIT: '100000000',
  API_KEY_RATE_LIMIT: '100000000',
  AUTH_RATE_LIMIT: '100000000',
};

/** The same URL with host and port replaced (credentials, database and options kept). */
function retarget(url, host, port) {
  const parsed = new URL(url);
  parsed.hostname = host;
  parsed.port = String(port);
  return parsed.toString();
}

export async function startBenchStack({ databaseUrl, throwawayPostgres, pooler = false, log, deadline }) {
  const stops = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch((error) => log(`stopping: ${error.message}`));
    stops.length = 0;
  };
  try {
    let url = databaseUrl;
    let engine = databaseUrl ? 'postgres (--database-url)' : 'pglite';
    let postgresPid = null;
    if (throwawayPostgres) {
      const server = await startThrowawayPostgres({ log });
      stops.push(server.stop);
      url = server.url;
      postgresPid = server.pid;
      engine = `postgres ${server.version} (throwaway)`;
    }
    log(url ? 'migrating the PostgreSQL server and starting the relay' : 'starting PGlite and the relay');
    const database = await startLocalDatabase({ databaseUrl: url });
    stops.push(database.stop);
    // --pooler: the Worker's connections go through a transaction-mode PgBouncer, as production's
    // through a pooled endpoint; migrations and the bench's own loading stay direct.
    let poolerPid = null;
    let workerUrl = database.url;
    if (pooler) {
      const bouncer = await startPgBouncer({ serverUrl: database.url, log });
      stops.push(bouncer.stop);
      workerUrl = bouncer.url;
      poolerPid = bouncer.pid;
      engine = `${engine}, through pgbouncer (transaction mode)`;
    }
    const target = new URL(workerUrl);
    const proxy = await startDelayProxy({ targetHost: target.hostname, targetPort: Number(target.port || 5432) });
    stops.push(proxy.stop);

    log('starting wrangler dev (the edge Worker in front of the API Worker)');
    const port = await freePort();
    const persist = mkdtempSync(join(tmpdir(), 'lm-bench-'));
    stops.push(async () => rmSync(persist, { recursive: true, force: true }));
    writeDocsAssets();
    const configs = writeLocalWorkerConfigs(join(persist, 'workers'), {
      // The API Worker reaches the database through the relay and then the delay proxy.
      DATABASE_URL: retarget(workerUrl, proxy.host, proxy.port),
      DB_WS_PROXY: database.relayAddress,
      JWT_SECRET: BENCH_JWT_SECRET,
      // The local providers, as `npm start` uses them: the click target's link domain is verified
      // by the local DNS provider (bench-edge-fixtures.mjs), with no resolver to reach.
      LOCAL_PROVIDERS: 'true',
      ...LIFTED_RATE_LIMITS,
    });
    const wrangler = spawn(
      join(projectRoot, 'node_modules', '.bin', 'wrangler'),
      [
        'dev',
        // As `npm start` runs them: the edge Worker first (it serves the port), the API Worker
        // behind its service binding; every request of every section goes through the edge.
        '-c',
        configs.edge,
        '-c',
        configs.api,
        '--ip',
        '127.0.0.1',
        '--port',
        String(port),
        '--persist-to',
        join(persist, 'state'),
        '--show-interactive-dev-session=false',
      ],
      {
        cwd: projectRoot,
        stdio: ['ignore', 'ignore', 'inherit'],
        env: wranglerEnv(),
      },
    );
    stops.push(async () => {
      if (wrangler.exitCode !== null) return;
      wrangler.kill('SIGTERM');
      await Promise.race([new Promise((done) => wrangler.once('exit', done)), sleep(5000)]);
    });

    let workerd = null;
    let peakRss = 0;
    const sampler = setInterval(() => {
      workerd ??= descendants(wrangler.pid).find(isWorkersRuntime) ?? null;
      const memory = workerd && memoryOf(workerd);
      if (memory) peakRss = Math.max(peakRss, memory.rss);
    }, 100);
    stops.push(async () => clearInterval(sampler));

    const base = `http://127.0.0.1:${port}`;
    let ipCounter = 0;
    /**
     * One request; `ip` defaults to a fixed address (signups pass a fresh one each: the auth limit
     * is per IP). `headers` adds to them (an `x-api-key`); `redirect: 'manual'` keeps a 302 as the answer.
     */
    const api = (method, path, { token, json, body, ip = '127.0.0.9', headers: extra, redirect } = {}) => {
      const headers = { 'cf-connecting-ip': ip, ...extra };
      if (token) headers.authorization = `Bearer ${token}`;
      if (json) headers['content-type'] = 'application/json';
      return fetch(`${base}${path}`, { method, headers, body: json ? JSON.stringify(json) : body, redirect });
    };
    const nextIp = () => {
      ipCounter++;
      return `127.1.${Math.floor(ipCounter / 250)}.${(ipCounter % 250) + 1}`;
    };
    const grantOf = (body) => ({
      token: body.access_token,
      orgId: Number(body.user.organization_id),
      userId: body.user.id,
    });
    const signup = async (name, email = `bench-${ipCounter + 1}-${Date.now()}@example.com`) => {
      const response = await api('POST', '/api/auth/signup', {
        ip: nextIp(),
        json: { organization_name: name, first_name: 'Bench', last_name: 'Mark', email, password: BENCH_PASSWORD },
      });
      const body = await response.json();
      if (response.status !== 201 || !body.access_token)
        throw new Error(`signup failed: ${response.status} ${JSON.stringify(body)}`);
      return grantOf(body);
    };
    /**
     * With --keep-seed: the organization kept under `key` in this database (`existing: true`,
     * logged in as its user), or a new one under that key, which the caller then seeds.
     */
    const keptOrganization = async (key) => {
      const email = `bench-kept-${key}@example.com`;
      const login = await api('POST', '/api/auth/login', { ip: nextIp(), json: { email, password: BENCH_PASSWORD } });
      if (login.status === 200) return { ...grantOf(await login.json()), existing: true };
      return { ...(await signup(`Bench kept ${key}`, email)), existing: false };
    };

    for (;;) {
      deadline('starting wrangler dev');
      if (wrangler.exitCode !== null) throw new Error('wrangler dev exited');
      const health = await api('GET', '/api/health').catch(() => null);
      if (health?.ok) break;
      await sleep(500);
    }
    // Both Workers run in that one process, so its memory figures are the API Worker's plus the
    // edge Worker's isolate (and the runtime's own).
    log(`workers up (workerd pid ${workerd ?? 'unknown'})`);
    const cpuTime = cpuReader({
      wranglerPid: wrangler.pid,
      databaseThreadId: database.embeddedThreadId,
      postgresPid,
      poolerPid,
    });
    return {
      engine,
      /** The edge Worker's address (what a caller reaches), for the load tool. */
      base,
      /** Direct to the database (not through the proxy), for loading data with `pg`. */
      databaseUrl: database.url,
      proxy,
      api,
      signup,
      keptOrganization,
      workerdMemory: () => (workerd ? memoryOf(workerd) : null),
      resetPeakRss: (value) => {
        peakRss = value;
      },
      peakRss: () => peakRss,
      /** CPU milliseconds spent so far by part (bench-cpu.mjs), or null off Linux. */
      cpuTime: () => cpuTime?.() ?? null,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
