// `npm run readme:check`: checks the documentation's references, then runs its curl walk-throughs
// verbatim against a fresh local stack.
//
// 1. References (scripts/lib/doc-references.mjs): every src/, scripts/, test/, docs/… path, npm
//    script and relative link named in README.md and docs/ exists. No stack: with --paths-only the
//    script stops there (a second; .ci/run calls it early).
// 2. Walk-throughs: every ```bash / ```sh block that calls curl, in WALKTHROUGH_FILES order (README.md's
//    "First calls" first) and in document order within a file, runs unchanged in one bash shell
//    under `set -euo pipefail`, so variables set by one block (B, TOKEN) serve the next. The only
//    addition: `curl` is a shell function that adds --fail-with-body, so a call answered 4xx/5xx
//    fails the step (the blocks write `curl -s` for readers). The stack is `npm start` with PORT set
//    to a free port (the blocks address http://127.0.0.1:${PORT:-8787}) and LM_DATA_DIR to a
//    temporary directory, so it never touches a running instance or its data; its working
//    directory is a temporary one (the blocks write files). A curl block in a documentation file
//    that is not in WALKTHROUGH_FILES fails the check, so no walk-through goes unrun.
// Exits non-zero if a reference is broken, a block fails or the stack does not come up; the stack
// is stopped either way.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brokenReferences, documentationFiles } from './lib/doc-references.mjs';
import { projectRoot, startLocalStack, stopGroup } from './lib/local-stack.mjs';

/** The files whose curl blocks run, in this order (docs/local-stack.md documents it). */
export const WALKTHROUGH_FILES = [
  'README.md',
  'docs/domains/leads.md',
  'docs/domains/capture.md',
  'docs/domains/booking.md',
];
const WALKTHROUGH_DEADLINE_MS = 180_000;

/** The fenced shell blocks of one Markdown file that call curl, in order, with their line and section. */
export function curlBlocks(markdown, file = 'README.md') {
  const blocks = [];
  const lines = markdown.split('\n');
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\S*)\s*$/.exec(lines[i]);
    if (!fence) {
      if (/^#{1,6} /.test(lines[i])) heading = lines[i].replace(/^#+ /, '');
      continue;
    }
    const start = i;
    const body = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) body.push(lines[i]);
    const code = body.join('\n');
    if (!/(^|[\s$(|;&])curl\s/m.test(code)) continue;
    if (!['bash', 'sh', 'shell'].includes(fence[1])) {
      throw new Error(`${file}:${start + 1}: a curl block fenced as "${fence[1] || '(none)'}", not bash or sh`);
    }
    blocks.push({ file, line: start + 2, heading, code });
  }
  return blocks;
}

/** The walk-through blocks in run order; throws if a documentation file outside the list has one. */
export function walkthroughBlocks(root) {
  for (const file of documentationFiles(root)) {
    if (WALKTHROUGH_FILES.includes(file)) continue;
    const stray = curlBlocks(readFileSync(join(root, file), 'utf8'), file);
    if (stray.length > 0) {
      throw new Error(
        `${file}:${stray[0].line - 1}: a curl block outside WALKTHROUGH_FILES (add the file to the list)`,
      );
    }
  }
  return WALKTHROUGH_FILES.flatMap((file) => curlBlocks(readFileSync(join(root, file), 'utf8'), file));
}

/** The static checks: broken references, and curl blocks outside the list; reports them, answers whether all hold. */
function checkReferences() {
  const problems = brokenReferences(projectRoot);
  try {
    if (!walkthroughBlocks(projectRoot).some((block) => block.file === 'README.md')) {
      problems.push('README.md: no ```bash block calling curl');
    }
  } catch (error) {
    problems.push(error.message);
  }
  for (const problem of problems) console.error(`readme:check: ${problem}`);
  if (problems.length > 0) {
    console.error(`readme:check: ${problems.length} problem(s) in README.md and docs/`);
    return false;
  }
  console.error('readme:check: every path, npm script and link of README.md and docs/ exists');
  return true;
}

async function main() {
  if (!checkReferences()) {
    process.exitCode = 1;
    return;
  }
  if (process.argv.includes('--paths-only')) return;
  const blocks = walkthroughBlocks(projectRoot);
  console.error(`readme:check: ${blocks.length} curl blocks of ${WALKTHROUGH_FILES.join(', ')}; starting npm start`);
  const stack = await startLocalStack({ label: 'lm-readme' });
  const { port, work } = stack;
  let failed = false;
  try {
    const script = [
      'set -euo pipefail',
      '# The one addition to the blocks: a call answered 4xx/5xx (or not at all) fails its step.',
      'shopt -s inherit_errexit',
      'curl() {',
      '  local status=0',
      '  command curl --fail-with-body --show-error "$@" || status=$?',
      '  echo >&2',
      '  if [ "$status" -ne 0 ]; then echo "readme:check: this call failed: curl $*" >&2; fi',
      '  return "$status"',
      '}',
      `trap '[[ $BASH_COMMAND == return* ]] || echo "readme:check: this step failed: $BASH_COMMAND" >&2' ERR`,
      ...blocks.flatMap((block) => [
        '',
        `echo ${JSON.stringify(`== ${block.file}:${block.line} (${block.heading})`)} >&2`,
        block.code,
      ]),
      '',
    ].join('\n');
    writeFileSync(join(work, 'walkthrough.sh'), script);
    const bash = spawn('bash', [join(work, 'walkthrough.sh')], {
      cwd: work,
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'inherit', 'inherit'],
      detached: true,
    });
    const code = await new Promise((done) => {
      const timer = setTimeout(() => {
        console.error(`readme:check: the walk-through took more than ${WALKTHROUGH_DEADLINE_MS / 1000} s`);
        stopGroup(bash);
      }, WALKTHROUGH_DEADLINE_MS);
      bash.once('exit', (exitCode, signal) => {
        clearTimeout(timer);
        done(exitCode ?? signal);
      });
    });
    if (code !== 0) throw new Error(`the walk-through failed (bash exited ${code})`);
    console.error(`readme:check: all ${blocks.length} blocks ran`);
  } catch (error) {
    failed = true;
    console.error(`readme:check: ${error.message}`);
    console.error(`--- npm start output:\n${stack.log()}`);
  } finally {
    await stack.stop(failed);
    if (failed) console.error(`readme:check: kept ${work} for inspection`);
  }
  process.exitCode = failed ? 1 : 0;
}

await main();
