/**
 * Short-lived links to call recordings: `/api/v1/call/recording/<payload>.<signature>`, the
 * payload base64url of `{ v: 1, o: organization, c: call, f: stored file, e: expiry (unix s) }`,
 * signed HMAC-SHA256 with the tracking key under its own purpose (as the unsubscribe links are),
 * so a link works without credentials (an <audio> element, a download) until it expires, and
 * names exactly one file of one organization.
 */
import { base64url } from 'jose';
import { z } from 'zod';
import { signWithTrackingKey, verifyWithTrackingKey, type TrackingSecrets } from '../tracking';

const PURPOSE = 'call-recording';
export const RECORDING_LINK_SECONDS = 15 * 60;
const claims = z.object({
  v: z.literal(1),
  o: z.number().int().positive(),
  c: z.number().int().positive(),
  f: z.number().int().positive(),
  e: z.number().int().positive(),
});

export interface RecordingClaims {
  orgId: number;
  callId: number;
  fileId: number;
}

export async function recordingLink(secrets: TrackingSecrets, value: RecordingClaims, now = Date.now()) {
  const expires = Math.floor(now / 1000) + RECORDING_LINK_SECONDS;
  const payload = base64url.encode(
    JSON.stringify({ v: 1, o: value.orgId, c: value.callId, f: value.fileId, e: expires }),
  );
  const token = `${payload}.${await signWithTrackingKey(secrets, PURPOSE, payload)}`;
  return { url: `/api/v1/call/recording/${token}`, expiresAt: new Date(expires * 1000) };
}

/** The claims of a valid, unexpired token; null otherwise (never throws). */
export async function verifyRecordingToken(secrets: TrackingSecrets, token: string, now = Date.now()) {
  if (token.length > 512 || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const [payload, signature] = token.split('.');
  if (!(await verifyWithTrackingKey(secrets, PURPOSE, payload, signature))) return null;
  try {
    const parsed = claims.safeParse(JSON.parse(new TextDecoder().decode(base64url.decode(payload))));
    if (!parsed.success || parsed.data.e * 1000 <= now) return null;
    return { orgId: parsed.data.o, callId: parsed.data.c, fileId: parsed.data.f } satisfies RecordingClaims;
  } catch {
    return null;
  }
}
