import { base64url } from 'jose';
import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../src/core/auth/passwords';

describe('password hashes (crypto.subtle.timingSafeEqual, jose base64url)', () => {
  it('verifies the right password and refuses another', async () => {
    const stored = await hashPassword('correct horse battery staple');
    expect(stored).toMatch(/^pbkdf2-sha256\$100000\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(await verifyPassword('correct horse battery staple', stored)).toBe(true);
    expect(await verifyPassword('correct horse battery stapler', stored)).toBe(false);
  });

  it('refuses, without throwing, a stored hash of another length or not in base64url', async () => {
    const [scheme, iterations, salt, hash] = (await hashPassword('secret-password')).split('$');
    const shorter = base64url.encode(base64url.decode(hash).subarray(0, 16));
    expect(await verifyPassword('secret-password', [scheme, iterations, salt, shorter].join('$'))).toBe(false);
    expect(await verifyPassword('secret-password', [scheme, iterations, salt, `${hash.slice(1)}*`].join('$'))).toBe(
      false,
    );
    expect(await verifyPassword('secret-password', [scheme, iterations, '!!!', hash].join('$'))).toBe(false);
  });
});
