// `npm run edge:check` (CI, .ci/run): builds the edge Worker as `wrangler deploy --dry-run` would
// (wrangler.edge.toml, into a temporary directory), then fails when the script is over its budget
// or when its esbuild metafile or source map lists a package the edge must never carry: the
// database driver, the ORM, or the OpenAPI machinery (zod and its OpenAPI layers). The edge runs
// in many data centres where isolates are often cold, and each cold start parses the whole script.
// `node scripts/edge-size.mjs --outdir DIR` keeps the build in DIR.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The budget of the uploaded script (wrangler's "Total Upload", before gzip). */
export const EDGE_BUDGET_KIB = 150;

/** Packages that mean the edge pulled in database-facing or OpenAPI code. */
export const FORBIDDEN_PACKAGES = [
  '@neondatabase/serverless',
  'drizzle-orm',
  'zod',
  '@hono/zod-openapi',
  '@asteasolutions/zod-to-openapi',
  'pg',
  '@electric-sql/pglite',
];

function packageOf(path) {
  const marker = 'node_modules/';
  const at = path.lastIndexOf(marker);
  if (at < 0) return null;
  const parts = path.slice(at + marker.length).split('/');
  return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

export function checkEdgeBuild(outdir) {
  const metafile = join(outdir, 'bundle-meta.json');
  execFileSync(
    process.execPath,
    [
      join(projectRoot, 'node_modules/wrangler/bin/wrangler.js'),
      'deploy',
      '--dry-run',
      '--outdir',
      outdir,
      '--metafile',
      metafile,
      '-c',
      'wrangler.edge.toml',
    ],
    {
      cwd: projectRoot,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
    },
  );
  const meta = JSON.parse(readFileSync(metafile, 'utf8'));
  const [scriptPath, script] = Object.entries(meta.outputs).find(([path]) => path.endsWith('.js'));
  const bytes = statSync(resolve(projectRoot, scriptPath)).size;
  const map = JSON.parse(readFileSync(`${resolve(projectRoot, scriptPath)}.map`, 'utf8'));
  const inputs = [...Object.keys(script.inputs), ...map.sources];
  const bytesByPackage = new Map();
  for (const [path, input] of Object.entries(script.inputs)) {
    const name = packageOf(path) ?? '(project)';
    bytesByPackage.set(name, (bytesByPackage.get(name) ?? 0) + input.bytesInOutput);
  }
  const forbidden = FORBIDDEN_PACKAGES.filter((name) => inputs.some((path) => packageOf(path) === name));
  return { bytes, bytesByPackage, forbidden };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outdirFlag = process.argv.indexOf('--outdir');
  const outdir = outdirFlag > 0 ? resolve(process.argv[outdirFlag + 1]) : mkdtempSync(join(tmpdir(), 'lm-edge-'));
  try {
    const { bytes, bytesByPackage, forbidden } = checkEdgeBuild(outdir);
    const kib = bytes / 1024;
    console.log(`edge Worker script: ${kib.toFixed(2)} KiB (budget ${EDGE_BUDGET_KIB} KiB)`);
    for (const [name, size] of [...bytesByPackage].sort((a, b) => b[1] - a[1])) {
      console.log(`  ${name.padEnd(32)} ${(size / 1024).toFixed(1).padStart(8)} KiB`);
    }
    const faults = [];
    if (kib > EDGE_BUDGET_KIB)
      faults.push(`the script is ${kib.toFixed(2)} KiB, over the ${EDGE_BUDGET_KIB} KiB budget`);
    if (forbidden.length > 0) {
      faults.push(
        `the script bundles ${forbidden.join(', ')}: an import from src/edge.ts reaches database or OpenAPI code`,
      );
    }
    for (const fault of faults) console.error(`edge:check failed: ${fault}`);
    process.exitCode = faults.length > 0 ? 1 : 0;
  } finally {
    if (outdirFlag < 0) rmSync(outdir, { recursive: true, force: true });
  }
}
