// The Worker's static assets (wrangler.toml `[assets]`, directory .assets/, git-ignored): Scalar's
// standalone bundle, copied from the pinned devDependency @scalar/api-reference, at the versioned
// path the reference page loads (/api/docs/scalar-<version>.js). Written before anything that
// reads wrangler.toml: `npm start` (scripts/dev.mjs), the tests (vitest.config.ts), the bench, and
// `npm run deploy` (predeploy). `node scripts/docs-assets.mjs` writes them and prints the bundle's
// path and SRI hash (SCALAR_VERSION / SCALAR_SRI in src/modules/docs/routes.ts, for an upgrade).
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const assetsDirectory = join(projectRoot, '.assets');

export function writeDocsAssets() {
  const packageDirectory = join(projectRoot, 'node_modules/@scalar/api-reference');
  const { version } = JSON.parse(readFileSync(join(packageDirectory, 'package.json'), 'utf8'));
  const source = join(packageDirectory, 'dist/browser/standalone.js');
  const docsDirectory = join(assetsDirectory, 'api/docs');
  mkdirSync(docsDirectory, { recursive: true });
  const name = `scalar-${version}.js`;
  // Only the installed version: a stale bundle must not stay reachable after an upgrade.
  for (const entry of readdirSync(docsDirectory)) {
    if (entry !== name) rmSync(join(docsDirectory, entry), { recursive: true, force: true });
  }
  copyFileSync(source, join(docsDirectory, name));
  const bytes = readFileSync(source);
  return {
    version,
    path: `/api/docs/${name}`,
    bytes: bytes.length,
    sri: `sha384-${createHash('sha384').update(bytes).digest('base64')}`,
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const written = writeDocsAssets();
  console.log(`${written.path} (${written.bytes} bytes) ${written.sri}`);
}
