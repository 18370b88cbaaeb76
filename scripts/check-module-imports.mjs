#!/usr/bin/env node
/**
 * Refuses imports that break the layers of src/ (ARCHITECTURE.md, "Layout"):
 * - a module's public surface is its index.ts: another module, the jobs and the app import from
 *   `modules/<name>` (its index), never from a file inside it. The app's composition roots
 *   (src/app.ts, src/edge-app.ts) alone may mount a module's route files directly.
 * - the edge Worker's files (src/edge*.ts and what they import) import edge-safe module files directly:
 *   an index re-exports database-facing files too (`npm run edge:check` keeps the edge bundle lean).
 * - the layers point down: core/ and db/ import no module and no job (the outbox table may name the
 *   queue message types of jobs/messages.ts); env.ts imports no module.
 * Run by `npm run lint`; exits 1 and lists each offending import.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');
const modulesDir = path.join(src, 'modules');
const ROUTE_FILES = /^(routes|page-routes|hit-routes)$/;
const COMPOSITION_ROOTS = new Set(['app.ts', 'edge-app.ts'].map((f) => path.join(src, f)));
/** The edge Worker's files import the few edge-safe module files they need directly: a module's index
 * re-exports its database-facing files too, which would put the ORM and zod in the edge bundle. */
const EDGE_FILES = new Set(['edge.ts', 'edge-app.ts', 'edge-config.ts'].map((f) => path.join(src, f)));
/** The queue messages' shapes: data, importing nothing, so the outbox table may name them. */
const JOB_MESSAGES = path.join(src, 'jobs', 'messages.ts');
const LOWER_LAYERS = ['core', 'db'].map((d) => path.join(src, d) + path.sep);
/** Static and type imports, re-exports and `import('…')` types: every way one file names another. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]*)['"]/g;

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) return walk(p);
    return /\.tsx?$/.test(entry.name) ? [p] : [];
  });
}

function resolve(fromFile, spec) {
  const base = path.resolve(path.dirname(fromFile), spec);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** Every file the edge Worker's bundle holds: its entry files and what they import, transitively. */
function edgeClosure(files) {
  const specifier = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]*)['"]/g;
  const seen = new Set();
  const queue = [...EDGE_FILES];
  while (queue.length > 0) {
    const file = queue.pop();
    if (seen.has(file) || !files.includes(file)) continue;
    seen.add(file);
    for (const match of fs.readFileSync(file, 'utf8').matchAll(specifier)) {
      const target = resolve(file, match[1]);
      if (target) queue.push(target);
    }
  }
  return seen;
}

function moduleOf(file) {
  const rel = path.relative(modulesDir, file);
  return rel.startsWith('..') ? null : rel.split(path.sep)[0];
}

const files = walk(src);
const edgeFiles = edgeClosure(files);
const problems = [];
for (const file of files) {
  const text = fs.readFileSync(file, 'utf8');
  const from = moduleOf(file);
  for (const match of text.matchAll(SPECIFIER)) {
    const target = resolve(file, match[1]);
    if (!target) continue;
    const line = text.slice(0, match.index).split('\n').length;
    const where = `${path.relative(root, file)}:${line}`;
    const to = moduleOf(target);
    const base = path.basename(target).replace(/\.tsx?$/, '');
    const jobsInternal = target.startsWith(path.join(src, 'jobs')) && target !== JOB_MESSAGES;
    if (LOWER_LAYERS.some((dir) => file.startsWith(dir)) && (to || jobsInternal)) {
      problems.push(`${where}: core/ and db/ must not import ${path.relative(root, target)}`);
    } else if (file === path.join(src, 'env.ts') && to) {
      problems.push(`${where}: env.ts must not import a module (${path.relative(root, target)})`);
    } else if (
      to &&
      to !== from &&
      base !== 'index' &&
      !edgeFiles.has(file) &&
      !(COMPOSITION_ROOTS.has(file) && ROUTE_FILES.test(base))
    ) {
      problems.push(`${where}: import '${match[1]}' reaches inside the ${to} module; import from its index.ts`);
    }
  }
}

if (problems.length > 0) {
  console.error(`${problems.length} import(s) cross a module's surface:\n${problems.join('\n')}`);
  process.exit(1);
}
console.log('module imports: every cross-module import goes through an index.ts');
