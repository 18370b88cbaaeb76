/**
 * Tracking tokens: self-contained and signed, so the pixel and the click redirect need no
 * database read. A token is `<payload>.<signature>`, both base64url without padding: the payload
 * is the JSON `{ v: 1, o: organization id, l: lead id, u?: target URL, c?: campaign, d?: 1 when
 * the target is on the organization's link domains, t: issued at (unix seconds) }`, the signature
 * HMAC-SHA256 over the payload text with the tracking key.
 * The key is TRACKING_SECRET when set, else derived from JWT_SECRET with HKDF-SHA256 (its own
 * salt and info, so a tracking signature is never a valid JWT signature and the reverse).
 * Verification is WebCrypto's constant-time `verify`; anything malformed, unsigned or tampered
 * is simply invalid.
 */
import { base64url } from 'jose';
import { readEdgeConfig } from '../../edge-config';
import type { Bindings } from '../../env';
import { isWebUrl } from '../../core/web-url';

export interface TrackingClaims {
  organizationId: number;
  leadId: number;
  /** Where the click redirect sends the reader (http/https only); absent on open tokens. */
  targetUrl: string | null;
  campaign: string | null;
  /**
   * The target's host was on the organization's link domains when the link was minted: the click
   * redirects at once. Otherwise the edge shows an interstitial naming the destination (the edge
   * has no database, so the decision is made at mint time and signed in: claim `d`).
   */
  direct: boolean;
  issuedAt: number;
}

/** Longest token accepted (a 2 048-character target URL and a campaign fit well within). */
export const MAX_TOKEN_LENGTH = 4_096;

const encoder = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();

/** The click redirect's targets follow the one URL rule; a token minted before it (a CR/LF in the URL) no longer verifies. */
export { isWebUrl };

/** The signed payload's JSON. */
interface ClaimsBody {
  v: 1;
  o: number;
  l: number;
  u?: string;
  c?: string;
  d?: 1;
  t: number;
}

function isPositiveInteger(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) > 0;
}

/**
 * The payload when it has the shape signTrackingToken writes, else null. Checked by hand (the
 * edge Worker verifies tokens, and its bundle carries no schema library): unknown keys are ignored.
 */
function readClaimsBody(value: unknown): ClaimsBody | null {
  if (typeof value !== 'object' || value === null) return null;
  const body = value as Record<string, unknown>;
  if (body.v !== 1 || !isPositiveInteger(body.o) || !isPositiveInteger(body.l)) return null;
  if (!Number.isSafeInteger(body.t) || (body.t as number) < 0) return null;
  if (body.u !== undefined && (typeof body.u !== 'string' || body.u.length > 2048 || !isWebUrl(body.u))) return null;
  if (body.c !== undefined && (typeof body.c !== 'string' || body.c.length > 200)) return null;
  // Claim d (the target is on the link domains) is 1 or absent; any other value is no token of ours.
  if (body.d !== undefined && body.d !== 1) return null;
  return { v: 1, o: body.o, l: body.l, u: body.u, c: body.c, d: body.d, t: body.t as number } as ClaimsBody;
}

function trackingKey(secrets: { trackingSecret?: string; jwtSecret: string }): Promise<CryptoKey> {
  const cacheKey = secrets.trackingSecret ? `t:${secrets.trackingSecret}` : `j:${secrets.jwtSecret}`;
  let key = keys.get(cacheKey);
  if (!key) {
    key = secrets.trackingSecret
      ? crypto.subtle.importKey(
          'raw',
          encoder.encode(secrets.trackingSecret),
          { name: 'HMAC', hash: 'SHA-256' },
          false,
          ['sign', 'verify'],
        )
      : crypto.subtle.importKey('raw', encoder.encode(secrets.jwtSecret), 'HKDF', false, ['deriveKey']).then((base) =>
          crypto.subtle.deriveKey(
            {
              name: 'HKDF',
              hash: 'SHA-256',
              salt: encoder.encode('lead-management/tracking-tokens'),
              info: encoder.encode('hmac-sha256/v1'),
            },
            base,
            { name: 'HMAC', hash: 'SHA-256', length: 256 },
            false,
            ['sign', 'verify'],
          ),
        );
    keys.set(cacheKey, key);
  }
  return key;
}

export interface TrackingSecrets {
  trackingSecret?: string;
  jwtSecret: string;
}

/** The signing secrets from the Worker's bindings (validated: readEdgeConfig throws on a weak secret). */
export function trackingSecrets(env: Pick<Bindings, 'JWT_SECRET' | 'TRACKING_SECRET'>): TrackingSecrets {
  const config = readEdgeConfig(env);
  return { trackingSecret: config.TRACKING_SECRET || undefined, jwtSecret: config.JWT_SECRET };
}

