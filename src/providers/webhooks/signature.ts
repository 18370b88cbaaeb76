/**
 * Standard Webhooks signing (https://www.standardwebhooks.com/): the secret is `whsec_` + base64
 * of random bytes; a message is signed as HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>`
 * keyed by the base64-decoded part after `whsec_`, and sent as `webhook-signature: v1,<base64>`.
 * WebCrypto only, so it runs on Workers; test/webhooks-signature.test.ts checks it against the
 * specification's own example and against the `standardwebhooks` verifier.
 */
const SECRET_PREFIX = 'whsec_';
/** 24 random bytes, as Svix's secrets have (the spec asks for 24 to 64). */
const SECRET_BYTES = 24;

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** A new signing secret: `whsec_` + base64 of 24 random bytes. */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

async function signature(secret: string, content: string): Promise<string> {
  const keyBytes = fromBase64(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret);
  const key = await crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const signed = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(content));
  return `v1,${toBase64(new Uint8Array(signed))}`;
}

/**
 * The three Standard Webhooks headers of `body` sent as message `id` at `timestamp` (seconds).
 * Several secrets (a rotation's new one first, then the one it replaced) give one signature each,
 * space-separated, as the specification allows: a verifier accepts the message when any matches.
 */
export async function signWebhook(
  secrets: string | readonly string[],
  id: string,
  timestamp: number,
  body: string,
): Promise<SignedHeaders> {
  const content = `${id}.${timestamp}.${body}`;
  const signatures = await Promise.all(
    (typeof secrets === 'string' ? [secrets] : secrets).map((secret) => signature(secret, content)),
  );
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatures.join(' '),
  };
}
