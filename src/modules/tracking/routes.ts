/**
 * Open-tracking pixel and click redirect (public: the token is the credential) and minting
 * their tokens. The public routes read no database: the token is verified by its signature, the
 * hit goes to the events queue after the response (waitUntil), and a bad token records nothing.
 * The click redirect only ever sends the reader to the http(s) URL the token's signature covers;
 * any other token is a 404, so it is no open redirect.
 */
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../../core/context';
import { NotFound } from '../../core/errors';
import { created } from '../../core/http';
import { logError } from '../../core/log';
import { positiveId } from '../../core/schemas';
import { createRouter, defineRoute, envelope, jsonBody } from '../../core/routes';
import { requireLead } from '../leads/access';
import type { TrackingHit } from './hits';
import {
  isWebUrl,
  signTrackingToken,
  tokenHash,
  verifyTrackingToken,
  type TrackingClaims,
  type TrackingSecrets,
} from './token';

export const trackingRoutes = createRouter();
const tags = ['Tracking'];

/** A transparent 1×1 GIF (43 bytes). */
const PIXEL = Uint8Array.from(atob('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7'), (char) =>
  char.charCodeAt(0),
);

function secretsOf(c: Context<AppEnv>): TrackingSecrets {
  return { trackingSecret: c.env.TRACKING_SECRET || undefined, jwtSecret: c.var.config.JWT_SECRET };
}

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

trackingRoutes.openapi(
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
    const claims = await verifyTrackingToken(secretsOf(c), token);
    if (claims) await publishHit(c, 'open', token, claims);
    return c.body(PIXEL, 200, {
      'Content-Type': 'image/gif',
      'Cache-Control': 'no-store, max-age=0',
    });
  },
);

trackingRoutes.openapi(
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
    const claims = await verifyTrackingToken(secretsOf(c), token);
    // Open tokens carry no target; a tampered or foreign token verifies to nothing.
    if (!claims?.targetUrl || !isWebUrl(claims.targetUrl)) throw new NotFound('Tracking link');
    await publishHit(c, 'click', token, claims);
    c.header('Cache-Control', 'no-store, max-age=0');
    return c.redirect(claims.targetUrl, 302);
  },
);

const MintBody = z
  .object({
    lead_id: positiveId.openapi({ description: 'A lead of the organization', example: 1, type: 'integer' }),
    target_url: z
      .string()
      .trim()
      .max(2048, 'must be at most 2048 characters')
      .refine(isWebUrl, 'must be an http or https URL')
      .optional()
      .openapi({
        description: 'Where the click link redirects (http or https)',
        example: 'https://example.com/pricing',
      }),
    campaign: z
      .string()
      .trim()
      .min(1, 'is required')
      .max(200, 'must be at most 200 characters')
      .optional()
      .openapi({ description: 'A label kept on the signals the links record', example: 'spring-launch' }),
  })
  .openapi('TrackingTokensRequest', {
    description: 'The lead to track and, for a click link, where it leads',
    example: { lead_id: 1, target_url: 'https://example.com/pricing', campaign: 'spring-launch' },
  });

const MintedSchema = z
  .object({
    lead_id: z.number().int().openapi({ description: 'The tracked lead', example: 1 }),
    open_token: z
      .string()
      .openapi({ description: 'Signed token of the open pixel (self-contained; no database read)' }),
    open_url: z.string().openapi({ description: 'Absolute URL of the open pixel, on the host this request reached' }),
    click_token: z.string().nullable().openapi({ description: 'null without target_url' }),
    click_url: z
      .string()
      .nullable()
      .openapi({ description: 'Absolute URL of the click redirect; null without target_url' }),
  })
  .openapi('TrackingTokens', {
    description: 'Signed tracking links for a lead: the open pixel and, with a target URL, the click redirect',
    example: {
      lead_id: 1,
      open_token: 'eyJ2IjoxLCJvIjoxfQ.c2lnbmF0dXJl',
      open_url: 'https://api.example.com/api/v1/track/open/eyJ2IjoxLCJvIjoxfQ.c2lnbmF0dXJl',
      click_token: 'eyJ2IjoxLCJ1IjoiaHR0cHMifQ.c2lnbmF0dXJl',
      click_url: 'https://api.example.com/api/v1/track/click/eyJ2IjoxLCJ1IjoiaHR0cHMifQ.c2lnbmF0dXJl',
    },
  });

trackingRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/tracking/tokens',
    operationId: 'createTrackingTokens',
    description:
      'Mints the signed, self-contained tracking links for a lead of the organization: the open-pixel URL, and with `target_url` (http or https) the click-redirect URL. Tokens carry organization, lead, target, campaign and issue time under an HMAC-SHA256 signature, so the public routes verify them without a database read.',
    tags,
    summary: 'Mint the signed open-pixel URL (and, with target_url, the click URL) for a lead',
    auth: 'bearer',
    // Reads only: no transaction needed.
    transaction: false,
    request: { body: jsonBody(MintBody) },
    responses: { 201: envelope(MintedSchema, 'Tracking URLs minted') },
  }),
  async (c) => {
    const ctx = c.var.tenant;
    const input = c.req.valid('json');
    await requireLead(ctx, input.lead_id);
    const secrets = secretsOf(c);
    const claims = { organizationId: ctx.orgId, leadId: input.lead_id, campaign: input.campaign ?? null };
    const openToken = await signTrackingToken(secrets, { ...claims, targetUrl: null });
    const clickToken = input.target_url
      ? await signTrackingToken(secrets, { ...claims, targetUrl: input.target_url })
      : null;
    const origin = new URL(c.req.url).origin;
    return created(
      c,
      {
        lead_id: input.lead_id,
        open_token: openToken,
        open_url: `${origin}/api/v1/track/open/${openToken}`,
        click_token: clickToken,
        click_url: clickToken ? `${origin}/api/v1/track/click/${clickToken}` : null,
      },
      'Tracking URLs minted',
    );
  },
);
