/**
 * API key material: `lm_live_` followed by 32 random bytes in base64url. Only the SHA-256 hash is
 * stored; the first characters are kept as a display prefix so a user can tell keys apart.
 */
import { base64url } from 'jose';

export const API_KEY_PREFIX = 'lm_live_';

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

export async function generateApiKey(): Promise<{ key: string; prefix: string; hash: string }> {
  const key = API_KEY_PREFIX + base64url.encode(crypto.getRandomValues(new Uint8Array(32)));
  return { key, prefix: key.slice(0, API_KEY_PREFIX.length + 6), hash: await sha256Hex(key) };
}
