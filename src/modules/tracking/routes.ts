/**
 * Minting tracking tokens: the signed open-pixel and click-redirect URLs of a lead. The public
 * routes that answer them are in hit-routes.ts.
 */
import { z } from '@hono/zod-openapi';
import { created } from '../../core/http';
import { positiveId, webUrl } from '../../core/schemas';
import { createRouter, defineRoute, envelope, jsonBody } from '../../core/routes';
import { referencesExist } from '../../db/references';
import { isDirectTarget, linkDomainsSql } from './link-domains';
import { signTrackingToken, trackingSecrets } from './token';

export const trackingRoutes = createRouter();
const tags = ['Tracking'];

const MintBody = z
  .object({
    lead_id: positiveId.openapi({ description: 'A lead of the organization', example: 1, type: 'integer' }),
    target_url: webUrl(2048).optional().openapi({
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
      'Mints the signed, self-contained tracking links for a lead of the organization: the open-pixel URL, and with `target_url` (http or https) the click-redirect URL. A target on the organization’s link domains (GET /api/organization/link-domains) redirects at once; any other shows an interstitial page naming the destination (decided now and signed into the link). Tokens carry organization, lead, target, campaign and issue time under an HMAC-SHA256 signature, so the public routes verify them without a database read.',
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
    // The lead check (404 for another organization's lead) and the link domains in one statement.
    const { domains } = await referencesExist(
      ctx,
      { lead_id: input.lead_id },
      { notFound: ['lead_id'] },
      { domains: linkDomainsSql(ctx.orgId) },
    );
    const secrets = trackingSecrets(c.env);
    const claims = { organizationId: ctx.orgId, leadId: input.lead_id, campaign: input.campaign ?? null };
    const openToken = await signTrackingToken(secrets, { ...claims, targetUrl: null, direct: false });
    const clickToken = input.target_url
      ? await signTrackingToken(secrets, {
          ...claims,
          targetUrl: input.target_url,
          direct: isDirectTarget(input.target_url, domains ?? []),
        })
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
