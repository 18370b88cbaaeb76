/**
 * `x-booking-version` as an opaque tag: HMAC-SHA256 of (slug, booking_version) under a key derived
 * from JWT_SECRET, 16 bytes base64url. The edge cache keys a rep's answers by it exactly as it did
 * by the number (it changes whenever the version does), but a stranger can no longer read the
 * count of the rep's meeting writes from it, or compare it across reps.
 */
const encoder = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();

function tagKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey(
      'raw',
      encoder.encode(`booking-version-tag:${secret}`),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    );
    keys.set(secret, key);
  }
  return key;
}

export async function bookingVersionTag(secret: string, slug: string, version: number): Promise<string> {
  const mac = new Uint8Array(
    await crypto.subtle.sign('HMAC', await tagKey(secret), encoder.encode(`${slug.toLowerCase()}:${version}`)),
  );
  return btoa(String.fromCharCode(...mac.slice(0, 16)))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');
}

/** What the edge accepts as a tag from the API Worker's answer before keying its cache by it. */
export const VERSION_TAG = /^[A-Za-z0-9_-]{1,64}$/;
