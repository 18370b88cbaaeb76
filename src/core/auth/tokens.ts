/**
 * Bearer access tokens: HS256 JWTs (jose) carrying user, organization and a `jti` that logout
 * can revoke. The algorithm, issuer and audience are pinned on verify.
 */
import { errors, jwtVerify, SignJWT } from 'jose';
import { Unauthorized } from '../errors';

export const ACCESS_TOKEN_TTL_SECONDS = 2_592_000;
const ISSUER = 'lead-management-api';
const AUDIENCE = 'lead-management-api';
const ALGORITHM = 'HS256';

export interface AccessClaims {
  userId: number;
  orgId: number;
  /** The user's session generation when the token was issued (0 for tokens issued before generations). */
  generation: number;
  jti: string;
  expiresAt: Date;
}

function keyOf(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

export async function issueAccessToken(
  secret: string,
  subject: { userId: number; orgId: number; generation: number },
  now = new Date(),
  ttlSeconds = ACCESS_TOKEN_TTL_SECONDS,
): Promise<{ token: string; jti: string; expiresAt: Date }> {
  const jti = crypto.randomUUID();
  const issuedAt = Math.floor(now.getTime() / 1000);
  const expiresAtSeconds = issuedAt + ttlSeconds;
  const token = await new SignJWT({ org: String(subject.orgId), gen: subject.generation })
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
    .setSubject(String(subject.userId))
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAtSeconds)
    .setJti(jti)
    .sign(keyOf(secret));
  return { token, jti, expiresAt: new Date(expiresAtSeconds * 1000) };
}

export async function verifyAccessToken(secret: string, token: string): Promise<AccessClaims> {
  try {
    const { payload } = await jwtVerify(token, keyOf(secret), {
      algorithms: [ALGORITHM],
      issuer: ISSUER,
      audience: AUDIENCE,
    });
    const userId = Number(payload.sub);
    const orgId = Number(payload.org);
    const generation = Number(payload.gen ?? 0);
    if (
      !Number.isSafeInteger(userId) ||
      !Number.isSafeInteger(orgId) ||
      !Number.isSafeInteger(generation) ||
      !payload.jti ||
      !payload.exp
    ) {
      throw new Unauthorized('Malformed access token', 'invalid_token');
    }
    return { userId, orgId, generation, jti: payload.jti, expiresAt: new Date(payload.exp * 1000) };
  } catch (error) {
    if (error instanceof Unauthorized) throw error;
    if (error instanceof errors.JWTExpired) throw new Unauthorized('Access token expired', 'token_expired');
    throw new Unauthorized('Invalid access token', 'invalid_token');
  }
}
