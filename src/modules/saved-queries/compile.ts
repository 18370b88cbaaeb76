/**
 * A saved query's definition, checked against its module (every unknown name is a 422 naming
 * it) and compiled to ONE parameterised statement: identifiers only from the module's
 * allow-lists (modules.ts), every value bound.
 */
import { and, sql, type SQL } from 'drizzle-orm';
import { type FieldIssue, ValidationFailed } from '../../core/errors';
import { dateRange } from '../../core/list';
import type { TenantContext } from '../../db/tenant';
import { queryModules, type QueryModule, type QueryModuleName } from './modules';
import type { QueryDefinitionValue } from './schemas';

export interface CheckedQuery {
  module: QueryModule;
  definition: QueryDefinitionValue;
  filters: Record<string, unknown>;
}

/** The zod issues of a filter object, as field issues under `prefix` (unknown keys named one by one). */
function filterIssues(module: QueryModule, filters: Record<string, unknown>, prefix: string) {
  const parsed = module.filters.safeParse(filters);
  if (parsed.success) return { issues: [] as FieldIssue[], value: parsed.data };
  const issues: FieldIssue[] = [];
  for (const issue of parsed.error.issues) {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [issue.path.map(String).join('.')];
    for (const key of keys)
      issues.push({
        field: key ? `${prefix}.${key}` : prefix,
        message: issue.code === 'unrecognized_keys' ? 'is not a filter of this module' : issue.message,
      });
  }
  return { issues, value: {} };
}

const allowed = (names: Record<string, unknown>) =>
  Object.keys(names).length > 0 ? `must be one of ${Object.keys(names).join(', ')}` : 'this module has none';

/**
 * Checks the definition (and, at execution, filter overrides merged over its filters); throws a
 * 422 listing every bad name. `prefix` is where the definition sits in the request body.
 */
export function checkQuery(
  definition: QueryDefinitionValue,
  prefix = 'definition',
  overrides?: { filters?: Record<string, unknown>; prefix: string },
): CheckedQuery {
  // Own keys only: `constructor` or `__proto__` is in every object, and no field of any module.
  const module = Object.hasOwn(queryModules, definition.module)
    ? queryModules[definition.module as QueryModuleName]
    : undefined;
  if (!module) throw ValidationFailed.field(`${prefix}.module`, allowed(queryModules));
  const issues: FieldIssue[] = [];
  const saved = filterIssues(module, definition.filters ?? {}, `${prefix}.filters`);
  issues.push(...saved.issues);
  let filters = saved.value as Record<string, unknown>;
  if (overrides?.filters) {
    const merged = filterIssues(module, { ...(definition.filters ?? {}), ...overrides.filters }, overrides.prefix);
    issues.push(...merged.issues);
    filters = merged.value as Record<string, unknown>;
  }
  const { metric, group_by: groupBy, bucket } = definition;
  if (metric.op === 'count' && metric.field !== undefined)
    issues.push({ field: `${prefix}.metric.field`, message: 'count takes no field' });
  if (metric.op !== 'count' && (metric.field === undefined || !Object.hasOwn(module.numbers, metric.field)))
    issues.push({ field: `${prefix}.metric.field`, message: allowed(module.numbers) });
  if (groupBy != null && !Object.hasOwn(module.groups, groupBy))
    issues.push({ field: `${prefix}.group_by`, message: allowed(module.groups) });
  if (bucket != null && !Object.hasOwn(module.dates, bucket.field))
    issues.push({ field: `${prefix}.bucket.field`, message: allowed(module.dates) });
  if (issues.length > 0) throw new ValidationFailed(issues);
  return { module, definition, filters };
}

function aggregate({ module, definition }: CheckedQuery): SQL {
  const { op, field } = definition.metric;
  if (op === 'count') return sql`count(*)::int`;
  const column = module.numbers[field as string];
  if (op === 'sum') return sql`coalesce(sum(${column}), 0)::float8`;
  return sql`round(avg(${column})::numeric, 2)::float8`;
}

/** What one statement reads: the module's rows, or its rollup when the rollup holds the query. */
interface Source {
  from: SQL;
  where: SQL;
  value: SQL;
  group?: SQL;
  /** The bucketed date as a UTC timestamp, when the definition buckets. */
  bucket?: SQL;
  /** Rollup rows may sum to nothing: such groups are left out, as the rows they stand for are gone. */
  having?: SQL;
}

/** start_date/end_date bound the bucketed date, else creation. */
function rangeOf(column: SQL, definition: QueryDefinitionValue, range: { start_date?: string; end_date?: string }) {
  return and(definition.bucket ? sql`${column} is not null` : undefined, dateRange(column, range));
}

/**
 * The first of the module's rollups that holds everything the query asks (its metric, filters,
 * group, bucket and date range): the same numbers from rows that grow with keys, not with records.
 */
