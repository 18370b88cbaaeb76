/**
 * An organization's link domains: the hosts its click links may redirect to directly. Anyone can
 * sign up and mint click links, so a bare 302 to any site would make the API's domain a
 * redirector for phishing mail. A click link whose target's host is one of these domains (or a
 * subdomain of one) redirects at once; any other shows the edge's interstitial page, which names
 * the destination and lets the reader decide (pages/link-interstitial.ts). The edge Worker has no
 * database, so the decision is made when the link is minted and signed into the token (claim
 * `d`): changing the list changes the links minted afterwards, never those already sent.
 *
 * GET and POST /api/organization/link-domains read and replace the list (beyond the spec).
 */
import { z } from '@hono/zod-openapi';
import { eq, sql } from 'drizzle-orm';
import { ok } from '../../core/http';
import { createRouter, defineRoute, envelope, jsonBody } from '../../core/routes';
import { organizations } from '../../db/schema';
import type { TenantContext } from '../../db/tenant';

export const linkDomainRoutes = createRouter();
const tags = ['Tracking'];

export const MAX_LINK_DOMAINS = 50;

/** A DNS host name: labels of letters, digits and inner hyphens, at least two of them, 253 characters at most. */
const HOST_NAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

const linkDomain = z
  .string()
  .max(253, 'must be at most 253 characters')
  .trim()
  .toLowerCase()
  .transform((value) => value.replace(/\.$/, ''))
  .refine((value) => HOST_NAME.test(value), 'must be a domain name such as example.com (no scheme, path or port)');

/** True when `host` is one of the domains or a subdomain of one. */
export function onLinkDomains(host: string, domains: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return domains.some((domain) => name === domain || name.endsWith(`.${domain}`));
}

/** The target's host is on the list (an unparsable target is not). */
export function isDirectTarget(target: string, domains: readonly string[]): boolean {
  try {
    return onLinkDomains(new URL(target).hostname, domains);
  } catch {
    return false;
  }
}

/** The organization's link domains as a SQL scalar (text[]), for a statement the request sends anyway. */
export function linkDomainsSql(orgId: number) {
  return sql<
    string[] | null
  >`(select ${organizations.linkDomains} from ${organizations} where ${organizations.id} = ${orgId})`;
}

const LinkDomainsSchema = z
  .object({
    link_domains: z.array(z.string()).openapi({
      description:
        'Domains click links may redirect to directly (a subdomain of one counts); a click link to any other host shows an interstitial page naming the destination',
      example: ['example.com', 'docs.example.org'],
    }),
  })
  .openapi('LinkDomains', {
    description: 'The organization’s link domains',
    example: { link_domains: ['example.com', 'docs.example.org'] },
  });

const LinkDomainsBody = z
  .object({
    link_domains: z
      .array(linkDomain)
      .max(MAX_LINK_DOMAINS, `at most ${MAX_LINK_DOMAINS} domains`)
      .openapi({
        description: `The whole list (it replaces the stored one), at most ${MAX_LINK_DOMAINS} domain names, lower-cased; [] clears it`,
        example: ['example.com'],
      }),
  })
  .openapi('LinkDomainsRequest', {
    description: 'The organization’s new link domains',
    example: { link_domains: ['example.com'] },
  });

async function readLinkDomains(ctx: TenantContext): Promise<string[]> {
  const [row] = await ctx.db
    .select({ domains: organizations.linkDomains })
    .from(organizations)
    .where(eq(organizations.id, ctx.orgId));
  return row?.domains ?? [];
}

linkDomainRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/organization/link-domains',
    operationId: 'getLinkDomains',
    tags,
    summary: 'The domains click links may redirect to directly',
    description:
      'The organization’s link domains (beyond the spec). A click link minted for a target on one of them (or a subdomain) redirects at once with 302; a link to any other host shows an interstitial page on the edge that names the destination, so the API’s domain cannot serve as an open redirector. The decision is signed into the link when it is minted.',
    auth: 'bearer',
    responses: { 200: envelope(LinkDomainsSchema) },
  }),
  async (c) => ok(c, { link_domains: await readLinkDomains(c.var.tenant) }),
);

linkDomainRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/organization/link-domains',
    operationId: 'updateLinkDomains',
    tags,
    summary: 'Replace the domains click links may redirect to directly (admin)',
    description:
      'Replaces the organization’s link domains (beyond the spec; admins only). Links minted from then on follow the new list; links already minted keep what was signed into them. A value that is not a domain name (a scheme, path, port or space in it): 422 naming it.',
    auth: 'bearer',
    roles: ['admin'],
    request: { body: jsonBody(LinkDomainsBody) },
    responses: { 200: envelope(LinkDomainsSchema, 'Link domains updated') },
  }),
  async (c) => {
    const ctx = c.var.tenant;
    const domains = [...new Set(c.req.valid('json').link_domains)];
    await ctx.db
      .update(organizations)
      .set({ linkDomains: domains, updatedAt: sql`now()` })
      .where(eq(organizations.id, ctx.orgId));
    return ok(c, { link_domains: domains }, 'Link domains updated');
  },
);
