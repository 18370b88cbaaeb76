// The two Workers' wrangler configurations, copied for a local multi-Worker `wrangler dev` into
// a directory of the local data, with their relative paths made absolute and the local secrets
// in a `.dev.vars` beside them: each Worker of a multi-Worker `wrangler dev` reads the `.dev.vars`
// next to its own configuration, while `--var` and `--env-file` reach only the first.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { projectRoot } from './local-stack.mjs';

/** Rewrites `key = "relative"` lines (main, assets directory) to absolute paths under the project. */
function absolutePaths(toml) {
  return toml.replace(
    /^(main|directory)\s*=\s*"([^"]+)"/gm,
    (_line, key, path) => `${key} = "${resolve(projectRoot, path)}"`,
  );
}

/** Writes the configurations and `.dev.vars` into `directory`; returns their paths. */
export function writeLocalWorkerConfigs(directory, vars) {
  mkdirSync(directory, { recursive: true });
  const edge = join(directory, 'wrangler.edge.toml');
  const api = join(directory, 'wrangler.toml');
  writeFileSync(edge, absolutePaths(readFileSync(join(projectRoot, 'wrangler.edge.toml'), 'utf8')));
  writeFileSync(api, absolutePaths(readFileSync(join(projectRoot, 'wrangler.toml'), 'utf8')));
  const lines = Object.entries(vars).map(([name, value]) => `${name}=${JSON.stringify(String(value))}`);
  writeFileSync(join(directory, '.dev.vars'), `${lines.join('\n')}\n`, { mode: 0o600 });
  return { edge, api };
}
