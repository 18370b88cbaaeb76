// The static half of `npm run readme:check`: every file, npm script and link that README.md and
// docs/ name must exist, so the documentation cannot silently point at code that moved. It reads
// files only (no stack), so it runs alone in a second: `node scripts/readme-walkthrough.mjs --paths-only`.
//
// Checked, in README.md and every docs/**/*.md except docs/notes/ (working notes the coordinator
// folds into the documents; they may name files that a pending change removes):
// - a path starting with src/, scripts/, test/, test-browser/, docs/, examples/ or drizzle/ exists
//   (with a placeholder such as `src/modules/<resource>/` or `drizzle/00NN_*.sql`, the folder
//   before the placeholder exists);
// - a file written in backticks relative to a module or to src/ (`companies/fields.ts`,
//   `core/list.ts`) exists under src/, src/modules/ or the repository root;
// - `npm run X` names a script of package.json;
// - a relative Markdown link `[text](file.md#anchor)` reaches an existing file and, with an
//   anchor, a heading of that file (GitHub's anchor spelling).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const ROOTS = ['src', 'scripts', 'test', 'test-browser', 'docs', 'examples', 'drizzle'];
const ROOTED_PATH = new RegExp(`(?<![\\w./@$-])((?:${ROOTS.join('|')})/[\\w./<>*{}…-]*)`, 'g');
const RELATIVE_FILE = /`([a-z0-9-]+\/[\w./-]*\.(?:ts|mjs|sql|toml|json|md))`/g;
const RELATIVE_BASES = ['', 'src', 'src/modules'];
const NPM_RUN = /\bnpm run ([\w:-]+)/g;
const LINK = /\[[^\]\n]*\]\(([^)\s]+)\)/g;

/** README.md and the Markdown files under docs/ (not docs/notes/), as paths relative to `root`. */
export function documentationFiles(root) {
  const files = ['README.md'];
  const walk = (dir) => {
    if (!existsSync(join(root, dir))) return;
    for (const name of readdirSync(join(root, dir)).sort()) {
      const path = `${dir}/${name}`;
      if (path === 'docs/notes') continue;
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else if (name.endsWith('.md')) files.push(path);
    }
  };
  walk('docs');
  return files;
}

/** GitHub's anchors of a Markdown file's headings (outside code fences), duplicates numbered. */
export function headingAnchors(markdown) {
  const anchors = new Set();
  const seen = new Map();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^```/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The part of a path that must exist: all of it, or the folder before its first placeholder. */
function concretePart(path) {
  const cleaned = path.replace(/[.,:;]+$/, '');
  const placeholder = cleaned.search(/[<>*{}…]|\bNN/);
  if (placeholder === -1) return cleaned;
  return cleaned.slice(0, cleaned.lastIndexOf('/', placeholder) + 1);
}

function lineOf(text, index) {
  return text.slice(0, index).split('\n').length;
}

/** Every reference of the documentation that does not resolve, as "file:line: message" strings. */
export function brokenReferences(root) {
  const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts ?? {};
  const problems = [];
  const anchorsOf = new Map();
  const anchors = (file) => {
    if (!anchorsOf.has(file)) anchorsOf.set(file, headingAnchors(readFileSync(join(root, file), 'utf8')));
    return anchorsOf.get(file);
  };
  for (const file of documentationFiles(root)) {
    const text = readFileSync(join(root, file), 'utf8');
    const report = (index, message) => problems.push(`${file}:${lineOf(text, index)}: ${message}`);
    for (const match of text.matchAll(ROOTED_PATH)) {
      const path = concretePart(match[1]);
      if (!existsSync(join(root, path))) report(match.index, `no such file or folder: ${match[1]}`);
    }
    for (const match of text.matchAll(RELATIVE_FILE)) {
      if (ROOTS.some((rootDir) => match[1].startsWith(`${rootDir}/`))) continue;
      if (!RELATIVE_BASES.some((base) => existsSync(join(root, base, match[1])))) {
        report(match.index, `no such file under src/, src/modules/ or the root: ${match[1]}`);
      }
    }
    for (const match of text.matchAll(NPM_RUN)) {
      if (!(match[1] in scripts)) report(match.index, `package.json has no script "${match[1]}"`);
    }
    for (const match of text.matchAll(LINK)) {
      const target = match[1];
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const [pathPart, anchor] = target.split('#');
      const linked = pathPart ? relative(root, join(root, dirname(file), pathPart)) : file;
      if (!existsSync(join(root, linked))) {
        report(match.index, `link to a missing file: ${target}`);
      } else if (anchor && linked.endsWith('.md') && !anchors(linked).has(anchor)) {
        report(match.index, `link to a missing heading: ${target}`);
      }
    }
  }
  return problems;
}
