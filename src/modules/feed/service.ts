/**
 * The activity feed: writing entries (who, user or API key, did what to which record, with
 * before/after values of changed fields) through one writer, `feedEntriesFrom`, for single and
 * set-based writes alike (many entries in one statement), and reading them.
 */
import { and, type ColumnsSelection, eq, getTableName, ilike, sql, type SQL } from 'drizzle-orm';
import type { TypedQueryBuilder } from 'drizzle-orm/query-builders/query-builder';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Database, Queryable } from '../../db/client';
import { bare } from '../../db/sql-names';
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

/**
 * A feed entry's `changes` built in SQL from a row a statement wrote (for `feedEntriesFrom`'s
 * `changes`): `{field: {from, to}}` for every field given, a side left out being null.
 */
export function changesSql(fields: Record<string, { from?: SQL; to?: SQL }>): SQL {
  const parts = Object.entries(fields).map(
    ([field, { from, to }]) =>
      sql`${field}::text, jsonb_build_object('from', ${from ?? sql`null`}, 'to', ${to ?? sql`null`})`,
  );
  return sql`jsonb_build_object(${sql.join(parts, sql`, `)})`;
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

/** A record's fields as `[wire name, column]` pairs, e.g. a field table's writable columns. */
export type FeedFields = readonly (readonly [string, PgColumn])[];

/**
 * `{field: value}` of one row as jsonb, each field read by its column's name from `row` (a table,
 * or a CTE returning the table's columns): the snapshot `changedFieldsSql` compares.
 */
export function fieldValuesSql(row: string, fields: FeedFields): SQL {
  const pairs = fields.map(([wire, column]) => sql`${wire}::text, ${sql.identifier(row)}.${bare(column)}`);
  return sql`jsonb_build_object(${sql.join(pairs, sql`, `)})`;
}

/**
 * `changes` of a write in SQL: `{field: {from, to}}` of the fields whose value differs between two
 * `{field: value}` jsonb snapshots (a field absent from `before` was null), `{}` when none did.
 * `before` null: a creation, listing the fields it gave a value (not null, not an empty list).
 */
export function changedFieldsSql(before: SQL | null, after: SQL): SQL {
  const was = before ? sql`coalesce(${before} -> a.key, 'null'::jsonb)` : sql`'null'::jsonb`;
  const differs = before ? sql`a.value is distinct from ${was}` : sql`a.value not in ('null'::jsonb, '[]'::jsonb)`;
  return sql`(select coalesce(jsonb_object_agg(a.key, jsonb_build_object('from', ${was}, 'to', a.value)), '{}'::jsonb)
    from jsonb_each(${after}) as a where ${differs})`;
}

/** A record's table with its id column, and the fields its feed entries compare. */
export interface FeedRecord {
  table: PgTable & { id: PgColumn };
  modelType: string;
  fields: FeedFields;
}

/**
 * An insert of records that writes their `created` entries (each field given a value, from null)
 * in the same statement: `select … from (insert … returning …)`, the entries a CTE beside it.
 * Answers the inserted rows as `insert.returning(selection)` would.
 */
export async function insertWithFeed<S extends Record<string, unknown>>(
  db: Queryable,
  ctx: FeedActor,
  record: FeedRecord,
  insert: TypedQueryBuilder<ColumnsSelection, S[]>,
): Promise<S[]> {
  const inserted = db.$with('inserted').as(insert as unknown as TypedQueryBuilder<ColumnsSelection>);
  const feed = db.$with('feed', {}).as(
    feedEntriesFrom(ctx, {
      from: sql`inserted`,
      modelType: record.modelType,
      modelId: sql`inserted.id`,
      action: 'created',
      changes: changedFieldsSql(null, fieldValuesSql('inserted', record.fields)),
    }),
  );
  return (await db.with(inserted, feed).select().from(inserted)) as unknown as S[];
}

/**
 * An update of one record (`where` selects it) that writes its `updated` entry in the same
 * statement: the fields that changed, from/to, and no entry when none did. The record is locked
 * and read first (a change committed meanwhile is the `from`), the update returns it as it now
 * reads, and the entry compares the two. Answers the updated row as `returning(selection)` would.
 * `returning` must select the record's fields (the entry compares them on the update's RETURNING).
 * `action` names who changed it when it was not a person's edit (`enriched`: an enrichment's fills).
 */
export async function updateWithFeed<S extends Record<string, unknown>>(
  db: Queryable,
  ctx: FeedActor,
  record: FeedRecord,
  change: { where: SQL; set: Record<string, unknown>; returning: ColumnsSelection; action?: string },
): Promise<S[]> {
  const { table } = record;
  const name = getTableName(table);
  const locked = db.$with('locked', {}).as(
    sql`select ${table.id} as id, ${fieldValuesSql(name, record.fields)} as before from ${table}
      where ${change.where} for no key update`,
  );
  const update = (db as Database)
    .update(table as unknown as typeof feedEntries)
    .set(change.set as never)
    .where(and(change.where, sql`${table.id} in (select id from locked)`))
    .returning(change.returning as never);
  const updated = db.$with('updated').as(update as unknown as TypedQueryBuilder<ColumnsSelection>);
  const feed = db.$with('feed', {}).as(
    feedEntriesFrom(ctx, {
      from: sql`(select updated.id, ${changedFieldsSql(sql`locked.before`, fieldValuesSql('updated', record.fields))} as changes
        from updated cross join locked) as c where c.changes <> '{}'::jsonb`,
      modelType: record.modelType,
      modelId: sql`c.id`,
      action: change.action ?? 'updated',
      changes: sql`c.changes`,
    }),
  );
  return (await db.with(locked, updated, feed).select().from(updated)) as unknown as S[];
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
