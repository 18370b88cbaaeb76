/**
 * The edge cache of the public booking reads (profile and availability), on the Cache API of the
 * data centre the Worker runs in (`caches.default`). Standalone: no database, no Hono, so an edge
 * Worker can serve hits itself and call `forgetBookingVersion` after forwarding a write.
 *
 * Two entries per read, both kept BOOKING_CACHE_TTL_SECONDS:
 * - `version/{slug}` → the opaque tag of the rep's `booking_version` as last read from the
 *   database (version-tag.ts);
 * - the response, keyed by the normalised URL plus that version.
 * A hit on both answers with no database statement. Every write to the rep's meetings or booking
 * settings bumps `booking_version` in its transaction and deletes `version/{slug}` in this data
 * centre (before commit and again after), so the next read here goes to the database and keys
 * its answer by the new version. Other data centres keep their entries until the TTL ends: a
 * change is seen everywhere within 30 seconds, and a confirmation always re-checks the slot in
 * the database, so a stale slot can be shown but never double-booked.
 */
export const BOOKING_CACHE_TTL_SECONDS = 30;

/** Response header of a read answered from the database: the opaque tag of the rep's version it was read under. */
export const BOOKING_VERSION_HEADER = 'x-booking-version';

/** The error code of a confirmation whose slot is taken: the slots cached where it was refused were stale, and are forgotten. */
export const SLOT_UNAVAILABLE = 'slot_unavailable';

/** Slugs the cache may hold (the route's own check, 1 to 64 letters, digits and dashes). */
export const CACHEABLE_SLUG = /^[a-z0-9-]{1,64}$/i;

/** Query parameters that change the answer; anything else is dropped from the key. */
const KEY_PARAMETERS = ['date', 'from', 'to', 'duration', 'tz'];
const CACHE_HOST = 'https://booking-cache.internal';

function cache(): Cache | null {
  return typeof caches === 'undefined' ? null : (caches as unknown as { default: Cache }).default;
}

function versionKey(slug: string): string {
  return `${CACHE_HOST}/version/${encodeURIComponent(slug)}`;
}

/** The response key: path, the known parameters in a fixed order, and the version. */
export function bookingCacheKey(url: string, version: string): string {
  const parsed = new URL(url);
  const query = new URLSearchParams();
  for (const name of KEY_PARAMETERS) {
    const value = parsed.searchParams.get(name);
    if (value !== null) query.set(name, value);
  }
  query.set('v', version);
  return `${CACHE_HOST}${parsed.pathname.toLowerCase()}?${query}`;
}

/** The cached body of this read, or null: needs both the slug's version and the response under it. */
export async function readCachedBooking(url: string, slug: string): Promise<string | null> {
  const store = cache();
  if (!store) return null;
  const version = await store.match(versionKey(slug));
  if (!version) return null;
  const hit = await store.match(bookingCacheKey(url, await version.text()));
  return hit ? hit.text() : null;
}

function cacheable(body: string): Response {
  return new Response(body, {
    headers: { 'content-type': 'application/json', 'cache-control': `max-age=${BOOKING_CACHE_TTL_SECONDS}` },
  });
}

/** Stores a fresh answer under the version the same read saw in the database. */
export async function storeBooking(url: string, slug: string, version: string, body: string): Promise<void> {
  const store = cache();
  if (!store) return;
  await Promise.all([
    store.put(versionKey(slug), cacheable(version)),
    store.put(bookingCacheKey(url, version), cacheable(body)),
  ]);
}

/** After a write to the rep's meetings or settings: reads in this data centre go to the database again. */
export async function forgetBookingVersion(slugs: readonly (string | null | undefined)[]): Promise<void> {
  const store = cache();
  if (!store) return;
  await Promise.all(
    slugs.filter((slug): slug is string => Boolean(slug)).map((slug) => store.delete(versionKey(slug))),
  );
}
