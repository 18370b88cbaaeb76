// `npm run bench [-- --rows 100000]`: a CSV import and an export of the same leads, end to end
// on a local stack it starts itself (in-memory PGlite + relay, `wrangler dev` with the queue
// consumer and R2 simulated), first at a tenth of the rows and then at all of them, printing
// wall times, the memory of the workerd process and the ratios between the two runs as JSON. Bounded: every wait has a deadline, and everything started is stopped at the end.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalDatabase } from './lib/local-database.mjs';

const argRows = process.argv.indexOf('--rows');
const ROWS = argRows > 0 ? Number(process.argv[argRows + 1]) : 100_000;
const DEADLINE_MS = 25 * 60 * 1000;
const started = Date.now();

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Progress on stderr, so stdout carries only the JSON result. */
const log = (message) => process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(1)}s] ${message}\n`);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function checkDeadline(what) {
  if (Date.now() - started > DEADLINE_MS) throw new Error(`bench deadline passed while ${what}`);
}

/** Pids of the processes below `root` (Linux /proc), to find the workerd that wrangler runs. */
function descendants(root) {
  const parents = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // the process ended meanwhile
    }
  }
  const found = [];
  const walk = (pid) => {
    for (const [child, parent] of parents) {
      if (parent === pid) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(root);
  return found;
}

function memoryOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key) => Number(status.match(new RegExp(`${key}:\\s+(\\d+)`))?.[1] ?? 0);
    return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
  } catch {
    return null;
  }
}

function leadsCsv(count) {
  const lines = ['First Name,Last Name,Email Address,Phone,Company,City,Country,Lead Status,Favourite Colour'];
  for (let i = 1; i <= count; i++) {
    lines.push(`First${i},Last${i},bench-${i}@example.com,+1555${String(i).padStart(7, '0')},Company ${i % 500},City ${i % 70},Country ${i % 20},New,colour ${i % 9}`);
  }
  return `${lines.join('\r\n')}\r\n`;
}

async function main() {
  log('starting PGlite and the relay');
  const database = await startLocalDatabase({});
  log('starting wrangler dev');
  const port = await freePort();
  const persist = mkdtempSync(join(tmpdir(), 'lm-bench-'));
  const base = `http://127.0.0.1:${port}`;
  const wrangler = spawn(
    join('node_modules', '.bin', 'wrangler'),
    [
      'dev', '--ip', '127.0.0.1', '--port', String(port), '--persist-to', persist, '--show-interactive-dev-session=false',
      '--var', `DATABASE_URL:${database.url}`, '--var', `DB_WS_PROXY:${database.relayAddress}`,
      '--var', 'JWT_SECRET:bench-secret-that-is-long-enough-for-hs256-signing',
    ],
    { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, WRANGLER_SEND_METRICS: 'false' } },
  );
  let workerd = null;
  let peakRss = 0;
  const sampler = setInterval(() => {
    workerd ??= descendants(wrangler.pid).find((pid) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'workerd') ?? null;
    const memory = workerd && memoryOf(workerd);
    if (memory) peakRss = Math.max(peakRss, memory.rss);
  }, 100);

  const api = async (method, path, { token, json, body } = {}) => {
    const headers = { 'cf-connecting-ip': '127.0.0.9' };
    if (token) headers.authorization = `Bearer ${token}`;
    if (json) headers['content-type'] = 'application/json';
    const response = await fetch(`${base}${path}`, { method, headers, body: json ? JSON.stringify(json) : body });
    return response;
  };
  const waitFor = async (token, path, id, what) => {
    for (;;) {
      checkDeadline(what);
      const response = await api('GET', `${path}?limit=100`, { token });
      const job = (await response.json()).data?.find((candidate) => candidate.id === id);
      log(`${what}: ${job?.status} ${job?.processed ?? 0}/${job?.total ?? '?'}`);
      if (job?.status === 'completed') return job;
      if (job?.status === 'failed') throw new Error(`${what} failed: ${job.error}`);
      await sleep(1000);
    }
  };

  try {
    for (;;) {
      checkDeadline('starting wrangler dev');
      if (wrangler.exitCode !== null) throw new Error('wrangler dev exited');
      const health = await api('GET', '/api/health').catch(() => null);
      if (health?.ok) break;
      await sleep(500);
    }
    log(`worker up (workerd pid ${workerd ?? 'unknown'})`);

    /** One import of `rows` rows into a new organization, then an export of them; memory measured over the phase. */
    const runPhase = async (rows) => {
      const signup = await api('POST', '/api/auth/signup', {
        json: { organization_name: `Bench ${rows}`, first_name: 'Bench', last_name: 'Mark', email: `bench-${rows}-${Date.now()}@example.com`, password: 'correct horse battery' },
      });
      const { access_token: token } = await signup.json();
      if (!token) throw new Error(`signup failed: ${signup.status}`);
      const baseline = workerd ? (memoryOf(workerd)?.rss ?? 0) : 0;
      peakRss = baseline;

      const csv = leadsCsv(rows);
      const form = new FormData();
      form.set('file', new File([csv], 'bench.csv', { type: 'text/csv' }));
      log(`uploading ${rows} rows (${csv.length} bytes)`);
      const importStart = Date.now();
      const upload = await api('POST', '/api/lead/lead-imports', { token, body: form });
      if (upload.status !== 202) throw new Error(`upload: ${upload.status} ${await upload.text()}`);
      const imported = await waitFor(token, '/api/import-job/list', (await upload.json()).data.id, `importing ${rows}`);
      const importSeconds = (Date.now() - importStart) / 1000;

      log(`import of ${rows} completed in ${importSeconds} s; exporting`);
      const exportStart = Date.now();
      const created = await api('POST', '/api/exports/create', { token, json: { export_type: 'leads' } });
      if (created.status !== 202) throw new Error(`export: ${created.status} ${await created.text()}`);
      const exported = await waitFor(token, '/api/exports/list', (await created.json()).data.id, `exporting ${rows}`);
      const file = await api('GET', `/api/exports/download/${exported.id}`, { token });
      const bytes = (await file.arrayBuffer()).byteLength;
      const exportSeconds = (Date.now() - exportStart) / 1000;
      if (imported.created !== rows || exported.total !== rows) process.exitCode = 1;
      return {
        rows,
        upload_bytes: csv.length,
        import_seconds: importSeconds,
        import_rows_per_second: Math.round(imported.processed / importSeconds),
        imported: { created: imported.created, failed: imported.failed, skipped: imported.skipped },
        export_seconds: exportSeconds,
        export_rows_per_second: Math.round(exported.total / exportSeconds),
        export_bytes: bytes,
        workerd_rss_baseline_mb: Math.round(baseline),
        workerd_rss_growth_mb: Math.round(Math.max(0, peakRss - baseline)),
      };
    };

    // The same work at a tenth of the size first, in the same process: the ratios below say
    // whether time grows linearly and memory stays flat as the row count grows tenfold.
    const small = await runPhase(Math.max(1, Math.round(ROWS / 10)));
    const full = await runPhase(ROWS);
    const ratio = (a, b) => (b > 0 ? Number((a / b).toFixed(2)) : null);
    console.log(
      JSON.stringify(
        {
          small,
          full,
          ratios: {
            import_rows_per_second_full_vs_small: ratio(full.import_rows_per_second, small.import_rows_per_second),
            export_rows_per_second_full_vs_small: ratio(full.export_rows_per_second, small.export_rows_per_second),
            memory_growth_full_vs_small: ratio(Math.max(1, full.workerd_rss_growth_mb), Math.max(1, small.workerd_rss_growth_mb)),
            full_peak_rss_vs_worker_limit_128mb: ratio(full.workerd_rss_baseline_mb + full.workerd_rss_growth_mb, 128),
          },
          note: 'RSS of the whole local workerd process (runtime + every isolate), an upper bound for the Worker isolate; growth is peak minus the RSS at the start of the phase (1 MB floor in the ratio)',
        },
        null,
        2,
      ),
    );
  } finally {
    clearInterval(sampler);
    wrangler.kill('SIGTERM');
    await Promise.race([new Promise((resolve) => wrangler.once('exit', resolve)), sleep(5000)]);
    await database.stop();
    rmSync(persist, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
