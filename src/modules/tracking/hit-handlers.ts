/**
 * What the open-tracking pixel and the click redirect do, free of the OpenAPI machinery and the
 * database: the edge Worker mounts these handlers on plain Hono routes (mountTrackingHits), and
 * the API Worker serves the same handlers through its documented routes (hit-routes.ts).
 * The token is the credential: it is verified by its signature, the hit goes to the events queue
 * after the response (waitUntil), and a bad token records nothing.
 */
import type { Context, Hono } from 'hono';
import type { AppEnv } from '../../core/context';
import { NotFound } from '../../core/errors';
import { logError } from '../../core/log';
import { interstitialPolicy, linkInterstitialPage } from '../../pages/link-interstitial';
import type { TrackingHit } from './hits';
import { prefetcherOf } from './prefetch';
import { isWebUrl, tokenHash, trackingSecrets, verifyTrackingToken, type TrackingClaims } from './token';

/** A transparent 1×1 GIF (42 bytes). */
const PIXEL = Uint8Array.from(atob('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7'), (char) =>
  char.charCodeAt(0),
);

/** Sends the hit to the events queue after the response; a failed send is logged, never surfaced. */
async function publishHit(c: Context<AppEnv>, kind: TrackingHit['kind'], token: string, claims: TrackingClaims) {
  const prefetch = kind === 'open' ? prefetcherOf(c.req.header('user-agent'), c.req.header('cf-connecting-ip')) : null;
  const hit: TrackingHit = {
    kind,
    ...(prefetch ? { prefetch } : {}),
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

/** The pixel: always the GIF, whatever the token; a valid token queues an open. */
export async function trackOpen(c: Context<AppEnv>, token: string): Promise<Response> {
  const claims = await verifyTrackingToken(trackingSecrets(c.env), token);
  if (claims) await publishHit(c, 'open', token, claims);
  return c.body(PIXEL, 200, {
    'Content-Type': 'image/gif',
    'Cache-Control': 'no-store, max-age=0',
  });
}

/**
 * The click: a queued click, then 302 to the URL the token's signature covers when it was on the
 * organization's link domains at minting (claim d), else the interstitial page naming it; any
 * other token is a 404.
 */
export async function trackClick(c: Context<AppEnv>, token: string): Promise<Response> {
  const claims = await verifyTrackingToken(trackingSecrets(c.env), token);
  // Open tokens carry no target; a tampered or foreign token verifies to nothing.
  if (!claims?.targetUrl || !isWebUrl(claims.targetUrl)) throw new NotFound('Tracking link');
  await publishHit(c, 'click', token, claims);
  c.header('Cache-Control', 'no-store, max-age=0');
  if (claims.direct) return c.redirect(claims.targetUrl, 302);
  // Not on the organization's link domains: name the destination and let the reader decide.
  const nonce = crypto.randomUUID().replaceAll('-', '');
  c.header('Content-Security-Policy', interstitialPolicy(nonce));
  c.header('Referrer-Policy', 'no-referrer');
  return c.html(linkInterstitialPage(claims.targetUrl, nonce), 200);
}

/** The two routes on a plain Hono app (the edge Worker); the path parameter is the whole token. */
export function mountTrackingHits(app: Hono<AppEnv>): void {
  app.get('/api/v1/track/open/:token', (c) => trackOpen(c, c.req.param('token')));
  app.get('/api/v1/track/click/:token', (c) => trackClick(c, c.req.param('token')));
}
