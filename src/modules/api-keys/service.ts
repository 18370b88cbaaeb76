/**
 * API keys for the ingestion routes: created by admins (routes.ts declares who), shown in plaintext once, stored as a
 * SHA-256 hash, optionally restricted to domains and IP ranges and to scopes (what they may call), revoked by delete.
 */
import { and, eq, ilike, isNull, sql } from 'drizzle-orm';
import { apiKeys } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { API_KEY_SCOPES, type ApiKeyScope, forgetApiKey } from '../../core/auth/api-key-cache';
import { generateApiKey } from '../../core/auth/api-key-secrets';
import { NotFound } from '../../core/errors';
import { containsPattern, defineList } from '../../core/list';
import { isoTimestamp } from '../../core/schemas';
import type { AddApiKeyInput } from './schemas';

const keyFields = {
  id: apiKeys.id,
  name: apiKeys.name,
  prefix: apiKeys.prefix,
  allowedDomains: apiKeys.allowedDomains,
  allowedIps: apiKeys.allowedIps,
  scopes: apiKeys.scopes,
  expiresAt: apiKeys.expiresAt,
  lastUsedAt: apiKeys.lastUsedAt,
  createdAt: apiKeys.createdAt,
};
type KeyRow = {
  id: number;
  name: string;
  prefix: string;
  allowedDomains: string[];
  allowedIps: string[];
  scopes: string[];
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  createdAt: Date;
};

function presentKey(row: KeyRow) {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    allowed_domains: row.allowedDomains,
    allowed_ips: row.allowedIps,
    scopes: row.scopes as ApiKeyScope[],
    expires_at: isoTimestamp(row.expiresAt),
    last_used_at: isoTimestamp(row.lastUsedAt),
    created_at: isoTimestamp(row.createdAt) as string,
  };
}

export async function createApiKey(ctx: TenantContext, input: AddApiKeyInput) {
  const secret = await generateApiKey();
  const [row] = await ctx.db
    .insert(apiKeys)
    .values({
      organizationId: ctx.orgId,
      name: input.name,
      prefix: secret.prefix,
      keyHash: secret.hash,
      allowedDomains: input.allowed_domains ?? [],
      allowedIps: input.allowed_ips ?? [],
      // In alphabetical order, as the default (both) is stored.
      scopes: [...(input.scopes ?? API_KEY_SCOPES)].sort(),
      expiresAt: input.expires_at ? new Date(input.expires_at) : null,
      createdBy: ctx.userId,
    })
    .returning(keyFields);
  return { ...presentKey(row), key: secret.key };
}

export const apiKeyList = defineList({
  sort: { id: apiKeys.id, name: apiKeys.name, created_at: apiKeys.createdAt },
  search: (term) => ilike(apiKeys.name, containsPattern(term)),
  createdAt: apiKeys.createdAt,
  base: (ctx) => ({
    rows: (columns) =>
      ctx.db
        .select({ ...keyFields, ...columns })
        .from(apiKeys)
        .$dynamic(),
    where: tenantWhere(ctx, apiKeys, isNull(apiKeys.revokedAt)),
  }),
  present: (row) => presentKey(row),
});
export const ApiKeyListQuery = apiKeyList.query;

export const listApiKeys = apiKeyList.run;

export async function revokeApiKey(ctx: TenantContext, id: number): Promise<void> {
  const revoked = await ctx.db
    .update(apiKeys)
    .set({ revokedAt: sql`now()` })
    .where(tenantWhere(ctx, apiKeys, and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt))))
    .returning({ id: apiKeys.id });
  if (revoked.length === 0) throw new NotFound('API key', id);
  // Dropped from this isolate's cache now, and again once the revocation has committed: a request
  // here in between still reads the key's committed row, not yet revoked, and caches it for
  // API_KEY_CACHE_TTL_MS. Other isolates stop accepting it when their cache entry expires
  // (core/auth/api-key-cache.ts).
  forgetApiKey(id);
  ctx.effects?.afterCommit(async () => forgetApiKey(id));
}
