/**
 * HubSpot's CRM APIs, date version 2026-03 (HUBSPOT_API_VERSION), over fetch (the
 * `@hubspot/api-client` package needs Node's http). HubSpot ends support for its semantic-version
 * APIs (the v3 paths this adapter called) in September 2027; the 2026-03 paths take the same
 * parameters and answer the same fields (docs/providers.md, "HubSpot (CRM)"). A private app
 * token or an OAuth access token is sent as a bearer token. Reads only:
 *   - GET /account-info/2026-03/details: the portal the token opens (the connection's check);
 *   - GET /crm/properties/2026-03/{contacts|companies}: every property with its label and type;
 *   - GET /crm/objects/2026-03/{type}?limit&after&properties&archived=false: one page of records,
 *     paged by `paging.next.after`. Never the search API: it stops at 10 000 results and has a
 *     lower rate limit, so a full import walks the list.
 * A 429 is never waited out here: the call fails at once (a ProviderFailure 'unavailable' with
 * HubSpot's wait: `Retry-After` when sent, else `X-HubSpot-RateLimit-Interval-Milliseconds`, the
 * 10 s burst window, or an hour when `X-HubSpot-RateLimit-Daily-Remaining` is 0). A request then
 * answers 503 `provider_unavailable` with that Retry-After (providers/calls.ts), and a job hands
 * the wait to the queue, which delivers it again after it (jobs/faults.ts retryDelaySeconds):
 * nothing holds a request or a delivery while HubSpot's window passes. Other failures are
 * classified by providers/failures.ts, bodies unread. The token comes from `token()` on every
 * call: an OAuth connection's is renewed when it expires (providers/crm/select.ts).
 */
import { expectOk, ProviderFailure, providerFetch, retryAfterSeconds } from '../failures';
import type { CrmObjectType, CrmPage, CrmPageRequest, CrmProperty, CrmProvider, CrmRecord } from './interface';

export const HUBSPOT_API = 'https://api.hubapi.com';
/**
 * The date version of HubSpot's APIs we call (developers.hubspot.com/docs/api-reference/2026-03/…):
 * supported at least 18 months from its release; move it before HubSpot marks it unsupported (about
 * September 2027), with the tests' URLs.
 */
export const HUBSPOT_API_VERSION = '2026-03';
/** HubSpot's burst window, the wait when a 429 names none. */
const BURST_WAIT_SECONDS = 10;
const DAILY_LIMIT_WAIT_SECONDS = 3_600;

/** How long a 429 asks us to wait, in seconds: Retry-After, else HubSpot's own rate-limit headers. */
export function rateLimitWait(headers: Headers): number {
  const retryAfter = headers.get('retry-after');
  if (retryAfter) return retryAfterSeconds(retryAfter);
  if (headers.get('x-hubspot-ratelimit-daily-remaining') === '0') return DAILY_LIMIT_WAIT_SECONDS;
  const interval = Number(headers.get('x-hubspot-ratelimit-interval-milliseconds'));
  if (Number.isFinite(interval) && interval > 0) return Math.max(1, Math.ceil(interval / 1000));
  return BURST_WAIT_SECONDS;
}

function text(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  return typeof value === 'string' ? value : String(value);
}

export function hubspotCrm(token: () => Promise<string>): CrmProvider {
  async function get(path: string, query: URLSearchParams | null, what: string): Promise<unknown> {
    const url = `${HUBSPOT_API}${path}${query ? `?${query}` : ''}`;
    const response = await providerFetch('hubspot', url, {
      method: 'GET',
      headers: { authorization: `Bearer ${await token()}`, accept: 'application/json' },
    });
    if (response.status === 429) {
      await response.body?.cancel().catch(() => undefined);
      throw new ProviderFailure(
        'unavailable',
        'hubspot',
        429,
        `hubspot is rate limiting (429 on ${what}); try again later`,
        rateLimitWait(response.headers),
      );
    }
    await expectOk('hubspot', response, what);
    return response.json();
  }

  return {
    name: 'hubspot',
    async verify() {
      const body = (await get(`/account-info/${HUBSPOT_API_VERSION}/details`, null, 'account')) as {
        portalId?: unknown;
        uiDomain?: unknown;
      };
      if (body.portalId === undefined || body.portalId === null) {
        throw new ProviderFailure('rejected', 'hubspot', 200, 'hubspot answered no portal for this token');
      }
      return { identity: `portal ${String(body.portalId)}`, displayName: text(body.uiDomain) };
    },
    async properties(type: CrmObjectType): Promise<CrmProperty[]> {
      const body = (await get(`/crm/properties/${HUBSPOT_API_VERSION}/${type}`, null, 'properties')) as {
        results?: unknown[];
      };
      return (body.results ?? []).flatMap((entry) => {
        const property = entry as { name?: unknown; label?: unknown; type?: unknown; hidden?: unknown };
        if (typeof property.name !== 'string' || property.hidden === true) return [];
        return [
          { name: property.name, label: text(property.label) ?? property.name, type: text(property.type) ?? 'string' },
        ];
      });
    },
    async listPage(type: CrmObjectType, request: CrmPageRequest): Promise<CrmPage> {
      const query = new URLSearchParams({ limit: String(Math.min(100, request.limit)) });
      if (request.after) query.set('after', request.after);
      query.set('properties', request.properties.join(','));
      query.set('archived', 'false');
      const body = (await get(`/crm/objects/${HUBSPOT_API_VERSION}/${type}`, query, type)) as {
        results?: unknown[];
        paging?: { next?: { after?: unknown } };
      };
      const records: CrmRecord[] = (body.results ?? []).flatMap((entry) => {
        const record = entry as { id?: unknown; properties?: Record<string, unknown>; updatedAt?: unknown };
        if (record.id === undefined || record.id === null) return [];
        const properties = Object.fromEntries(
          request.properties.map((name) => [name, text(record.properties?.[name])]),
        );
        return [{ id: String(record.id), properties, updatedAt: text(record.updatedAt) }];
      });
      return { records, next: text(body.paging?.next?.after), total: null };
    },
  };
}
