/**
 * The rate limiter's counter: one Durable Object per limited key (`org:12`, `ip:203.0.113.7`,
 * `auth-ip:…`), counting requests in fixed windows aligned to the clock (window n covers
 * [n·w, (n+1)·w) seconds since the epoch). The object that refuses a request is the one that
 * reports `remaining` and `reset`, so the RateLimit headers state exactly the limit enforced.
 *
 * The count lives in memory: a window lasts a minute and a busy object is not evicted, so it
 * is not worth a storage write per request. An object evicted mid-window (idle for some time,
 * or restarted) starts the window at zero again, which can only let a caller through, never
 * refuse one early.
 */
import { DurableObject } from 'cloudflare:workers';

export interface WindowState {
  /** Requests allowed per window. */
  limit: number;
  /** Requests left in the current window after this one (0 when this one was refused). */
  remaining: number;
  /** Whole seconds until the window ends (1 to the window's length). */
  resetSeconds: number;
  allowed: boolean;
}

/** Counts one request against `limit` per `windowSeconds`; a refused request does not count. */
export function countRequest(
  state: { window: number; count: number },
  limit: number,
  windowSeconds: number,
  nowMs: number,
): WindowState {
  const windowMs = windowSeconds * 1000;
  const current = Math.floor(nowMs / windowMs);
  if (current !== state.window) {
    state.window = current;
    state.count = 0;
  }
  const allowed = state.count < limit;
  if (allowed) state.count++;
  const resetSeconds = Math.min(windowSeconds, Math.max(1, Math.ceil(((current + 1) * windowMs - nowMs) / 1000)));
  return { limit, remaining: limit - state.count, resetSeconds, allowed };
}

export class RateLimitCounter extends DurableObject {
  private readonly state = { window: -1, count: 0 };

  hit(limit: number, windowSeconds: number): WindowState {
    return countRequest(this.state, limit, windowSeconds, Date.now());
  }
}
