/**
 * Signed unsubscribe links: `<payload>.<signature>`, the payload base64url of `{ v: 1, o:
 * organization id, a: address }`, the signature HMAC-SHA256 with the tracking key under its own
 * purpose (tracking/token.ts signWithTrackingKey), so no other signed value is a valid one. The
 * public route verifies it without a database read.
 */
import { base64url } from 'jose';
import { z } from 'zod';
import { signWithTrackingKey, verifyWithTrackingKey, type TrackingSecrets } from '../tracking';

const PURPOSE = 'mail-unsubscribe';
const MAX_TOKEN_LENGTH = 1_024;
const claims = z.object({ v: z.literal(1), o: z.number().int().positive(), a: z.string().min(3).max(254) });

export interface UnsubscribeClaims {
  orgId: number;
  address: string;
}

export async function signUnsubscribeToken(secrets: TrackingSecrets, value: UnsubscribeClaims): Promise<string> {
  const payload = base64url.encode(JSON.stringify({ v: 1, o: value.orgId, a: value.address.toLowerCase() }));
  return `${payload}.${await signWithTrackingKey(secrets, PURPOSE, payload)}`;
}

/** The claims of a valid token, else null (never throws). */
export async function verifyUnsubscribeToken(secrets: TrackingSecrets, token: string) {
  if (token.length > MAX_TOKEN_LENGTH || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const [payload, signature] = token.split('.');
  if (!(await verifyWithTrackingKey(secrets, PURPOSE, payload, signature))) return null;
  try {
    const parsed = claims.safeParse(JSON.parse(new TextDecoder().decode(base64url.decode(payload))));
    return parsed.success ? ({ orgId: parsed.data.o, address: parsed.data.a } satisfies UnsubscribeClaims) : null;
  } catch {
    return null;
  }
}

export function unsubscribeUrl(origin: string, token: string): string {
  return `${origin}/api/v1/mail/unsubscribe/${token}`;
}
