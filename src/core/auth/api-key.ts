/**
 * API-key authentication for the ingestion routes (`x-api-key`): missing key 401; unknown,
 * revoked or expired key, or a caller IP / Origin host outside the key's allow-lists, 403; a key
 * without the route's scope (defineRoute's `scope`), 403 insufficient_scope, before the route
 * reads or writes anything.
 * A key is looked up by hash at most once a minute per isolate (api-key-cache.ts): a warm
 * isolate verifies it with no database round trip. When the key is accepted and the request
 * carries an Origin, that Origin is reflected in Access-Control-Allow-Origin: the key's domain
 * rules (or their absence) are what admit a browser caller (preflights: core/cors.ts).
 */
import { eq, sql } from 'drizzle-orm';
import type { Context, MiddlewareHandler, Next } from 'hono';
import { apiKeys, organizations } from '../../db/schema';
import { actorContext } from '../../db/tenant';
import type { AppEnv } from '../context';
import { CORS_EXPOSED_HEADERS } from '../cors';
import { runAsTenant } from '../database';
import { Forbidden, Unauthorized } from '../errors';
import { clientIp, countApiCall } from '../rate-limit';
import { type ApiKeyScope, type CachedApiKey, cachedApiKey, rememberApiKey } from './api-key-cache';
import { sha256Hex } from './api-key-secrets';
import { ipMatches } from './ip-allow-list';

const LAST_USED_RESOLUTION_MS = 60_000;

function callerHost(c: Context<AppEnv>): string | null {
  const source = c.req.header('origin') ?? c.req.header('referer');
  if (!source) return null;
  try {
    return new URL(source).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/** "example.com" allows example.com and its subdomains; "*.example.com" only subdomains. */
export function hostAllowed(host: string, allowed: string[]): boolean {
  return allowed.some((entry) => {
    const domain = entry.toLowerCase();
    if (domain.startsWith('*.')) return host.endsWith(domain.slice(1));
    return host === domain || host.endsWith(`.${domain}`);
  });
}

/**
 * The key of this hash: from the isolate's cache, else one database read (outside any tenant
 * scope). A key of an organization that is not active is no key, as its users' tokens are none:
 * like a revoked key, it stops within API_KEY_CACHE_TTL_MS on isolates that had it cached.
 */
async function lookUpKey(c: Context<AppEnv>, hash: string, now: number): Promise<CachedApiKey | null> {
  const cached = cachedApiKey(hash, now);
  if (cached !== undefined) return cached;
  const [found] = await c.var
    .database()
    .select({ key: apiKeys, organizationState: organizations.stateId })
    .from(apiKeys)
    .innerJoin(organizations, eq(organizations.id, apiKeys.organizationId))
    .where(eq(apiKeys.keyHash, hash));
  const row = found?.organizationState === 1 ? found.key : undefined;
  const key =
    row && !row.revokedAt
      ? {
          id: row.id,
          organizationId: row.organizationId,
          createdBy: row.createdBy,
          allowedDomains: row.allowedDomains,
          allowedIps: row.allowedIps,
          scopes: row.scopes,
          expiresAt: row.expiresAt?.getTime() ?? null,
          lastUsedAt: row.lastUsedAt?.getTime() ?? null,
        }
      : null;
  rememberApiKey(hash, key, now);
  return key;
}

/**
 * The API-key middleware of a route that requires `scope` (null: any key, for test probes). The
 * scope is checked from the looked-up (or cached) key, so it costs no round trip.
 */
export function apiKeyAuthFor(scope: ApiKeyScope | null): MiddlewareHandler<AppEnv> {
  return (c, next) => authenticate(c, next, scope);
}

/** The API-key middleware without a scope requirement (probe routes in tests). */
export const apiKeyAuth: MiddlewareHandler<AppEnv> = apiKeyAuthFor(null);

async function authenticate(c: Context<AppEnv>, next: Next, scope: ApiKeyScope | null): Promise<void> {
  const presented = c.req.header('x-api-key');
  if (!presented) throw new Unauthorized('Missing x-api-key header', 'missing_api_key');
  const now = Date.now();
  const key = await lookUpKey(c, await sha256Hex(presented.trim()), now);
  if (!key) throw new Forbidden('Invalid API key', 'invalid_api_key');
  if (key.expiresAt !== null && key.expiresAt <= now) throw new Forbidden('API key expired', 'api_key_expired');
  if (key.allowedIps.length > 0 && !key.allowedIps.some((entry) => ipMatches(clientIp(c), entry))) {
    throw new Forbidden('Calling IP address is not allowed for this API key', 'ip_not_allowed');
  }
  if (key.allowedDomains.length > 0) {
    const host = callerHost(c);
    if (!host || !hostAllowed(host, key.allowedDomains))
      throw new Forbidden('Calling domain is not allowed for this API key', 'domain_not_allowed');
  }
  if (scope !== null && !key.scopes.includes(scope)) {
    throw new Forbidden(`This API key lacks the ${scope} scope`, 'insufficient_scope');
  }
  const origin = c.req.header('origin');
  if (origin) {
    // Accepted by the key's domain rules (or a key without any): this page may read the answer.
    c.header('Access-Control-Allow-Origin', origin);
    c.header('Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS.join(','));
    c.header('Vary', 'Origin', { append: true });
  }
  c.set('logOrgId', key.organizationId);
  const count = countApiCall(c, key.organizationId, { apiKeyId: key.id });
  if (count.refusedBefore) await count.admission;
  // The scope statement checks nothing more (the key was checked above); it carries the route's
  // own first read when the route asked for one (c.var.scopeRead).
  const read = c.var.scopeRead;
  await runAsTenant<unknown>(
    c,
    next,
    key.organizationId,
    read ? sql`${read(key.organizationId)} as caller` : sql`null::json as caller`,
    (checked) => {
      if (read) c.set('scopeReadResult', checked);
      return actorContext({ kind: 'apiKey', keyId: key.id, createdBy: key.createdBy });
    },
    { admission: count.admission },
  );
  // At most once a minute per key and isolate, after the answer: the stamp is never on the response path.
  if (key.lastUsedAt === null || now - key.lastUsedAt > LAST_USED_RESOLUTION_MS) {
    key.lastUsedAt = now;
    c.var.holdDatabaseUntil(
      c.var
        .database()
        .update(apiKeys)
        .set({ lastUsedAt: sql`now()` })
        .where(eq(apiKeys.id, key.id))
        .execute()
        .catch(() => undefined),
    );
  }
}
