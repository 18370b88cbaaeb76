/**
 * An organization's link domains: the hosts its click links may redirect to directly. Anyone can
 * sign up and mint click links, so a bare 302 to any site would make the API's domain a
 * redirector for phishing mail. A click link whose target's host is one of these domains (or a
 * subdomain of one) redirects at once; any other shows the edge's interstitial page, which names
 * the destination and lets the reader decide (pages/link-interstitial.ts). The edge Worker has no
 * database, so the decision is made when the link is minted and signed into the token (claim
 * `d`): changing the list changes the links minted afterwards, never those already sent.
 * A listed domain counts only once verified by a DNS TXT record (link-domain-verification.ts).
 *
 * GET and POST /api/organization/link-domains read and replace the list, POST
 * /api/organization/link-domains/verify checks the records (beyond the spec).
 */
import { z } from '@hono/zod-openapi';
import { ok } from '../../core/http';
import { createRouter, defineRoute, envelope, ErrorEnvelope, jsonBody } from '../../core/routes';
import { DNS_PROVIDERS } from '../../providers/dns/interface';
import { dnsProviderFor } from '../../providers/dns/select';
import {
  readLinkDomainState,
  replaceLinkDomains,
  stripRows,
  UNVERIFY_AFTER_DAYS,
  VERIFICATION_RECORD_PREFIX,
  VERIFICATION_VALUE_PREFIX,
  verifiedLinkDomainsSql,
  verifyLinkDomains,
} from './link-domain-verification';

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

/**
 * The organization's link domains that count for direct redirects, the DNS-verified ones, as a SQL
 * scalar (text[]), for a statement the request sends anyway (minting a link, composing mail).
 */
export const linkDomainsSql = verifiedLinkDomainsSql;

/** A domain listed and looked up once, its record not yet published: the example of both schemas. */
const EXAMPLE_RECORD_NAME = `${VERIFICATION_RECORD_PREFIX}.example.com`;
const EXAMPLE_RECORD_VALUE = `${VERIFICATION_VALUE_PREFIX}3f1c9a0e5b7d4e2f8a6c1b0d9e8f7a6b`;
const VERIFICATION_EXAMPLE = {
  domain: 'example.com',
  verified: false,
  verified_at: null,
  record_type: 'TXT' as const,
  record_name: EXAMPLE_RECORD_NAME,
  record_value: EXAMPLE_RECORD_VALUE,
  checked_at: '2026-12-02T09:30:00.000Z',
  last_error: `No TXT record found at ${EXAMPLE_RECORD_NAME}; publish one holding ${EXAMPLE_RECORD_VALUE}`,
  record_missing_since: null,
};

const DomainVerificationSchema = z
  .object({
    domain: z.string().openapi({ description: 'A listed link domain', example: 'example.com' }),
    verified: z.boolean().openapi({
      description:
        'Whether the organization proved it controls the domain with the DNS record below; only a verified domain (and its subdomains) lets click links redirect directly',
      example: false,
    }),
    verified_at: z.string().datetime().nullable().openapi({
      description: 'When the record was found (ISO 8601); null until then',
      example: null,
    }),
    record_type: z
      .literal('TXT')
      .openapi({ description: 'The DNS record type to publish: always TXT', example: 'TXT' }),
    record_name: z.string().openapi({
      description: `Where to publish it: \`${VERIFICATION_RECORD_PREFIX}.<domain>\``,
      example: `${VERIFICATION_RECORD_PREFIX}.example.com`,
    }),
    record_value: z.string().openapi({
      description: `The exact value the TXT record must hold: \`${VERIFICATION_VALUE_PREFIX}<token>\`, the token random and this organization’s own for this domain (it stays while the domain stays listed)`,
      example: `${VERIFICATION_VALUE_PREFIX}3f1c9a0e5b7d4e2f8a6c1b0d9e8f7a6b`,
    }),
    checked_at: z.string().datetime().nullable().openapi({
      description: `When the record was last looked up (POST /api/organization/link-domains/verify, or the daily re-check of a verified domain); null if never`,
      example: null,
    }),
    last_error: z.string().nullable().openapi({
      description:
        'Why the last lookup did not find the record (no record, a different value, the DNS lookup failed); null when it was found or never looked up',
      example: null,
    }),
    record_missing_since: z
      .string()
      .datetime()
      .nullable()
      .openapi({
        description: `For a verified domain: when the daily re-check first found its record missing (ISO 8601). Once it has been missing for ${UNVERIFY_AFTER_DAYS} days the domain loses its verification and every admin is notified (type_id 8); publishing the record again and calling POST /api/organization/link-domains/verify clears it. Null while the record is in place, and for a domain not verified. A resolver that cannot be reached does not count`,
        example: null,
      }),
  })
  .openapi('LinkDomainVerification', {
    description: 'One link domain’s DNS verification',
    example: VERIFICATION_EXAMPLE,
  });

