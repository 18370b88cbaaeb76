/**
 * The rate limiter's counters: one Durable Object per limited subject (`org:12`, `auth-ip:…`,
 * `booking-ip:…`), counting requests in fixed windows aligned to the clock (window n covers
 * [n·w, (n+1)·w) seconds since the epoch). A subject's object holds every counter that belongs
 * to it: an organization's holds the organization's count and one per API key of that
 * organization (a key belongs to exactly one), so an authenticated request is counted by one
 * call to one object. A request is counted by all of its counters or by none: when any of them
 * refuses it, none counts it. The states the object answers are what the RateLimit headers say,
 * so they state exactly the limits enforced.
 *
 * The counts live in memory: a window lasts a minute and a busy object is not evicted, so it
 * is not worth a storage write per request. An object evicted mid-window (idle for some time,
 * or restarted) starts the window at zero again, which can only let a caller through, never
 * refuse one early.
 *
 * An organization's object also remembers the bearer tokens its caller check refused (revoked,
 * of a deleted or deactivated user, of an older session generation): a request of such a token
 * is answered `tokenRefused` and counted by none of the organization's counters, so an ended
 * token cannot use up the budget of the organization's live callers (see `refuseToken`).
 */
import { DurableObject } from 'cloudflare:workers';
import { isTokenRefused, type RefusedTokens, rememberRefusedToken } from './refused-tokens';

export interface WindowState {
  /** Requests allowed per window. */
  limit: number;
  /** Requests left in the current window after this one (0 when this counter refused it). */
  remaining: number;
  /** Whole seconds until the window ends (1 to the window's length). */
  resetSeconds: number;
  /** Whether this counter had room for the request (the request passed only if every counter had). */
  allowed: boolean;
  /** The request's token was refused by its caller check before (see `refuseToken`): no counter counted it (the other fields are placeholders), answer 401. */
  tokenRefused?: true;
}

/** One counter of an object: its name within the object and its limit per window. */
export interface CounterLimit {
  name: string;
  limit: number;
}

/** An object's counts in its current window, by counter name. */
export interface WindowCounts {
  window: number;
  counts: Map<string, number>;
}

/**
 * Counts one request against every counter of `counters` per `windowSeconds`, all or none: when
 * any counter is at its limit the request is refused and no counter counts it.
 */
export function countRequest(
  state: WindowCounts,
  counters: readonly CounterLimit[],
  windowSeconds: number,
  nowMs: number,
): WindowState[] {
  const windowMs = windowSeconds * 1000;
  const current = Math.floor(nowMs / windowMs);
  if (current !== state.window) {
    state.window = current;
    state.counts.clear();
  }
  const resetSeconds = Math.min(windowSeconds, Math.max(1, Math.ceil(((current + 1) * windowMs - nowMs) / 1000)));
  const room = counters.map(({ name, limit }) => (state.counts.get(name) ?? 0) < limit);
  const admitted = room.every(Boolean);
  return counters.map(({ name, limit }, i) => {
    let count = state.counts.get(name) ?? 0;
    if (admitted) state.counts.set(name, ++count);
    return { limit, remaining: Math.max(0, limit - count), resetSeconds, allowed: room[i] };
  });
}

/**
 * Takes back one request that `counters` counted in `window` (its index, as `countRequest` numbers
 * windows): a request whose caller check then refused it. Nothing when the window has moved on,
 * whose counts started over without it.
 */
export function uncountRequest(state: WindowCounts, counters: readonly string[], window: number): void {
  if (window !== state.window) return;
  for (const name of counters) {
    const count = state.counts.get(name) ?? 0;
    if (count > 0) state.counts.set(name, count - 1);
  }
}

/** Tokens one organization's object remembers as refused: far more than an organization has ended sessions hammering at once. */
const REFUSED_TOKENS_PER_OBJECT = 1000;

export class RateLimitCounter extends DurableObject {
  private readonly state: WindowCounts = { window: -1, counts: new Map() };
  private readonly refusedTokens: RefusedTokens = new Map();

  /**
   * Counts one request against `counters` (all or none); one state per counter, in their order.
   * A request of a token this object remembers as refused (`tokenId`) is counted by none of them
   * and answered with `tokenRefused` states.
   */
  count(counters: CounterLimit[], windowSeconds: number, tokenId?: string): WindowState[] {
    const now = Date.now();
    if (tokenId !== undefined && isTokenRefused(this.refusedTokens, tokenId, now)) {
      // Counted by nothing: these states only carry the refusal (the Worker answers 401 without RateLimit headers).
      return counters.map(({ limit }) => ({
        limit,
        remaining: 0,
        resetSeconds: windowSeconds,
        allowed: false,
        tokenRefused: true,
      }));
    }
    return countRequest(this.state, counters, windowSeconds, now);
  }

  /**
   * A token its caller check refused: remembered until `untilMs`, and the request that found out
   * taken back from `counted` (the counters that counted it, in its window), so it costs the
   * organization's budget nothing.
   */
  refuseToken(tokenId: string, untilMs: number, counted?: { counters: string[]; window: number }): void {
    rememberRefusedToken(this.refusedTokens, tokenId, untilMs, REFUSED_TOKENS_PER_OBJECT);
    if (counted) uncountRequest(this.state, counted.counters, counted.window);
  }
}
