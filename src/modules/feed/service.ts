/**
 * The activity feed: writing entries (who, user or API key, did what to which record, with
 * before/after values of changed fields; many entries in one statement) and reading them.
 */
import { eq, ilike, type SQL } from 'drizzle-orm';
import { feedEntries, users } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { containsPattern, countOf, dateRange, listPage, pageOf, type ListParams } from '../../core/list';
import { isoTimestamp } from '../../core/schemas';

export interface FeedEntryInput {
  modelType: string;
  modelId: number;
  action: string;
  changes?: Record<string, { from: unknown; to: unknown }>;
}

export async function recordFeed(ctx: Pick<TenantContext, 'db' | 'orgId' | 'userId' | 'apiKeyId'>, entries: FeedEntryInput[]): Promise<void> {
  if (entries.length === 0) return;
  await ctx.db.insert(feedEntries).values(
    entries.map((entry) => ({
      organizationId: ctx.orgId,
      modelType: entry.modelType,
      modelId: entry.modelId,
      action: entry.action,
      changes: entry.changes ?? {},
      actorUserId: ctx.userId,
      actorApiKeyId: ctx.apiKeyId ?? null,
    })),
  );
}

/** Field-by-field differences between two snapshots (wire names), for `changes`. */
export function diffFields(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, { from: unknown; to: unknown }> {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of Object.keys(after)) {
    if (JSON.stringify(before[key] ?? null) !== JSON.stringify(after[key] ?? null)) changes[key] = { from: before[key] ?? null, to: after[key] ?? null };
  }
  return changes;
}

export async function listFeed(ctx: TenantContext, params: ListParams & { model_type?: string; model_id?: number }) {
  const where: SQL = tenantWhere(
    ctx,
    feedEntries,
    params.model_type ? eq(feedEntries.modelType, params.model_type) : undefined,
    params.model_id ? eq(feedEntries.modelId, params.model_id) : undefined,
    params.search_value ? ilike(feedEntries.action, containsPattern(params.search_value)) : undefined,
    dateRange(feedEntries.createdAt, params),
  );
  const page = await listPage({
    params,
    sortColumns: { id: feedEntries.id, created_at: feedEntries.createdAt },
    idColumn: feedEntries.id,
    where,
    fetch: (q) => pageOf(ctx.db.select({ entry: feedEntries, id: feedEntries.id, firstName: users.firstName, lastName: users.lastName, sortKey: q.sortKey }).from(feedEntries).leftJoin(users, eq(users.id, feedEntries.actorUserId)).$dynamic(), q),
    count: countOf(ctx.db, feedEntries),
  });
  return {
    ...page,
    rows: page.rows.map(({ entry, firstName, lastName }) => ({
      id: entry.id,
      model_type: entry.modelType,
      model_id: entry.modelId,
      action: entry.action,
      changes: entry.changes,
      actor_user_id: entry.actorUserId,
      actor_name: firstName ? [firstName, lastName].filter(Boolean).join(' ') : null,
      actor_api_key_id: entry.actorApiKeyId,
      created_at: isoTimestamp(entry.createdAt) as string,
    })),
  };
}
