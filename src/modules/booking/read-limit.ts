/**
 * The per-IP limit on public booking reads (profile and availability), on Cloudflare's Rate
 * Limiting binding `BOOKING_READ_LIMITER` (wrangler.toml and wrangler.edge.toml: 60 reads a
 * minute per client IP). Dependency-free, so the edge Worker can count the reads it answers from
 * its cache; the API Worker counts the reads that reach it. Each read is counted once, where it
 * is answered. The binding counts per Cloudflare location, so the limit holds per data centre.
 * Without the binding (a deployment that does not declare it) reads are not limited.
 */

/** What wrangler's `[[ratelimits]]` binding offers (workers-types' RateLimit). */
export interface BookingReadLimiter {
  limit(options: { key: string }): Promise<{ success: boolean }>;
}

/** The binding's period: a refused read may retry after this many seconds. */
export const BOOKING_READ_PERIOD_SECONDS = 60;
/** Documented here, configured in the wrangler files (`simple.limit`). */
export const BOOKING_READS_PER_MINUTE = 60;

/** True when this client IP may read now (counting the read); true as well without the binding. */
export async function bookingReadAllowed(limiter: BookingReadLimiter | undefined, ip: string): Promise<boolean> {
  if (!limiter) return true;
  try {
    return (await limiter.limit({ key: `booking-read:${ip}` })).success;
  } catch {
    // A limiter that cannot be reached lets the read through, as the other limits do.
    return true;
  }
}
