/**
 * Signed unsubscribe links: `<payload>.<signature>`, the payload base64url of `{ v: 2, o:
 * organization id, x: the address sealed }`, the signature HMAC-SHA256 with the tracking key under
 * its own purpose (tracking/token.ts signWithTrackingKey), so no other signed value is a valid one.
 * The address is encrypted (sealWithTrackingKey, bound to the organization), not just encoded: a
 * link is copied into proxy logs and link scanners, which should not learn whom it unsubscribes.
 * Links sent before 2026-12-02 carry it readable (`v: 1, a: address`) and still work. The public
 * route verifies either without a database read.
 */
import { base64url } from 'jose';
import { z } from 'zod';
import {
  openWithTrackingKey,
  sealWithTrackingKey,
  signWithTrackingKey,
  verifyWithTrackingKey,
  type TrackingSecrets,
} from '../tracking';

const PURPOSE = 'mail-unsubscribe';
const SEAL_PURPOSE = 'mail-unsubscribe-address/v2';
const MAX_TOKEN_LENGTH = 1_024;
const address = z.string().min(3).max(254);
const claims = z.union([
  z.object({ v: z.literal(1), o: z.number().int().positive(), a: address }),
  z.object({ v: z.literal(2), o: z.number().int().positive(), x: z.string().max(600) }),
]);

export interface UnsubscribeClaims {
  orgId: number;
  address: string;
}

export async function signUnsubscribeToken(secrets: TrackingSecrets, value: UnsubscribeClaims): Promise<string> {
  const sealed = await sealWithTrackingKey(secrets, SEAL_PURPOSE, value.address.toLowerCase(), String(value.orgId));
  const payload = base64url.encode(JSON.stringify({ v: 2, o: value.orgId, x: sealed }));
  return `${payload}.${await signWithTrackingKey(secrets, PURPOSE, payload)}`;
}

/** The claims of a valid token, else null (never throws). */
export async function verifyUnsubscribeToken(secrets: TrackingSecrets, token: string) {
  if (token.length > MAX_TOKEN_LENGTH || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const [payload, signature] = token.split('.');
  if (!(await verifyWithTrackingKey(secrets, PURPOSE, payload, signature))) return null;
  try {
    const parsed = claims.safeParse(JSON.parse(new TextDecoder().decode(base64url.decode(payload))));
    if (!parsed.success) return null;
    const body = parsed.data;
    const opened = body.v === 1 ? body.a : await openWithTrackingKey(secrets, SEAL_PURPOSE, body.x, String(body.o));
    if (opened === null || !address.safeParse(opened).success) return null;
    return { orgId: body.o, address: opened } satisfies UnsubscribeClaims;
  } catch {
    return null;
  }
}

export function unsubscribeUrl(origin: string, token: string): string {
  return `${origin}/api/v1/mail/unsubscribe/${token}`;
}
