/**
 * The edge Worker's app (entry src/edge.ts). It runs next to the caller (default placement) and
 * answers what needs no database there: the tracking pixel and the click redirect (signed tokens,
 * the hit queued in waitUntil). GETs that the API Worker marks shareable (`Cache-Control` with
 * `s-maxage`) are answered from the data centre's cache while fresh, and so are the public booking
 * reads, through the booking module's own versioned cache.
 * Everything else goes unchanged through the service binding `API` to the API Worker, which runs
 * next to the database (`[placement]` in wrangler.toml), so a request's many statements cross
 * the short distance and only one hop crosses the long one.
 *
 * Its imports reach no database driver, ORM, zod or OpenAPI code (plain Hono routes, hand-checked
 * inputs): a cold isolate parses a small script. `npm run edge:check` (scripts/edge-size.mjs, run
 * in CI) builds it and fails when it grows past its budget or pulls one of those packages in.
 */
import { type Context, Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import type { AppEnv } from './core/context';
import { RateLimited } from './core/errors';
import { jsonBodyEtag, jsonEtag } from './core/etag';
import { handleError } from './core/http';
import { requestLogger } from './core/log';
import type { Bindings } from './env';
import {
  BOOKING_VERSION_HEADER,
  CACHEABLE_SLUG,
  forgetBookingVersion,
  readCachedBooking,
  storeBooking,
} from './modules/booking/edge-cache';
import { BOOKING_READ_PERIOD_SECONDS, bookingReadAllowed } from './modules/booking/read-limit';
import { VERSION_TAG } from './modules/booking/version-tag';
import { mountTrackingHits } from './modules/tracking/hit-handlers';

export type EdgeBindings = Pick<Bindings, 'EVENTS' | 'JWT_SECRET' | 'TRACKING_SECRET' | 'BOOKING_READ_LIMITER'> & {
  /** Service binding to the API Worker (lead-management-api). */
  API: Fetcher;
};

const limiterOf = (c: Context<AppEnv>) => (c.env as unknown as EdgeBindings).BOOKING_READ_LIMITER;

/** Says which path answered: `edge` (this Worker), `cache` (the edge cache), `api` (forwarded). */
export const SERVED_BY_HEADER = 'x-served-by';

const SHAREABLE = /(?:^|[\s,])s-maxage=\d+/i;

function servedBy(response: Response, by: 'edge' | 'cache' | 'api'): Response {
  // Responses from fetch and the cache have immutable headers: copy them (the body streams through).
  const copy = new Response(response.body, response);
  copy.headers.set(SERVED_BY_HEADER, by);
  return copy;
}

async function forwardToApi(c: Context<AppEnv>): Promise<Response> {
  const api = (c.env as unknown as EdgeBindings).API;
  const request = c.req.raw;
  // Only anonymous GETs are shared: a request with credentials always reaches the API Worker.
  const shareable =
    request.method === 'GET' && !request.headers.has('authorization') && !request.headers.has('x-api-key');
  if (!shareable) return servedBy(await api.fetch(request), 'api');
  const cache = caches.default;
  const cached = await cache.match(request);
  if (cached) return servedBy(cached, 'cache');
  const response = await api.fetch(request);
  if (response.status === 200 && SHAREABLE.test(response.headers.get('cache-control') ?? '')) {
    c.executionCtx.waitUntil(cache.put(request, response.clone()));
  }
  return servedBy(response, 'api');
}

/**
 * Public booking reads from this data centre's copy of the booking cache (the same module and keys
 * as the API Worker's, src/modules/booking/edge-cache.ts): a hit answers here; a miss goes to the
 * API Worker, and an answer it read from the database (it says under which version) is kept here.
 */
async function bookingRead(c: Context<AppEnv>): Promise<Response> {
  const slug = c.req.param('slug')?.toLowerCase();
  if (!slug || !CACHEABLE_SLUG.test(slug) || c.req.header('authorization')) return forwardToApi(c);
  const availability = c.req.path.endsWith('/availability');
  const url = availability ? c.req.url : new URL(`/api/v1/booking/${slug}`, c.req.url).toString();
  const hit = await readCachedBooking(url, slug);
  if (hit) {
    // Availability reads answered here count toward the per-IP limit here; the API Worker counts the rest.
    if (availability && !(await bookingReadAllowed(limiterOf(c), c.req.header('cf-connecting-ip') ?? 'unknown')))
      throw new RateLimited(BOOKING_READ_PERIOD_SECONDS);
    // The ETag the API Worker gives the same text, so a browser revalidates here too (a 304 by jsonEtag).
    const tag = jsonBodyEtag(c, hit);
    return c.body(hit, 200, {
      'content-type': 'application/json',
      'cache-control': 'no-cache',
      ...(tag ? { etag: tag } : {}),
      'x-booking-cache': 'HIT',
      [SERVED_BY_HEADER]: 'cache',
    });
  }
  const response = await forwardToApi(c);
  const version = response.headers.get(BOOKING_VERSION_HEADER) ?? '';
  if (response.status === 200 && VERSION_TAG.test(version)) {
    c.executionCtx.waitUntil(
      response
        .clone()
        .text()
        .then((body) => storeBooking(url, slug, version, body)),
    );
  }
  return response;
}

/**
 * A confirmation forwarded and accepted, or refused because the slot is taken (the slots this data
 * centre showed were stale): this data centre's booking reads of the rep go to the database again,
 * so the page's reload after a 409 does not offer the taken slot once more.
 */
async function bookingConfirm(c: Context<AppEnv>): Promise<Response> {
  const response = await forwardToApi(c);
  const slug = c.req.param('slug')?.toLowerCase();
  if ((response.status === 201 || response.status === 409) && slug && CACHEABLE_SLUG.test(slug))
    await forgetBookingVersion([slug]);
  return response;
}

export function buildEdgeApp() {
  const app = new Hono<AppEnv>();
  app.use('*', requestLogger);
  app.use('/api/v1/track/*', secureHeaders({ crossOriginResourcePolicy: false }));
  app.use('/api/v1/track/*', async (c, next) => {
    await next();
    // Forwarded responses (another method on a tracking path) already say `api`.
    if (!c.res.headers.has(SERVED_BY_HEADER)) c.res.headers.set(SERVED_BY_HEADER, 'edge');
  });
  mountTrackingHits(app);
  app.get('/api/v1/booking/:slug', jsonEtag, bookingRead);
  app.get('/api/v1/booking/:slug/availability', jsonEtag, bookingRead);
  app.post('/api/v1/booking/:slug/confirm', bookingConfirm);
  // Whatever the edge does not answer itself (other methods on the tracking paths included, so the
  // API Worker's 405 stays the one answer).
  app.all('*', forwardToApi);
  app.onError(handleError);
  return app;
}
