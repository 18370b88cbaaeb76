/**
 * The activity feed: writing entries (who, user or API key, did what to which record, with
 * before/after values of changed fields; many entries in one statement) and reading them.
 */
import type { z } from '@hono/zod-openapi';
import { eq, ilike } from 'drizzle-orm';
import { feedEntries, users } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { containsPattern, defineList } from '../../core/list';
import { isoTimestamp } from '../../core/schemas';
import { feedListFilters } from './schemas';

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

export const feedList = defineList({
  sort: { id: feedEntries.id, created_at: feedEntries.createdAt },
  filters: feedListFilters,
  search: (term) => ilike(feedEntries.action, containsPattern(term)),
  createdAt: feedEntries.createdAt,
  // Unfiltered, the feed is every entry of the organization: its total is the live-row counter.
  counter: 'feed_entries',
  base: (ctx, params) => ({
    rows: (columns) =>
      ctx.db
        .select({ entry: feedEntries, firstName: users.firstName, lastName: users.lastName, ...columns })
        .from(feedEntries)
        .leftJoin(users, eq(users.id, feedEntries.actorUserId))
        .$dynamic(),
    where: tenantWhere(
      ctx,
      feedEntries,
      params.model_type ? eq(feedEntries.modelType, params.model_type) : undefined,
      params.model_id ? eq(feedEntries.modelId, params.model_id) : undefined,
    ),
  }),
});
export const FeedListQuery = feedList.query;

export async function listFeed(ctx: TenantContext, params: z.output<typeof FeedListQuery>) {
  const page = await feedList.run(ctx, params);
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
