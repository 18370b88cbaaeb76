// `npm run readme:check`: runs the README's curl walk-through verbatim against a fresh local stack.
//
// Every ```bash / ```sh block of README.md that calls curl ("First calls", "Walk-through with
// curl") runs in order, unchanged, in one bash shell under `set -euo pipefail`, so variables set
// by one block (TOKEN) serve the next. The only addition: `curl` is a shell function that adds
// --fail-with-body, so a call answered 4xx/5xx fails the step (the blocks write `curl -s` for
// readers). The stack is `npm start` with PORT set to a free port (the blocks address
// http://127.0.0.1:${PORT:-8787}) and LM_DATA_DIR to a temporary directory, so it never touches a
// running instance or its data; its working directory is a temporary one (the blocks write files).
// Exits non-zero if a block fails or the stack does not come up; the stack is stopped either way.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot, startLocalStack, stopGroup } from './lib/local-stack.mjs';

const readmePath = join(projectRoot, 'README.md');
const WALKTHROUGH_DEADLINE_MS = 120_000;

/** The fenced shell blocks that call curl, in README order, with their line and section. */
export function curlBlocks(markdown) {
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
      throw new Error(`README.md:${start + 1}: a curl block fenced as "${fence[1] || '(none)'}", not bash or sh`);
    }
    blocks.push({ line: start + 2, heading, code });
  }
  return blocks;
}

async function main() {
  const blocks = curlBlocks(readFileSync(readmePath, 'utf8'));
  if (blocks.length === 0) throw new Error('README.md has no ```bash block calling curl');

  console.error(`readme:check: ${blocks.length} curl blocks of README.md; starting npm start`);
  const stack = await startLocalStack({ label: 'lm-readme' });
  const { port, work } = stack;
  let failed = false;
  try {
    const script = [
      'set -euo pipefail',
      '# The one addition to the README: a call answered 4xx/5xx (or not at all) fails its step.',
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
        `echo ${JSON.stringify(`== README.md:${block.line} (${block.heading})`)} >&2`,
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
