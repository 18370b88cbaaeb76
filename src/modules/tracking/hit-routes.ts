/**
 * The open-tracking pixel and the click redirect (public: the token is the credential). They read
 * no database: the token is verified by its signature, the hit goes to the events queue after the
 * response (waitUntil), and a bad token records nothing. The click redirect only ever sends the
 * reader to the http(s) URL the token's signature covers; any other token is a 404, so it is no
 * open redirect. Both Workers mount these routes: the edge Worker answers them next to the reader,
 * and the API Worker too, so a single-Worker deployment serves them as well.
 */
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../../core/context';
import { NotFound } from '../../core/errors';
import { logError } from '../../core/log';
import { createRouter, defineRoute } from '../../core/routes';
import type { TrackingHit } from './hits';
import { isWebUrl, tokenHash, trackingSecrets, verifyTrackingToken, type TrackingClaims } from './token';

export const trackingHitRoutes = createRouter();
const tags = ['Tracking'];

/** A transparent 1×1 GIF (42 bytes). */
const PIXEL = Uint8Array.from(atob('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7'), (char) =>
  char.charCodeAt(0),
);

/** Sends the hit to the events queue after the response; a failed send is logged, never surfaced. */
async function publishHit(c: Context<AppEnv>, kind: TrackingHit['kind'], token: string, claims: TrackingClaims) {
  const hit: TrackingHit = {
    kind,
    hitId: crypto.randomUUID(),
    orgId: claims.organizationId,
    leadId: claims.leadId,
    tokenHash: await tokenHash(token),
    campaign: claims.campaign,
    targetUrl: claims.targetUrl,
    at: new Date().toISOString(),
  };
  c.executionCtx.waitUntil(c.env.EVENTS.send(hit).catch((error: unknown) => logError(c, error)));
}

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
      'The open-tracking pixel: always answers 200 with a 1×1 transparent GIF and `Cache-Control: no-store`, whatever the token. A valid signed token puts an `email_opened` hit on the events queue after the response (three opens of one token also record `email_opened_3x`, once); the route never touches the database.',
    tags,
    summary: 'Open-tracking pixel: always a 1×1 transparent GIF; a valid token records an email_opened signal',
    auth: 'public',
    request: { params: TokenParam },
    responses: {
      200: {
        description: 'A 1×1 transparent GIF, whatever the token (an invalid one records nothing)',
        headers: { 'Cache-Control': { description: 'no-store', schema: { type: 'string' } } },
        content: { 'image/gif': { schema: z.string().openapi({ type: 'string', format: 'binary' }) } },
      },
    },
  }),
  async (c) => {
    const { token } = c.req.valid('param');
    const claims = await verifyTrackingToken(trackingSecrets(c.env), token);
    if (claims) await publishHit(c, 'open', token, claims);
    return c.body(PIXEL, 200, {
      'Content-Type': 'image/gif',
      'Cache-Control': 'no-store, max-age=0',
    });
  },
);

trackingHitRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/v1/track/click/{token}',
    operationId: 'trackClick',
    description:
      'The click redirect: a valid signed click token answers 302 to the http(s) URL it was minted for and queues a `link_clicked` hit after the response; the route never touches the database. A tampered, malformed or open-only token answers 404 and redirects nowhere (no open redirect).',
    tags,
    summary: 'Click redirect: 302 to the URL the token was minted for, recording a link_clicked signal',
    auth: 'public',
    request: { params: TokenParam },
    responses: {
      302: {
        description: 'Redirect to the target URL signed into the token',
        headers: {
          Location: { description: 'The target URL', schema: { type: 'string', format: 'uri' } },
          'Cache-Control': { description: 'no-store', schema: { type: 'string' } },
        },
      },
    },
  }),
  async (c) => {
    const { token } = c.req.valid('param');
    const claims = await verifyTrackingToken(trackingSecrets(c.env), token);
    // Open tokens carry no target; a tampered or foreign token verifies to nothing.
    if (!claims?.targetUrl || !isWebUrl(claims.targetUrl)) throw new NotFound('Tracking link');
    await publishHit(c, 'click', token, claims);
    c.header('Cache-Control', 'no-store, max-age=0');
    return c.redirect(claims.targetUrl, 302);
  },
);
