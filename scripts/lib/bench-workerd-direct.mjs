// The edge Worker's database-free routes measured in workerd directly, without `wrangler dev`'s
// proxy in front (which caps a trivial route near 800 requests/s on a 2-core machine and could
// hide the app's own cost). The edge Worker is built as `wrangler deploy` would upload it
// (`--dry-run --outdir`), and run by miniflare's Node API (wrangler's own miniflare) with its
// bindings: the signing secret, the events queue (its consumer here a sink that acknowledges each
// batch, so the queue never backs up; the API Worker's consumer records them), and the service
// binding API pointed at a stub Worker that answers the 404 envelope, since only the pixel, the
// redirect and the unknown-path baseline are measured here. The pixel is also measured with a
// token that fails verification (same GIF, no queue send), which splits the pixel's cost between
// the signature check and the send.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NOT_FOUND_PATH } from './bench-edge-fixtures.mjs';
import { loadRoute } from './bench-load.mjs';
import { round } from './bench-measure.mjs';
import { BENCH_JWT_SECRET, wranglerEnv } from './bench-stack.mjs';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
const BUILD_TIMEOUT_MS = 120_000;

/** Acknowledges every batch of the events queue. */
const EVENTS_SINK = `export default { queue(batch) { batch.ackAll(); } };`;

const API_STUB = `export default {
  fetch() {
    return new Response(JSON.stringify({ success: false, error: { code: 'not_found', message: 'Route not found' } }), {
      status: 404,
      headers: { 'content-type': 'application/json' },
    });
  },
};`;

/** Bundles the edge Worker into `outdir` as `wrangler deploy` would; returns the bundle's path. */
function buildEdgeWorker(outdir) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      join(projectRoot, 'node_modules', '.bin', 'wrangler'),
      ['deploy', '--dry-run', '--outdir', outdir, '-c', join(projectRoot, 'wrangler.edge.toml')],
      {
        cwd: projectRoot,
        stdio: ['ignore', 'ignore', 'pipe'],
        env: wranglerEnv(),
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGTERM'), BUILD_TIMEOUT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(join(outdir, 'edge.js'));
      else reject(new Error(`building the edge Worker failed (${code}): ${stderr.slice(-500)}`));
    });
  });
}

/** The compatibility settings of wrangler.edge.toml, so workerd runs the Worker as deployed. */
function compatibility() {
  const toml = readFileSync(join(projectRoot, 'wrangler.edge.toml'), 'utf8');
  const date = toml.match(/^compatibility_date\s*=\s*"([^"]+)"/m)?.[1];
  const flags = [...(toml.match(/^compatibility_flags\s*=\s*\[([^\]]*)\]/m)?.[1] ?? '').matchAll(/"([^"]+)"/g)].map(
    (match) => match[1],
  );
  return { compatibilityDate: date, compatibilityFlags: flags };
}

export async function measureWorkerdDirect({ openPath, clickPath, connections, seconds, log }) {
  const outdir = mkdtempSync(join(tmpdir(), 'lm-bench-edge-build-'));
  let miniflare = null;
  try {
    log('building the edge Worker (wrangler deploy --dry-run) for workerd directly');
    const bundle = await buildEdgeWorker(outdir);
    // wrangler's own miniflare, the one its workerd and options match.
    const fromWrangler = createRequire(createRequire(import.meta.url).resolve('wrangler/package.json'));
    const { Miniflare } = fromWrangler('miniflare');
    let logLines = 0;
    miniflare = new Miniflare({
      host: '127.0.0.1',
      port: 0,
      // The Worker's request log lines: counted, not printed (stdout carries the bench's JSON).
      handleStructuredLogs: () => {
        logLines++;
      },
      workers: [
        {
          config: {
            name: 'lead-management-edge',
            ...compatibility(),
            manifest: {
              mainModule: 'edge.js',
              modules: { 'edge.js': { type: 'esm', contents: readFileSync(bundle, 'utf8') } },
            },
            env: {
              JWT_SECRET: { type: 'text', value: BENCH_JWT_SECRET },
              EVENTS: { type: 'queue', name: 'lead-management-events' },
              API: { type: 'worker', worker: 'api-stub' },
            },
          },
        },
        {
          config: {
            name: 'api-stub',
            compatibilityDate: compatibility().compatibilityDate,
            manifest: { mainModule: 'stub.js', modules: { 'stub.js': { type: 'esm', contents: API_STUB } } },
          },
        },
        {
          config: {
            name: 'events-sink',
            compatibilityDate: compatibility().compatibilityDate,
            triggers: [{ type: 'queue', name: 'lead-management-events', maxBatchSize: 100, maxBatchTimeout: 1 }],
            manifest: { mainModule: 'sink.js', modules: { 'sink.js': { type: 'esm', contents: EVENTS_SINK } } },
          },
        },
      ],
    });
    const url = await miniflare.ready;
    const base = url.origin;
    // A token whose signature fails: the signature's first character (six significant bits) changed.
    const badToken = openPath.replace(/\.(.)/, (_, first) => `.${first === 'A' ? 'B' : 'A'}`);
    const routes = {
      not_found_baseline: {
        route: `GET ${NOT_FOUND_PATH} (forwarded to the API stub)`,
        path: NOT_FOUND_PATH,
        expect: [404],
      },
      pixel: { route: 'GET /api/v1/track/open/:token', path: openPath, expect: [200] },
      pixel_bad_signature: {
        route: 'GET /api/v1/track/open/:token with a bad signature (verify only, nothing queued)',
        path: badToken,
        expect: [200],
      },
      redirect: { route: 'GET /api/v1/track/click/:token', path: clickPath, expect: [302] },
    };
    const measured = {};
    for (const [key, { route, path, expect }] of Object.entries(routes)) {
      const result = await loadRoute(base, { method: 'GET', path }, { expect, connections, seconds });
      measured[key] = { route, ...result };
      log(
        `workerd direct, ${route}: ${result.requests_per_second} requests/s, p50 ${result.p50_ms} ms, p99 ${result.p99_ms} ms`,
      );
    }
    const ratio = (a, b) => (a > 0 && b > 0 ? round(a / b, 2) : null);
    const atMost = (value, limit) => ({ value, target: `<= ${limit}`, holds: value == null ? null : value <= limit });
    return {
      how: 'edge Worker bundle (wrangler deploy --dry-run) in workerd through miniflare, no wrangler dev proxy; the API service binding is a stub answering 404; the events queue is acknowledged by a sink',
      measured,
      worker_log_lines: logLines,
      ratios: {
        pixel_p50_vs_not_found_p50: atMost(ratio(measured.pixel.p50_ms, measured.not_found_baseline.p50_ms), 1.2),
        redirect_p50_vs_not_found_p50: atMost(ratio(measured.redirect.p50_ms, measured.not_found_baseline.p50_ms), 1.2),
      },
    };
  } finally {
    if (miniflare) await miniflare.dispose().catch(() => undefined);
    rmSync(outdir, { recursive: true, force: true });
  }
}