function rollupSource(ctx: TenantContext, query: CheckedQuery, range: { start_date?: string; end_date?: string }) {
  const { module, definition } = query;
  const { op, field } = definition.metric;
  for (const rollup of module.rollups ?? []) {
    if (op !== 'count' && !(field !== undefined && Object.hasOwn(rollup.sums, field))) continue;
    if (definition.group_by != null && !Object.hasOwn(rollup.groups, definition.group_by)) continue;
    if (definition.bucket && !Object.hasOwn(rollup.dates, definition.bucket.field)) continue;
    const dateColumn = definition.bucket ? rollup.dates[definition.bucket.field] : rollup.createdAt;
    if (dateColumn === null && (range.start_date !== undefined || range.end_date !== undefined)) continue;
    const filtered = rollup.where(ctx, query.filters);
    if (filtered === null) continue;
    const summed = op === 'count' ? undefined : rollup.sums[field as string];
    // The scan's aggregate (see `aggregate`) over the records the rows stand for.
    const value =
      summed === undefined
        ? sql`coalesce(sum(${rollup.delta}), 0)::int`
        : op === 'sum'
          ? sql`coalesce(sum(${summed}), 0)::float8`
          : sql`round(sum(${summed})::numeric / nullif(sum(${rollup.delta}), 0), 2)::float8`;
    return {
      from: rollup.from,
      where: (dateColumn === null ? filtered : and(filtered, rangeOf(dateColumn, definition, range))) as SQL,
      value,
      group: definition.group_by != null ? rollup.groups[definition.group_by] : undefined,
      // A UTC day already: midnight of it, whatever the session's time zone.
      bucket: definition.bucket && dateColumn !== null ? sql`(${dateColumn})::timestamp` : undefined,
      having: sql`sum(${rollup.delta}) <> 0`,
    } satisfies Source;
  }
  return null;
}

function sourceOf(ctx: TenantContext, query: CheckedQuery, range: { start_date?: string; end_date?: string }): Source {
  const rolled = rollupSource(ctx, query, range);
  if (rolled) return rolled;
  const { module, definition } = query;
  const dateColumn = definition.bucket ? module.dates[definition.bucket.field] : module.createdAt;
  return {
    from: module.from,
    where: and(module.where(ctx, query.filters), rangeOf(dateColumn, definition, range)) as SQL,
    value: aggregate(query),
    group: definition.group_by != null ? module.groups[definition.group_by].key : undefined,
    bucket: definition.bucket ? sql`(${dateColumn})::timestamptz at time zone 'UTC'` : undefined,
  };
}

/** At most this many result rows; the answer says when there were more. */
export const MAX_RESULT_ROWS = 1000;

export type ResultRow = {
  label: string | null;
  bucket: string | null;
  value: number | null;
};

/** One statement: the metric over every matching row (the number widget ignores groups and buckets). */
export function totalStatement(
  ctx: TenantContext,
  query: CheckedQuery,
  range: { start_date?: string; end_date?: string },
) {
  // The total ignores the group, so a rollup need not hold it (the bucket's date still bounds the range).
  const source = sourceOf(ctx, { ...query, definition: { ...query.definition, group_by: undefined } }, range);
  return sql`select ${source.value} as value from ${source.from} where ${source.where}`;
}

/**
 * One statement: the metric per group and/or bucket. Rows are grouped by the raw key first and
 * labelled after (a lookup per group, not per row); buckets are the UTC start day of the period.
 */
export function groupedStatement(
  ctx: TenantContext,
  query: CheckedQuery,
  range: { start_date?: string; end_date?: string },
) {
  const { module, definition } = query;
  const source = sourceOf(ctx, query, range);
  const group = definition.group_by != null ? module.groups[definition.group_by] : undefined;
  const key = source.group ?? sql`null::text`;
  const bucketKey =
    definition.bucket && source.bucket
      ? sql`date_trunc(${definition.bucket.unit}, ${source.bucket})`
      : sql`null::timestamp`;
  const label = group?.label ? group.label(ctx) : sql.raw('g.k::text');
  const having = source.having ? sql` having ${source.having}` : sql``;
  // Periods are formatted once per group, not once per row.
  return sql`select ${label} as label, to_char(g.bucket, 'YYYY-MM-DD') as bucket, g.value from (
      select ${key} as k, ${bucketKey} as bucket, ${source.value} as value
      from ${source.from} where ${source.where} group by 1, 2${having}
    ) g order by g.bucket asc nulls last, g.value desc nulls last, 1 asc nulls last
    limit ${MAX_RESULT_ROWS + 1}`;
}

/** The name of the metric column: count, sum_value, avg_score… */
export function metricName(definition: QueryDefinitionValue): string {
  return definition.metric.op === 'count' ? 'count' : `${definition.metric.op}_${definition.metric.field}`;
}
