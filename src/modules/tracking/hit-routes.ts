/**
 * The open-tracking pixel and the click redirect (public: the token is the credential). They read
 * no database: the token is verified by its signature, the hit goes to the events queue after the
 * response (waitUntil), and a bad token records nothing. The click redirect only ever sends the
 * reader to the http(s) URL the token's signature covers (straight away when it was on the
 * organization's link domains at minting, else through an interstitial page naming it); any other
 * token is a 404, so it is no open redirect. These are the API Worker's documented routes (a single-Worker deployment serves
 * them too); the edge Worker mounts the same handlers (hit-handlers.ts) without the OpenAPI
 * machinery, and answers them next to the reader.
 */
import { z } from '@hono/zod-openapi';
import { createRouter, defineRoute } from '../../core/routes';
import { trackClick, trackOpen } from './hit-handlers';

export const trackingHitRoutes = createRouter();
const tags = ['Tracking'];

const TokenParam = z.object({
  token: z
    .string()
    .openapi({ param: { name: 'token', in: 'path' }, description: 'A tracking token from POST /api/tracking/tokens' }),
});

trackingHitRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/v1/track/open/{token}',
    operationId: 'trackOpen',
    description:
      'The open-tracking pixel: always answers 200 with a 1×1 transparent GIF and `Cache-Control: no-store`, whatever the token. A valid signed token puts an `email_opened` hit on the events queue after the response; the route never touches the database. Replays count once: at most one open per token per 10-minute window is recorded (deduplicated by the queue consumer), and `email_opened_3x` is recorded once, on opens in three distinct windows. A fetch by a known prefetcher (Gmail’s image proxy, Apple Mail Privacy Protection: by User-Agent, or Apple’s 17.0.0.0/8) is recorded as an open with `adjusted: true` in its signal_detail, which counts for nothing toward the intent score or email_opened_3x.',
    tags,
    summary: 'Open-tracking pixel: always a 1×1 transparent GIF; a valid token records an email_opened signal',
    auth: 'public',
    unknownQuery: 'ignore',
    request: { params: TokenParam },
    responses: {
      200: {
        description: 'A 1×1 transparent GIF, whatever the token (an invalid one records nothing)',
        headers: { 'Cache-Control': { description: 'no-store', schema: { type: 'string' } } },
        content: { 'image/gif': { schema: z.string().openapi({ type: 'string', format: 'binary' }) } },
      },
    },
  }),
  (c) => trackOpen(c, c.req.valid('param').token),
);

trackingHitRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/v1/track/click/{token}',
    operationId: 'trackClick',
    description:
      'The click redirect: a valid signed click token queues a `link_clicked` hit after the response (at most one click per token per 10-minute window is recorded) and answers 302 to the http(s) URL it was minted for when that URL was on the organization’s link domains at minting (GET /api/organization/link-domains); for any other destination it answers 200 with a small interstitial page that names the destination and links to it, so the API’s domain is no open redirector for links minted by strangers. The route never touches the database. A tampered, malformed or open-only token answers 404 and goes nowhere.',
    tags,
    summary:
      'Click redirect: 302 to a link-domain URL, else an interstitial naming the destination; records link_clicked',
    auth: 'public',
    unknownQuery: 'ignore',
    request: { params: TokenParam },
    responses: {
      200: {
        description:
          'The destination is not on the organization’s link domains: an HTML page naming it, with a link to continue',
        headers: { 'Cache-Control': { description: 'no-store', schema: { type: 'string' } } },
        content: { 'text/html': { schema: z.string().openapi({ description: 'The interstitial page' }) } },
      },
      302: {
        description: 'Redirect to the target URL signed into the token (on the organization’s link domains)',
        headers: {
          Location: { description: 'The target URL', schema: { type: 'string', format: 'uri' } },
          'Cache-Control': { description: 'no-store', schema: { type: 'string' } },
        },
      },
    },
  }),
  (c) => trackClick(c, c.req.valid('param').token),
);
