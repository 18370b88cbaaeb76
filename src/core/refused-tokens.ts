/**
 * Bearer tokens whose caller check refused them (revoked, of a deleted or deactivated user, of an
 * older session generation), remembered by id (`jti`) in a bounded map: by each isolate
 * (core/rate-limit.ts) and by the organization's counter object (core/rate-limit-counter.ts), so
 * that an ended token is answered 401 without counting against its organization's budget.
 */

/** Refused tokens, by id (`jti`), with the end of their remembering (epoch ms). */
export type RefusedTokens = Map<string, number>;

/** Whether `tokenId` is remembered as refused at `nowMs` (forgets it once its time is over). */
export function isTokenRefused(tokens: RefusedTokens, tokenId: string, nowMs: number): boolean {
  const until = tokens.get(tokenId);
  if (until === undefined) return false;
  if (until > nowMs) return true;
  tokens.delete(tokenId);
  return false;
}

/** Remembers `tokenId` as refused until `untilMs`; at most `capacity` tokens, the oldest forgotten first. */
export function rememberRefusedToken(tokens: RefusedTokens, tokenId: string, untilMs: number, capacity: number): void {
  tokens.delete(tokenId);
  while (tokens.size >= capacity) {
    const oldest = tokens.keys().next().value as string;
    tokens.delete(oldest);
  }
  tokens.set(tokenId, untilMs);
}
