// The JWT secret of a local checkout: random, made once and kept with the local data (.data/,
// git-ignored), so no two checkouts share one and none is published in the repository.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function localJwtSecret(dir = '.data') {
  return localSecret(dir, 'jwt-secret');
}

// The key that seals stored credentials (CREDENTIALS_KEY) of a local checkout, made and kept the
// same way: losing it only means reconnecting the local mail accounts.
export function localCredentialsKey(dir = '.data') {
  return localSecret(dir, 'credentials-key');
}

// The service operator's key (OPERATOR_API_KEY: granting credits, src/core/auth/operator.ts) of a
// local checkout, made and kept the same way in .data/operator-key: local only, never a deployment's.
export function localOperatorKey(dir = '.data') {
  return localSecret(dir, 'operator-key');
}

function localSecret(dir, name) {
  const file = join(dir, name);
  if (existsSync(file)) {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept.length >= 32) return kept;
  }
  mkdirSync(dir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
