/**
 * API-key authentication for the ingestion routes (`x-api-key`): missing key 401; unknown,
 * revoked or expired key, or a caller IP / Origin host outside the key's allow-lists, 403.
 */
import { eq, sql } from 'drizzle-orm';
import type { Context, MiddlewareHandler } from 'hono';
import { apiKeys } from '../../db/schema';
import { actorContext } from '../../db/tenant';
import type { AppEnv } from '../context';
import { runAsTenant } from '../database';
import { Forbidden, Unauthorized } from '../errors';
import { clientIp, limitApiCalls } from '../rate-limit';
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

export const apiKeyAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  const presented = c.req.header('x-api-key');
  if (!presented) throw new Unauthorized('Missing x-api-key header', 'missing_api_key');
  const db = c.var.database();
  // Looked up by hash before any organization is known, so outside the tenant scope.
  const [key] = await db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.keyHash, await sha256Hex(presented.trim())));
  const now = Date.now();
  if (!key || key.revokedAt) throw new Forbidden('Invalid API key', 'invalid_api_key');
  if (key.expiresAt && key.expiresAt.getTime() <= now) throw new Forbidden('API key expired', 'api_key_expired');
  if (key.allowedIps.length > 0 && !key.allowedIps.some((entry) => ipMatches(clientIp(c), entry))) {
    throw new Forbidden('Calling IP address is not allowed for this API key', 'ip_not_allowed');
  }
  if (key.allowedDomains.length > 0) {
    const host = callerHost(c);
    if (!host || !hostAllowed(host, key.allowedDomains))
      throw new Forbidden('Calling domain is not allowed for this API key', 'domain_not_allowed');
  }
  c.set('logOrgId', key.organizationId);
  await limitApiCalls(c, key.organizationId);
  // The scope statement checks nothing more: the key was checked above.
  await runAsTenant(c, next, key.organizationId, sql`null::json as caller`, () =>
    actorContext({ kind: 'apiKey', keyId: key.id, createdBy: key.createdBy }),
  );
  // At most once a minute per key, so the usage stamp costs no round trip on most requests.
  if (!key.lastUsedAt || now - key.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await db.update(apiKeys).set({ lastUsedAt: sql`now()` }).where(eq(apiKeys.id, key.id));
  }
};
