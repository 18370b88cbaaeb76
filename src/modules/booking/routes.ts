/**
 * The public booking routes (no credential): a rep's profile, free slots and confirmation under
 * /api/v1/booking/{slug}, and the HTML page /book/{slug}. Their own router, apart from the bearer
 * meetings routes, so an edge Worker can mount exactly these. Profile and availability answers
 * are cached at the edge (edge-cache.ts): a hit sends no database statement.
 */
import type { Context } from 'hono';
import type { z } from '@hono/zod-openapi';
import type { AppEnv } from '../../core/context';
import { runAsTenant } from '../../core/database';
import { ApiError, NotFound, RateLimited } from '../../core/errors';
import { readConfig } from '../../env';
import { jsonBodyEtag } from '../../core/etag';
import { created } from '../../core/http';
import { clientIp, enforceRateLimit } from '../../core/rate-limit';
import { createRouter, defineRoute, htmlPage, envelope, jsonBody } from '../../core/routes';
import { actorContext } from '../../db/tenant';
import { bookingPage, bookingNotFoundPage, bookingPagePolicy } from '../../pages/booking-page';
import { AvailabilityQuery, AvailabilitySchema } from './availability-query';
import {
  BOOKING_VERSION_HEADER,
  forgetBookingVersion,
  readCachedBooking,
  SLOT_UNAVAILABLE,
  storeBooking,
} from './edge-cache';
import {
  BookingConfirmationSchema,
  BookingProfileSchema,
  ConfirmBookingBody,
  SlugParam,
  slotConflict,
} from './schemas';
import { type ConfirmScope, confirmBooking, confirmScopeRead } from './confirm';
import { BOOKING_READ_PERIOD_SECONDS, bookingReadAllowed } from './read-limit';
import { bookingAvailability, bookingProfile, organizationOfSlug } from './service';
import { bookingVersionTag } from './version-tag';

export const bookingRoutes = createRouter();
const tags = ['Public booking'];

/** Confirmations per minute per client IP when BOOKING_RATE_LIMIT is not set. */
export const DEFAULT_BOOKING_RATE_LIMIT = 10;

/**
 * An edge-cached JSON read: the cached envelope when this data centre holds one for the rep's
 * current version, else `load` (which reports the version it read) and a cache fill.
 */
async function cachedRead(
  c: Context<AppEnv>,
  cacheUrl: string,
  slug: string,
  load: () => Promise<{ version: number; data: unknown }>,
): Promise<{ body: string; hit: boolean; version?: string }> {
  const hit = await readCachedBooking(cacheUrl, slug);
  if (hit) return { body: hit, hit: true };
  const { version, data } = await load();
  const body = JSON.stringify({ success: true, message: 'OK', data });
  const tag = await bookingVersionTag(readConfig(c.env).JWT_SECRET, slug, version);
  await storeBooking(cacheUrl, slug, tag, body);
  return { body, hit: false, version: tag };
}

function jsonFromCache(c: Context<AppEnv>, read: { body: string; hit: boolean; version?: string }) {
  const tag = jsonBodyEtag(c, read.body);
  return c.body(read.body, 200, {
    'content-type': 'application/json',
    // Browsers revalidate (ETag, from the text: core/etag.ts): a visitor who just booked never sees the old slots from their own cache.
    'cache-control': 'no-cache',
    ...(tag ? { etag: tag } : {}),
    'x-booking-cache': read.hit ? 'HIT' : 'MISS',
    // The version this answer was read under, for the edge Worker's copy of the cache (src/edge-app.ts).
    ...(read.version === undefined ? {} : { [BOOKING_VERSION_HEADER]: read.version }),
  });
}

/** The 200 of a cached booking read, with the headers that say where it came from. */
function cachedReadResponse<T extends z.ZodType>(schema: T) {
  return {
    ...envelope(schema),
    headers: {
      'x-booking-cache': {
        description:
          '`HIT`: served from the booking cache of the data centre (no database); `MISS`: read from the database',
        schema: { type: 'string' as const, enum: ['HIT', 'MISS'] },
      },
      [BOOKING_VERSION_HEADER]: {
        description:
          "On a MISS: an opaque tag of the rep's booking version the answer was read under (the edge Worker keeps its copy under it); it changes when the rep's meetings or settings do, and says nothing else",
        schema: { type: 'string' as const },
      },
      'Cache-Control': {
        description: '`no-cache`: browsers revalidate with the ETag',
        schema: { type: 'string' as const },
      },
    },
  };
}

/**
 * A confirmation refused because the slot is taken: the cached slots this data centre showed the
 * visitor were stale (the slot was taken where this cache did not hear of it, or by a calendar
 * event synced since), so they are dropped and the page's reload reads the database instead of
 * offering the same slot again.
 */
async function forgettingOnConflict(slug: string, confirm: () => Promise<unknown>): Promise<void> {
  try {
    await confirm();
  } catch (error) {
    if (error instanceof ApiError && error.code === SLOT_UNAVAILABLE) await forgetBookingVersion([slug]);
    throw error;
  }
}

const profileUrl = (c: Context<AppEnv>, slug: string) => new URL(`/api/v1/booking/${slug}`, c.req.url).toString();

bookingRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/v1/booking/{slug}',
    operationId: 'getBookingProfile',
    tags,
    summary: 'A rep’s public booking profile (no credential)',
    description:
      'Name, job title, organization name, default meeting length and time zone of the rep with this booking slug; nothing private (no email, no phone). An unknown slug, a disabled page or an inactive rep: 404. Cached at the edge for 30 seconds (header `x-booking-cache: HIT` when served from it).',
    auth: 'public',
    unknownQuery: 'ignore',
    request: { params: SlugParam },
    responses: { 200: cachedReadResponse(BookingProfileSchema) },
  }),
  async (c) => {
    const slug = c.req.valid('param').slug.toLowerCase();
    const read = await cachedRead(c, profileUrl(c, slug), slug, async () => {
      const { version, profile } = await bookingProfile(c.var.database(), slug);
      return { version, data: profile };
    });
    return jsonFromCache(c, read) as never;
  },
);

bookingRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/v1/booking/{slug}/availability',
    operationId: 'getBookingAvailability',
    tags,
    summary: 'A rep’s free slots, in the visitor’s zone (no credential)',
    description:
      'Free slots of the rep: working hours in the rep’s timezone, minus Scheduled and Rescheduled meetings widened by the rep’s buffer, minus the minimum notice. `date` (one day) or `from`/`to` (default: 7 days from today) are days in `tz` (default: the rep’s timezone); slots are ISO 8601 in `tz` with its offset (2026-03-09T09:00:00-04:00). `duration` other than the rep’s own meeting length, more than 31 days, `to` before `from`, or an unknown tz: 400 naming the parameter. A rep with a calendar connected is offered no slot ending more than 59 days ahead (past the calendar’s synced window). Cached at the edge for 30 seconds under the rep’s booking version; a confirmation always re-checks.',
    auth: 'public',
    unknownQuery: 'ignore',
    request: { params: SlugParam, query: AvailabilityQuery },
    responses: { 200: cachedReadResponse(AvailabilitySchema) },
  }),
  async (c) => {
    if (!(await bookingReadAllowed(c.env.BOOKING_READ_LIMITER, clientIp(c))))
      throw new RateLimited(BOOKING_READ_PERIOD_SECONDS);
    const slug = c.req.valid('param').slug.toLowerCase();
    const params = c.req.valid('query');
    const read = await cachedRead(c, c.req.url, slug, async () => {
      const { version, availability } = await bookingAvailability(c.var.database(), slug, params);
      return { version, data: availability };
    });
    return jsonFromCache(c, read) as never;
  },
);

bookingRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/v1/booking/{slug}/confirm',
    operationId: 'confirmBooking',
    tags,
    summary: 'Book a slot with a rep (no credential; rate limited per IP)',
    description:
      'Books a slot from the availability answer: in one transaction the slot is checked again against the rep’s meetings (a slot taken meanwhile, outside the working hours, too soon or of another length: 409 `slot_unavailable`), the lead is found by email or created (assigned to the rep), and a Scheduled meeting is created with the rep’s booking meeting tool and the visitor as attendee. Two confirmations of one slot at once: exactly one succeeds, the other gets 409. At most BOOKING_RATE_LIMIT (default 10) confirmations per minute per client IP (429 with Retry-After).',
    auth: 'public',
    unknownQuery: 'ignore',
    rateLimited: true,
    request: { params: SlugParam, body: jsonBody(ConfirmBookingBody) },
    responses: { 201: envelope(BookingConfirmationSchema, 'Meeting booked'), 409: slotConflict },
  }),
  async (c) => {
    const limit = Number(c.env.BOOKING_RATE_LIMIT) > 0 ? Number(c.env.BOOKING_RATE_LIMIT) : DEFAULT_BOOKING_RATE_LIMIT;
    await enforceRateLimit(c, `booking-ip:${clientIp(c)}`, [{ policy: 'booking-ip', limit }]);
    const slug = c.req.valid('param').slug.toLowerCase();
    const input = c.req.valid('json');
    let scope: ConfirmScope | null = null;
    let booked: Awaited<ReturnType<typeof confirmBooking>> | undefined;
    await forgettingOnConflict(slug, () =>
      runAsTenant<ConfirmScope>(
        c,
        async () => {
          booked = await confirmBooking(c.var.tenant, scope as ConfirmScope, input);
        },
        organizationOfSlug(slug),
        confirmScopeRead(slug, input.email),
        (checked) => {
          if (!checked) throw new NotFound('Booking page', slug);
          scope = checked;
          return actorContext({ kind: 'public', onBehalfOf: checked.rep.id });
        },
        // BEGIN first: the scope statement locks the rep until COMMIT (confirm.ts).
        { scopeInTransaction: true },
      ),
    );
    return created(c, booked as NonNullable<typeof booked>, 'Meeting booked');
  },
);

bookingRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/book/{slug}',
    operationId: 'bookingPage',
    tags,
    summary: 'The rep’s booking page (HTML, no credential)',
    description:
      'An accessible, responsive page: pick a day, see the free slots in your own time zone (the browser’s), confirm with name and email. No external assets; a strict Content-Security-Policy (scripts and styles by nonce). Unknown slug or disabled page: a 404 page.',
    auth: 'public',
    unknownQuery: 'ignore',
    request: { params: SlugParam },
    responses: { 200: htmlPage('The booking page'), 404: htmlPage('No booking page at this address') },
  }),
  async (c) => {
    const slug = c.req.valid('param').slug.toLowerCase();
    const nonce = crypto.randomUUID().replaceAll('-', '');
    c.header('Content-Security-Policy', bookingPagePolicy(nonce));
    c.header('Cache-Control', 'no-store');
    let read: { body: string; hit: boolean };
    try {
      read = await cachedRead(c, profileUrl(c, slug), slug, async () => {
        const { version, profile } = await bookingProfile(c.var.database(), slug);
        return { version, data: profile };
      });
    } catch (error) {
      if (error instanceof NotFound) return c.html(bookingNotFoundPage(nonce), 404) as never;
      throw error;
    }
    const profile = (JSON.parse(read.body) as { data: z.infer<typeof BookingProfileSchema> }).data;
    return c.html(bookingPage(profile, nonce), 200) as never;
  },
);
