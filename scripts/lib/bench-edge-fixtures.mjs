// What the edge and rtt sections request, set up once per organization through the API as a
// customer would: a lead, its signed open-pixel and click links (POST /api/tracking/tokens), an
// API key for ingestion (POST /api/api-keys/add) and the rep's booking slug (GET /api/user/my).
// Routes built on other branches (ingestion, public booking) may be missing here: `probe`
// tells, and a route that answers 404 is reported `unavailable` instead of failing the bench.
import { expectOk } from './bench-measure.mjs';

/** Where the click link leads; the bench never follows it. */
export const CLICK_TARGET = 'https://example.com/bench-target';
/** The unknown path of the no-database baseline: the API Worker's 404 envelope. */
export const NOT_FOUND_PATH = '/api/no-such-route';

const ZONES = Intl.supportedValuesOf('timeZone');

/**
 * The n-th visitor's address: public availability reads are limited per client IP (60 a minute),
 * and a bench of many reads stands for many visitors, as a booking page's traffic does.
 */
export function visitorIp(n) {
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

/** YYYY-MM-DD of `days` after today (UTC). */
function dayAfterToday(days) {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

export async function prepareEdgeFixtures(stack, org) {
  const { api } = stack;
  const json = async (what, request) => JSON.parse(await expectOk(what, request)).data;
  const lead = await json('adding the tracked lead', () =>
    api('POST', '/api/lead/add', {
      token: org.token,
      json: { first_name: 'Tracked', last_name: 'Lead', email: `tracked-${org.orgId}@example.com` },
    }),
  );
  // The click target is on the organization's link domains, verified (the local DNS provider of
  // `npm start` finds the record at reserved names such as example.com), so its link redirects
  // (302) rather than showing the interstitial. The bench stack runs the local providers for it.
  await expectOk('listing the link domain', () =>
    api('POST', '/api/organization/link-domains', {
      token: org.token,
      json: { link_domains: [new URL(CLICK_TARGET).hostname] },
    }),
  );
  await expectOk('verifying the link domain', () =>
    api('POST', '/api/organization/link-domains/verify', { token: org.token }),
  );
  const tokens = await json('minting tracking tokens', () =>
    api('POST', '/api/tracking/tokens', {
      token: org.token,
      json: { lead_id: lead.id, target_url: CLICK_TARGET, campaign: 'bench' },
    }),
  );
  const key = await json('creating an API key', () =>
    api('POST', '/api/api-keys/add', { token: org.token, json: { name: 'Bench ingestion' } }),
  );
  const me = await json('reading GET /api/user/my', () => api('GET', '/api/user/my', { token: org.token }));
  const slug = typeof me.booking_slug === 'string' && me.booking_slug ? me.booking_slug : null;
  const run = `${org.orgId}-${Date.now()}`;
  const bookingPath = slug ? `/api/v1/booking/${encodeURIComponent(slug)}` : null;
  return {
    org,
    openPath: `/api/v1/track/open/${tokens.open_token}`,
    clickPath: `/api/v1/track/click/${tokens.click_token}`,
    apiKey: key.key,
    slug,
    /** The n-th ingestion body: a new email each time, so every request creates a lead (201). */
    ingestBody: (n) =>
      JSON.stringify({
        email: `ingest-${run}-${n}@bench.example`,
        first_name: 'Ingested',
        last_name: `Lead ${n}`,
        company: 'Bench Ingest Company',
      }),
    /**
     * The n-th cold availability read: a query string never asked before (another day, and after
     * 360 days another zone; visitors may only ask the rep's own meeting length), so no cache can answer it.
     */
    coldAvailabilityPath: (n) =>
      bookingPath &&
      `${bookingPath}/availability?date=${dayAfterToday(1 + (n % 360))}&tz=${encodeURIComponent(ZONES[Math.floor(n / 360) % ZONES.length])}`,
    /** One URL, asked again and again: after the first answer the cache holds it. */
    cachedAvailabilityPath: bookingPath && `${bookingPath}/availability?date=${dayAfterToday(7)}`,
    /** Free slots of the coming 30 days, for confirmations (shape: data.slots, or data as an array). */
    slotsPath: bookingPath && `${bookingPath}/availability?from=${dayAfterToday(1)}&to=${dayAfterToday(30)}`,
    confirmPath: bookingPath && `${bookingPath}/confirm`,
  };
}

/**
 * One request to see whether a route exists on this branch. Returns `{ available: true, body }`
 * on an expected status, `{ available: false, reason }` on 404 (or when `path` is null: what
 * the route needs is missing), and throws on anything else, which would make its figures wrong.
 */
export async function probe(what, path, request, statuses, missing = 'answers 404: the route is not on this branch') {
  if (!path) return { available: false, reason: missing };
  const response = await request();
  const text = await response.text();
  if (statuses.includes(response.status)) return { available: true, body: text };
  if (response.status === 404)
    return { available: false, reason: `${what} answers 404: the route is not on this branch` };
  throw new Error(`${what}: expected ${statuses.join(' or ')}, got ${response.status} ${text.slice(0, 300)}`);
}

/** The free slots in an availability answer (`data.slots`, or `data` itself if it is the list). */
export function slotsOf(body) {
  const data = JSON.parse(body).data;
  const slots = Array.isArray(data) ? data : data?.slots;
  return Array.isArray(slots) ? slots.filter((slot) => slot?.start && slot?.end) : [];
}
