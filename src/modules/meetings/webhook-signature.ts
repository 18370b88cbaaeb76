/**
 * Signatures of meeting-tool webhooks, in the Standard Webhooks form (standardwebhooks.com), which
 * the tools' SDKs and the `standardwebhooks` libraries produce:
 *   webhook-id:        the delivery's id (unique per delivery; a retry repeats it)
 *   webhook-timestamp: unix seconds when it was sent
 *   webhook-signature: `v1,<base64 HMAC-SHA256 over "{id}.{timestamp}.{body}">`, space-separated
 *                      when several secrets sign during a rotation
 * The secret is `whsec_` + base64 of 32 random bytes; the key is those bytes. The HMAC covers
 * the timestamp and the body (and the id, so a replay cannot change it); a timestamp more than
 * TOLERANCE_SECONDS away from now is refused, which bounds how long an id must be remembered.
 * Verified with WebCrypto's HMAC verify, which compares in constant time.
 */
import { Unauthorized } from '../../core/errors';

export const TOLERANCE_SECONDS = 5 * 60;
const SECRET_PREFIX = 'whsec_';
const encoder = new TextEncoder();

export function newWebhookSecret(): string {
  return SECRET_PREFIX + btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
}

function keyOf(secret: string, usage: 'sign' | 'verify'): Promise<CryptoKey> {
  const raw = Uint8Array.from(atob(secret.slice(SECRET_PREFIX.length)), (char) => char.charCodeAt(0));
  return crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, [usage]);
}

/** The `webhook-signature` value for a delivery (what a tool sends; used by tests and docs). */
export async function signDelivery(secret: string, id: string, timestamp: number, body: string): Promise<string> {
  const mac = await crypto.subtle.sign(
    'HMAC',
    await keyOf(secret, 'sign'),
    encoder.encode(`${id}.${timestamp}.${body}`),
  );
  return `v1,${btoa(String.fromCharCode(...new Uint8Array(mac)))}`;
}

export interface DeliveryHeaders {
  id: string | undefined;
  timestamp: string | undefined;
  signature: string | undefined;
}

function refuse(message: string, code: string): never {
  throw new Unauthorized(message, code);
}

/** The delivery id once the signature and timestamp hold; 401 naming what failed otherwise. */
export async function verifyDelivery(
  secret: string,
  headers: DeliveryHeaders,
  body: string,
  now = Date.now(),
): Promise<string> {
  const { id, timestamp, signature } = headers;
  if (!id || !timestamp || !signature) {
    refuse('webhook-id, webhook-timestamp and webhook-signature headers are required', 'webhook_signature_missing');
  }
  if (id.length > 200) refuse('webhook-id is too long', 'webhook_signature_invalid');
  const seconds = /^\d{1,12}$/.test(timestamp) ? Number(timestamp) : Number.NaN;
  if (!Number.isFinite(seconds) || Math.abs(now / 1000 - seconds) > TOLERANCE_SECONDS) {
    refuse(`webhook-timestamp is more than ${TOLERANCE_SECONDS} seconds from now`, 'webhook_timestamp_out_of_window');
  }
  const key = await keyOf(secret, 'verify');
  const content = encoder.encode(`${id}.${seconds}.${body}`);
  for (const candidate of signature.split(' ')) {
    const [version, value] = candidate.split(',', 2);
    if (version !== 'v1' || !value) continue;
    let mac: Uint8Array;
    try {
      mac = Uint8Array.from(atob(value), (char) => char.charCodeAt(0));
    } catch {
      continue;
    }
    if (await crypto.subtle.verify('HMAC', key, mac, content)) return id;
  }
  return refuse('webhook-signature does not match the body', 'webhook_signature_invalid');
}
