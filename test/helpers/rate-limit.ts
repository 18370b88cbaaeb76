/**
 * The rate limiter counts in fixed windows aligned to the clock (core/rate-limit.ts): a test that
 * sends a limit's worth of requests and one more must send them all in one window, or the count
 * starts over halfway and the extra request passes.
 */
import { RATE_LIMIT_WINDOW_SECONDS } from '../../src/core/rate-limit';

/** Waits for the next window when fewer than `seconds` are left of this one, so the requests that follow share one. */
export async function awayFromWindowEnd(seconds = 8): Promise<void> {
  const left = RATE_LIMIT_WINDOW_SECONDS - ((Date.now() / 1000) % RATE_LIMIT_WINDOW_SECONDS);
  if (left < seconds) await new Promise((resolve) => setTimeout(resolve, left * 1000 + 200));
}