const LinkDomainsSchema = z
  .object({
    link_domains: z.array(z.string()).openapi({
      description:
        'The domains as set (POST /api/organization/link-domains). A click link to one of them (or a subdomain) redirects directly once the domain is verified; a link to any other host, or to a domain not yet verified, shows an interstitial page naming the destination',
      example: ['example.com', 'docs.example.org'],
    }),
    dns_provider: z.enum(DNS_PROVIDERS).openapi({
      description:
        'What checks the records on this server: `doh` (a DNS-over-HTTPS resolver) or `local` (offline, for development and tests: it finds the record at reserved names only, such as *.test, *.example and example.com)',
      example: 'doh',
    }),
    verifications: z.array(DomainVerificationSchema).openapi({
      description: 'Each listed domain’s verification, in the order of link_domains, with the TXT record to publish',
    }),
  })
  .openapi('LinkDomains', {
    description: 'The organization’s link domains and their DNS verification',
    example: {
      link_domains: ['example.com'],
      dns_provider: 'doh',
      verifications: [VERIFICATION_EXAMPLE],
    },
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

const VERIFICATION_NOTE =
  'A listed domain counts for direct redirects only once verified: publish a DNS TXT record at `record_name` holding `record_value` (see `verifications`), then call POST /api/organization/link-domains/verify. Until then its click links show the interstitial, as for any other host. Keep the record in place: a verified domain is looked up again every day and loses its verification when the record stays missing (`record_missing_since`).';

const dnsUnavailable = {
  description:
    'The DNS resolver answered none of the lookups (down, throttling or SERVFAIL; error.code provider_unavailable): nothing was recorded, retry after Retry-After seconds',
  headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' as const } } },
  content: { 'application/json': { schema: ErrorEnvelope } },
};

linkDomainRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/organization/link-domains',
    operationId: 'getLinkDomains',
    tags,
    summary: 'The domains click links may redirect to directly, with their DNS verification',
    description: `The organization’s link domains (beyond the spec). A click link minted for a target on a verified one (or a subdomain) redirects at once with 302; a link to any other host shows an interstitial page on the edge that names the destination, so the API’s domain cannot serve as an open redirector. The decision is signed into the link when it is minted. ${VERIFICATION_NOTE}`,
    auth: 'bearer',
    transaction: false,
    responses: { 200: envelope(LinkDomainsSchema) },
  }),
  async (c) => ok(c, stripRows(await readLinkDomainState(c.var.tenant, dnsProviderFor(c.env)))),
);

linkDomainRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/organization/link-domains',
    operationId: 'updateLinkDomains',
    tags,
    summary: 'Replace the domains click links may redirect to directly (admin)',
    description: `Replaces the organization’s link domains (beyond the spec; admins only) and answers as GET. Links minted from then on follow the new list; links already minted keep what was signed into them. A domain that stays keeps its token and verification; a new one gets a fresh token and starts unverified; a removed one loses both (listed again, it is verified again). ${VERIFICATION_NOTE} A value that is not a domain name (a scheme, path, port or space in it): 422 naming it.`,
    auth: 'bearer',
    roles: ['admin'],
    // One statement writes the list and the verification rows: atomic by itself.
    transaction: false,
    request: { body: jsonBody(LinkDomainsBody) },
    responses: { 200: envelope(LinkDomainsSchema, 'Link domains updated') },
  }),
  async (c) => {
    const ctx = c.var.tenant;
    await replaceLinkDomains(ctx, [...new Set(c.req.valid('json').link_domains)]);
    return ok(c, stripRows(await readLinkDomainState(ctx, dnsProviderFor(c.env))), 'Link domains updated');
  },
);

linkDomainRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/organization/link-domains/verify',
    operationId: 'verifyLinkDomains',
    tags,
    summary: 'Check the DNS records of the link domains not yet verified, or found missing (admin)',
    description: `Looks up the TXT record of every listed domain not yet verified, or verified but found missing by the daily re-check (beyond the spec; admins only), in parallel, and answers as GET: a domain whose \`${VERIFICATION_RECORD_PREFIX}.<domain>\` holds its \`record_value\` becomes verified (links minted from then on to it redirect directly); any other keeps \`verified: false\` with \`last_error\` saying why. A verified domain is looked up again every day: once its record has been missing for ${UNVERIFY_AFTER_DAYS} days (\`record_missing_since\`) it loses its verification, every admin is notified, and links minted from then on show the interstitial (links already minted keep what was signed into them). This route also looks up a verified domain whose record was found missing, so publishing it again clears that at once. Records are looked up through this server’s DNS provider (\`dns_provider\`): a DNS-over-HTTPS resolver in production, the offline local one under development and tests, which finds the record at reserved names only (*.test, *.example, *.invalid, *.localhost, example.com/.net/.org). When the resolver answers none of the lookups (down, throttling, SERVFAIL): 503 with Retry-After and nothing recorded; when it answers some, a domain it could not look up keeps the reason as \`last_error\`. No body.`,
    auth: 'bearer',
    roles: ['admin'],
    // The lookups are outside calls: no transaction is held open across them; the one write is a single statement.
    transaction: false,
    responses: { 200: envelope(LinkDomainsSchema, 'Link domains checked'), 503: dnsUnavailable },
  }),
  async (c) => ok(c, await verifyLinkDomains(c.var.tenant, dnsProviderFor(c.env)), 'Link domains checked'),
);
