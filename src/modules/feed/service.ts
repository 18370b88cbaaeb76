/**
 * Writing activity-feed entries: who (user or API key) did what to which record, with
 * before/after values of changed fields. Many entries go in one statement.
 */
import { feedEntries } from '../../db/schema';
import type { TenantContext } from '../../db/tenant';

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