export async function signTrackingToken(secrets: TrackingSecrets, claims: Omit<TrackingClaims, 'issuedAt'>) {
  const body: ClaimsBody = {
    v: 1,
    o: claims.organizationId,
    l: claims.leadId,
    ...(claims.targetUrl ? { u: claims.targetUrl } : {}),
    ...(claims.campaign ? { c: claims.campaign } : {}),
    ...(claims.targetUrl && claims.direct ? { d: 1 as const } : {}),
    t: Math.floor(Date.now() / 1000),
  };
  const payload = base64url.encode(encoder.encode(JSON.stringify(body)));
  const signature = await crypto.subtle.sign('HMAC', await trackingKey(secrets), encoder.encode(payload));
  return `${payload}.${base64url.encode(new Uint8Array(signature))}`;
}

const TOKEN_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/;

/** The token's claims when its signature is valid, else null (never throws). */
export async function verifyTrackingToken(secrets: TrackingSecrets, token: string): Promise<TrackingClaims | null> {
  if (token.length > MAX_TOKEN_LENGTH || !TOKEN_SHAPE.test(token)) return null;
  const [payload, signature] = token.split('.');
  try {
    const valid = await crypto.subtle.verify(
      'HMAC',
      await trackingKey(secrets),
      base64url.decode(signature),
      encoder.encode(payload),
    );
    if (!valid) return null;
    const claims = readClaimsBody(JSON.parse(new TextDecoder().decode(base64url.decode(payload))));
    if (!claims) return null;
    return {
      organizationId: claims.o,
      leadId: claims.l,
      targetUrl: claims.u ?? null,
      campaign: claims.c ?? null,
      direct: claims.d === 1,
      issuedAt: claims.t,
    };
  } catch {
    return null;
  }
}

/** Identifies one token (for counting its opens) without storing the token itself. */
export async function tokenHash(token: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', encoder.encode(token));
  return [...new Uint8Array(digest).slice(0, 16)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * HMAC-SHA256 with the tracking key over `purpose:text`, base64url: for other signed values that
 * must be checked without a database read (the web form's render time). The purpose keeps each
 * kind apart, and from tracking tokens, whose signed text is base64url and holds no ':'.
 */
export async function signWithTrackingKey(secrets: TrackingSecrets, purpose: string, text: string): Promise<string> {
  const signature = await crypto.subtle.sign('HMAC', await trackingKey(secrets), encoder.encode(`${purpose}:${text}`));
  return base64url.encode(new Uint8Array(signature));
}

/** Constant-time check of a signWithTrackingKey signature (false on anything malformed). */
export async function verifyWithTrackingKey(
  secrets: TrackingSecrets,
  purpose: string,
  text: string,
  signature: string,
): Promise<boolean> {
  try {
    return await crypto.subtle.verify(
      'HMAC',
      await trackingKey(secrets),
      base64url.decode(signature),
      encoder.encode(`${purpose}:${text}`),
    );
  } catch {
    return false;
  }
}

const sealKeys = new Map<string, Promise<CryptoKey>>();

/**
 * The AES-256-GCM key of `purpose`: derived with HKDF from TRACKING_SECRET (else JWT_SECRET) under
 * a salt of its own, so it is never the HMAC key above nor another purpose's key.
 */
function sealKey(secrets: TrackingSecrets, purpose: string): Promise<CryptoKey> {
  const base = secrets.trackingSecret ?? secrets.jwtSecret;
  const cacheKey = `${secrets.trackingSecret ? 't' : 'j'}:${purpose}:${base}`;
  let key = sealKeys.get(cacheKey);
  if (!key) {
    key = crypto.subtle.importKey('raw', encoder.encode(base), 'HKDF', false, ['deriveKey']).then((material) =>
      crypto.subtle.deriveKey(
        {
          name: 'HKDF',
          hash: 'SHA-256',
          salt: encoder.encode('lead-management/tracking-seal'),
          info: encoder.encode(purpose),
        },
        material,
        { name: 'AES-GCM', length: 256 },
        false,
        ['encrypt', 'decrypt'],
      ),
    );
    sealKeys.set(cacheKey, key);
  }
  return key;
}

/**
 * `text` encrypted (AES-256-GCM, a random 96-bit IV before the ciphertext, base64url) under the
 * key of `purpose`, bound to `context` (additional data): for a value a public link must carry
 * but not show, such as an address (the unsubscribe link).
 */
export async function sealWithTrackingKey(
  secrets: TrackingSecrets,
  purpose: string,
  text: string,
  context: string,
): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData: encoder.encode(context) },
    await sealKey(secrets, purpose),
    encoder.encode(text),
  );
  const out = new Uint8Array(iv.length + sealed.byteLength);
  out.set(iv);
  out.set(new Uint8Array(sealed), iv.length);
  return base64url.encode(out);
}

/** The text sealWithTrackingKey sealed for the same purpose and context, else null (never throws). */
export async function openWithTrackingKey(
  secrets: TrackingSecrets,
  purpose: string,
  sealed: string,
  context: string,
): Promise<string | null> {
  try {
    const bytes = base64url.decode(sealed);
    const opened = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: bytes.slice(0, 12), additionalData: encoder.encode(context) },
      await sealKey(secrets, purpose),
      bytes.slice(12),
    );
    return new TextDecoder().decode(opened);
  } catch {
    return null;
  }
}
