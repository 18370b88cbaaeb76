// `node scripts/scalar-sri.mjs 1.72.1`: the Subresource Integrity hash of @scalar/api-reference's
// standalone bundle at that version, taken from the npm package (which the CDN serves byte for
// byte), for SCALAR_VERSION / SCALAR_SRI in src/modules/docs/routes.ts.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const version = process.argv[2];
if (!version) {
  console.error('usage: node scripts/scalar-sri.mjs <version>');
  process.exit(1);
}
const dir = mkdtempSync(join(tmpdir(), 'scalar-sri-'));
try {
  execFileSync('npm', ['pack', `@scalar/api-reference@${version}`, '--silent'], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const tarball = readdirSync(dir).find((name) => name.endsWith('.tgz'));
  execFileSync('tar', ['xzf', tarball, 'package/dist/browser/standalone.js'], { cwd: dir });
  const bundle = readFileSync(join(dir, 'package/dist/browser/standalone.js'));
  console.log(`sha384-${createHash('sha384').update(bundle).digest('base64')}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
