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
 */
import { DurableObject } from 'cloudflare:workers';

export interface WindowState {
  /** Requests allowed per window. */
  limit: number;
  /** Requests left in the current window after this one (0 when this counter refused it). */
  remaining: number;
  /** Whole seconds until the window ends (1 to the window's length). */
  resetSeconds: number;
  /** Whether this counter had room for the request (the request passed only if every counter had). */
  allowed: boolean;
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

export class RateLimitCounter extends DurableObject {
  private readonly state: WindowCounts = { window: -1, counts: new Map() };

  /** Counts one request against `counters` (all or none); one state per counter, in their order. */
  count(counters: CounterLimit[], windowSeconds: number): WindowState[] {
    return countRequest(this.state, counters, windowSeconds, Date.now());
  }
}
