/**
 * The activity feed: writing entries (who, user or API key, did what to which record, with
 * before/after values of changed fields) through one writer, `feedEntriesFrom`, for single and
 * set-based writes alike (many entries in one statement), and reading them.
 */
import { eq, ilike, sql, type SQL } from 'drizzle-orm';
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

/** Who wrote the entries: the request's user or API key, in its organization. */
export type FeedActor = Pick<TenantContext, 'orgId' | 'userId' | 'apiKeyId'>;

/** Entries as rows of a FROM item (a CTE's name, a subquery or a set-returning function, with its alias). */
export interface FeedRows {
  from: SQL;
  modelType: string | SQL;
  modelId: SQL;
  action: string | SQL;
  /** `{field: {from, to}}` as jsonb per row; `{}` when absent. */
  changes?: SQL;
}

/**
 * The one writer of feed entries: `insert into feed_entries … select … from <rows>`, one entry
 * per row, the actor taken from the context. Run it alone or embed it in a data-modifying CTE
 * (`…, feed as (<this>) select …`, `from` naming an earlier CTE), so a set-based write records
 * its entries in the same statement.
 */
export function feedEntriesFrom(ctx: FeedActor, rows: FeedRows): SQL {
  return sql`insert into ${feedEntries} (organization_id, model_type, model_id, action, actor_user_id, actor_api_key_id, changes)
    select ${ctx.orgId}::bigint, ${rows.modelType}::text, ${rows.modelId}, ${rows.action}::text, ${ctx.userId}::bigint, ${ctx.apiKeyId ?? null}::bigint,
      ${rows.changes ?? sql`'{}'::jsonb`}
    from ${rows.from}`;
}

/** Entries known in TypeScript as one `feedEntriesFrom` statement, to run alone or after a data-modifying CTE. */
export function feedEntriesOf(ctx: FeedActor, entries: FeedEntryInput[]): SQL {
  const rows = entries.map((entry) => ({
    model_type: entry.modelType,
    model_id: entry.modelId,
    action: entry.action,
    changes: entry.changes ?? {},
  }));
  return feedEntriesFrom(ctx, {
    from: sql`jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as e(model_type text, model_id bigint, action text, changes jsonb)`,
    modelType: sql`e.model_type`,
    modelId: sql`e.model_id`,
    action: sql`e.action`,
    changes: sql`e.changes`,
  });
}

/** Entries known in TypeScript, in one statement (through `feedEntriesFrom`). */
export async function recordFeed(
  ctx: Pick<TenantContext, 'db' | 'orgId' | 'userId' | 'apiKeyId'>,
  entries: FeedEntryInput[],
): Promise<void> {
  if (entries.length === 0) return;
  await ctx.db.execute(feedEntriesOf(ctx, entries));
}

/** Field-by-field differences between two snapshots (wire names), for `changes`. */
export function diffFields(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): Record<string, { from: unknown; to: unknown }> {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of Object.keys(after)) {
    if (JSON.stringify(before[key] ?? null) !== JSON.stringify(after[key] ?? null))
      changes[key] = { from: before[key] ?? null, to: after[key] ?? null };
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
  // Pages in id order read the organization's own ids (feed_entries_organization_id_order_idx; migration 0078).
  tenantIdOrder: true,
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
  present: ({ entry, firstName, lastName }) => ({
    id: entry.id,
    model_type: entry.modelType,
    model_id: entry.modelId,
    action: entry.action,
    changes: entry.changes,
    actor_user_id: entry.actorUserId,
    actor_name: firstName ? [firstName, lastName].filter(Boolean).join(' ') : null,
    actor_api_key_id: entry.actorApiKeyId,
    created_at: isoTimestamp(entry.createdAt) as string,
  }),
});
export const FeedListQuery = feedList.query;

export const listFeed = feedList.run;
