/**
 * Every list of the API is one `defineList({ sort, filters, search, createdAt, counter?, base, present? })`.
 * From that single definition come both the query schema (the standard parameters, the
 * `order_by` allow-list written once as the keys of `sort`, the module's filters) and the runner,
 * which fetches the page and its total from the SAME rows and WHERE in ONE statement:
 *   - a cursor page carries the total of its first page forward (it is inside the cursor);
 *   - an unfiltered list with a `counter` reads the organization's live-row counter (list-total.ts),
 *     and one whose only filter is a search counts the search's own matches (`searchTotal`);
 *   - any other list counts exactly up to a bound (10 000) and beyond it answers the planner's
 *     estimate with `totalIsEstimate`, so no page costs more than the bound, whatever the size.
 * `order_by` values come only from `sort`, so user input never reaches SQL as an identifier.
 * `present` turns each selected row into its wire form, so a list route answers `run`'s page as is.
 */
import { z } from '@hono/zod-openapi';
import { and, Column, getTableName, is, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { PgDialect, type PgSelect } from 'drizzle-orm/pg-core';
import type { Queryable } from '../db/client';
import type { TenantContext } from '../db/tenant';
import type { Page } from './http';
import { BadRequest } from './errors';
import { dateInput } from './schemas';
import { decodeCursor, encodeCursor } from './list-cursor';
import {
  boundedCount,
  countAlone,
  counterTotal,
  EXACT_TOTAL_UP_TO,
  plannerEstimate,
  type TotalPlan,
} from './list-total';

export { EXACT_TOTAL_UP_TO } from './list-total';
export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 10;

const isoDate = dateInput();

export const listParamsShape = {
  page: z.coerce.number().int().min(1).max(1_000_000).default(1).openapi({
    description:
      'Page number (1-based). Deep pages are slow (the rows before them are read and skipped): use `cursor` to walk far',
  }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .default(DEFAULT_PAGE_SIZE)
    .transform((value) => Math.min(value, MAX_PAGE_SIZE))
    .openapi({
      description: `Items per page; values above ${MAX_PAGE_SIZE} are capped at ${MAX_PAGE_SIZE}`,
      type: 'integer',
    }),
  search_value: z.string().trim().max(200).optional().openapi({ description: 'Free-text search' }),
  order_in: z
    .string()
    .max(4)
    .transform((value) => value.toUpperCase())
    .pipe(z.enum(['ASC', 'DESC']))
    .default('DESC')
    .openapi({
      description: 'Sort direction: ASC or DESC (any letter case is accepted)',
      type: 'string',
      enum: ['ASC', 'DESC', 'asc', 'desc'],
      default: 'DESC',
    }),
  start_date: isoDate.optional().openapi({ description: 'Created on or after this date' }),
  end_date: isoDate.optional().openapi({ description: 'Created on or before this date (inclusive day)' }),
  cursor: z
    .string()
    .max(512)
    .optional()
    .openapi({ description: 'Opaque keyset cursor from a previous next_cursor; when given, page is ignored' }),
};

/** `created_at` within [start_date, end_date], end date inclusive of its whole day. */
export function dateRange(column: SQLWrapper, params: { start_date?: string; end_date?: string }): SQL | undefined {
  const parts: SQL[] = [];
  if (params.start_date) parts.push(sql`${column} >= ${params.start_date}::date`);
  if (params.end_date) parts.push(sql`${column} < (${params.end_date}::date + 1)`);
  return parts.length ? and(...parts) : undefined;
}

/** The day ranges a list filter may hold: each pair's first day must not be after its last. */
const DAY_RANGES = [
  ['start_date', 'end_date'],
  ['created_from', 'created_to'],
  ['from_date', 'to_date'],
] as const;

/** The first day range of `values` that ends before it starts (days compare as YYYY-MM-DD text). */
export function invertedDayRange(values: Record<string, unknown>): { field: string; message: string } | undefined {
  for (const [from, to] of DAY_RANGES) {
    const first = values[from];
    const last = values[to];
    if (typeof first === 'string' && typeof last === 'string' && first > last)
      return { field: from, message: `must not be after ${to}` };
  }
  return undefined;
}

/**
 * 400 naming `start_date` (or `created_from`) for a range that ends before it starts: it matches
 * nothing, so a list (or the statistics of one) says so rather than answer an empty page, as the
 * analytics do. Filter objects in bodies (saved views, bulk actions, exports, saved queries) refuse
 * the same ranges with a 422 (`refineDayRanges`).
 */
export function checkDateRange(params: object): void {
  const inverted = invertedDayRange(params as Record<string, unknown>);
  if (inverted) throw new BadRequest(`${inverted.field}: ${inverted.message}`, inverted.field);
}

/** The same rule inside a zod schema: an issue at `path` + the range's first field. */
export function refineDayRanges(values: object, ctx: z.RefinementCtx, path: (string | number)[] = []): void {
  const inverted = invertedDayRange(values as Record<string, unknown>);
  if (inverted) ctx.addIssue({ code: 'custom', path: [...path, inverted.field], message: inverted.message });
}

/** An ILIKE pattern matching `term` anywhere, with LIKE wildcards in the term escaped. */
export function containsPattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/** Columns the runner adds to the module's selection: select them as given (`{ ...fields, ...columns }`). */
export interface ListColumns {
  sortKey: SQL<string>;
  sortId: SQL<number>;
  total: SQL<number | null>;
}

/** Sort keys: `order_by` value → a NON-NULL SQL expression (coalesce nullable columns); `id` breaks ties. */
export type ListSort = { id: SQLWrapper } & Record<string, SQLWrapper>;

/** Where `base.rows` starts its select: `ctx.db`, or the same with the search's matches as a CTE. */
export type ListSelectStart = Pick<Queryable, 'select'>;

type OrderBy<S extends ListSort> = z.ZodDefault<z.ZodEnum<{ [K in keyof S & string]: K }>>;
export type ListQuerySchema<S extends ListSort, F extends z.ZodRawShape> = z.ZodObject<
  typeof listParamsShape & { order_by: OrderBy<S> } & F
>;
export type ListQueryParams<S extends ListSort, F extends z.ZodRawShape> = z.output<ListQuerySchema<S, F>>;

export interface ListDefinition<S extends ListSort, F extends z.ZodRawShape, Q extends PgSelect, V> {
  /** The `order_by` allow-list, written once: its first key is the default. */
  sort: S;
  /** The module's own query parameters (zod), beyond the standard ones. Any of them given makes the list "filtered". */
  filters?: F;
  /** What `search_value` matches. Every list has one, so no list silently ignores the parameter. */
  search: (term: string, ctx: TenantContext) => SQL | undefined;
  /** The column `start_date`/`end_date` bound. */
  createdAt: SQLWrapper;
  /**
   * The relation whose live-row counter (live_row_counts) is exactly this list's unfiltered
   * total: only when `base(ctx, {})`'s WHERE keeps every live row of the organization and no more,
   * or those rows but the ones `counterExcess` counts.
   */
  counter?: string;
  /**
   * With `counter`: how many of the rows the counter counts the list does not show (a scalar SQL
   * count in the organization, exact, whose cost follows the few rows it counts, never the
   * organization's size). The unfiltered total is the counter less it, in the page's statement.
   * The call list leaves out the calls of deleted leads and contacts this way.
   */
  counterExcess?: (ctx: TenantContext) => SQL<number>;
  /**
   * With `counter`: the ids (one column, the `sort.id` of the rows) of the rows `search_value` alone
   * matches among those live rows, from the search's own index path. When the search is the list's
   * only filter, the statement computes them once, as a CTE (`search_matches`) that both the total
   * (counting it, bounded) and the page (`sort.id in` it, instead of `search`) read. Counting the
   * page's select instead joins every row of the organization to the matches, and a second scan of
   * the search's index doubles its cost (a search matching 2 % of 100 000 leads, issue 17).
   * A list with `searchTotal` must build `base.rows` on the `db` it is given.
   */
  searchTotal?: (term: string, ctx: TenantContext) => PgSelect;
  /**
   * The table has an index `(organization_id, id desc nulls last)` over the rows `base` keeps: a
   * page sorted by id then orders `id desc nulls last` (or `asc nulls first`), which that index
   * gives and the primary key cannot, so the page is read in the organization's own id order
   * (ids are never null; the placement only chooses the index). Without it the planner may walk
   * the primary key with the organization as a filter, through every other organization's ids on
   * the way, when its estimate says the organization is a large share of the table (issue 17).
   */
  tenantIdOrder?: boolean;
  /**
   * The rows and the scope: `rows` builds `ctx.db.select({ ...fields, ...columns }).from(…).join(…).$dynamic()`
   * WITHOUT where/order/limit (the runner adds them); `where` holds the tenant scope and the module's filters.
   * The page and its total both come from exactly this select and WHERE.
   */
  base: (
    ctx: TenantContext,
    params: ListQueryParams<S, F>,
  ) => {
    rows: (columns: ListColumns, db: ListSelectStart) => Q;
    where: SQL | undefined;
    /**
     * What the bounded total counts, when cheaper than `rows` and matched by the same WHERE: the
     * base table without joins that compute per-row values (a lateral the planner cannot drop).
     */
    countRows?: () => PgSelect;
  };
  /** A selected row (without the runner's columns) in its wire form; absent: the rows as selected. */
  present?: (row: NoInfer<ListRow<Q>>) => V;
}

export interface ListRunOptions {
  /** Exact totals up to this many rows; beyond, the planner's estimate (tests lower it). */
  exactUpTo?: number;
  /** Scope from the path rather than the query (e.g. GET /api/lead/import/{id}/rows: the job id), ANDed into the WHERE of page and total. */
  where?: SQL;
}

export type ListRow<Q extends PgSelect> = Omit<Q['_']['result'][number], keyof ListColumns>;

export interface DefinedList<S extends ListSort, F extends z.ZodRawShape, V> {
  query: ListQuerySchema<S, F>;
  run(ctx: TenantContext, params: ListQueryParams<S, F>, options?: ListRunOptions): Promise<Page<V>>;
}

const STANDARD_FILTERS = ['search_value', 'start_date', 'end_date'] as const;
const NO_COLUMNS: ListColumns = { sortKey: sql`null`, sortId: sql`null`, total: sql`null` };
const dialect = new PgDialect();

/** A short, stable digest of `text` (53 bits, cyrb53): a cursor's fingerprint, not a secret. */
function digest(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/**
 * The walk a cursor belongs to: the organization, the list (its table, sort keys and filters),
 * the values of its filters and the scope its route adds from the path (`options.where`). A
 * cursor used anywhere else, on another list, with other filters or by another organization,
 * is a 400: its position and the total it carries belong to another set of rows.
 */
function listScope(
  identity: string,
  orgId: number,
  filterKeys: readonly string[],
  values: Record<string, unknown>,
  where: SQL | undefined,
): string {
  const path = where ? dialect.sqlToQuery(where) : null;
  return digest(JSON.stringify([identity, String(orgId), filterKeys.map((key) => values[key] ?? null), path]));
}

export function defineList<const S extends ListSort, Q extends PgSelect, F extends z.ZodRawShape = {}, V = ListRow<Q>>(
  definition: ListDefinition<S, F, Q, V>,
): DefinedList<S, F, V> {
  const sortKeys = Object.keys(definition.sort) as [keyof S & string, ...(keyof S & string)[]];
  const filterKeys = [...STANDARD_FILTERS, ...Object.keys(definition.filters ?? {})];
  const createdAt = definition.createdAt;
  const identity = [
    is(createdAt, Column) ? `${getTableName(createdAt.table)}.${createdAt.name}` : '',
    sortKeys.join(','),
    filterKeys.join(','),
  ].join('|');
  const query = z.object({
    ...listParamsShape,
    order_by: z
      .enum(sortKeys)
      .default(sortKeys[0] as never)
      .openapi({ description: `Sort field: ${sortKeys.join(', ')}` }),
    ...definition.filters,
  }) as unknown as ListQuerySchema<S, F>;

  async function run(
    ctx: TenantContext,
    params: ListQueryParams<S, F>,
    options: ListRunOptions = {},
  ): Promise<Page<V>> {
    const bound = options.exactUpTo ?? EXACT_TOTAL_UP_TO;
    const values = params as Record<string, unknown> & ListQueryParams<ListSort, {}>;
    const sortColumn = definition.sort[values.order_by];
    if (!sortColumn) throw new BadRequest(`order_by must be one of ${sortKeys.join(', ')}`, 'order_by');
    checkDateRange(values);
    const idColumn = definition.sort.id;
    const scope = definition.base(ctx, params);
    const filtered = options.where !== undefined || filterKeys.some((key) => values[key] !== undefined);
    const searchOnly =
      values.search_value !== undefined &&
      options.where === undefined &&
      filterKeys.every((key) => key === 'search_value' || values[key] === undefined);
    const matchesOf = definition.counter && searchOnly ? definition.searchTotal : undefined;
    const matches =
      matchesOf && values.search_value
        ? ctx.db.$with('search_matches').as(matchesOf(values.search_value, ctx))
        : undefined;
    const descending = values.order_in === 'DESC';
    const direction = descending ? sql`desc` : sql`asc`;
    const walk = listScope(identity, ctx.orgId, filterKeys, values, options.where);
    const cursor = values.cursor ? decodeCursor(values.cursor, values.order_by, values.order_in, walk) : null;
    const offset = cursor ? 0 : (values.page - 1) * values.limit;
    const byId = sortColumn === idColumn;
    const keyset = cursor
      ? byId
        ? sql`${idColumn} ${descending ? sql`<` : sql`>`} ${cursor.id}`
        : sql`(${sortColumn}, ${idColumn}) ${descending ? sql`<` : sql`>`} (${cursor.value}, ${cursor.id})`
      : undefined;
    // Ids are never null: the placement of nulls only picks the index that gives the order.
    const idOrder =
      byId && definition.tenantIdOrder ? (descending ? sql`desc nulls last` : sql`asc nulls first`) : direction;

    // The matches are exactly the list's rows. Sorted by id, the page is their first ids in that
    // order: a top-N over the CTE's ids, then a primary-key read of those rows only, whatever share
    // of the organization the search matches. Left to join all the matches, the planner read every
    // matched row or walked the id index past the rows that do not match, by its estimate of the
    // share (a search matching 2 % of 100 000 leads, issue 17).
    const pageOfMatches =
      matches && byId
        ? sql`(select match_id from ${matches} as m(match_id) ${
            cursor ? sql`where match_id ${descending ? sql`<` : sql`>`} ${cursor.id}` : sql``
          } order by match_id ${direction} limit ${offset + values.limit + 1})`
        : undefined;
    const where = and(
      scope.where,
      options.where,
      matches
        ? sql`${idColumn} in ${pageOfMatches ?? sql`(select * from ${matches})`}`
        : values.search_value
          ? definition.search(values.search_value, ctx)
          : undefined,
      dateRange(definition.createdAt, values),
    );

    // Outside the page's statement (an empty page past the end, the planner's estimate) the
    // search's matches are their own select, not the CTE.
    const countable = () =>
      matchesOf && values.search_value
        ? matchesOf(values.search_value, ctx)
        : (scope.countRows?.() ?? scope.rows(NO_COLUMNS, ctx.db)).where(where);
    const plan: TotalPlan = cursor?.total
      ? { kind: 'carried', total: cursor.total }
      : definition.counter && !filtered
        ? {
            kind: 'counter',
            sql: definition.counterExcess
              ? sql<number>`(${counterTotal(ctx.orgId, definition.counter)} - ${definition.counterExcess(ctx)})`
              : counterTotal(ctx.orgId, definition.counter),
          }
        : { kind: 'bounded', sql: boundedCount(countable().limit(bound + 1)) };
    const total =
      plan.kind === 'carried'
        ? sql<null>`null`
        : plan.kind === 'bounded' && matches
          ? sql<number>`(select count(*) from (select 1 from ${matches} limit ${bound + 1}) as bounded)`
          : plan.sql;

    const rows = await scope
      .rows(
        {
          sortKey: sql<string>`(${sortColumn})::text`,
          sortId: sql<number>`${idColumn}`.mapWith(Number),
          total: total.mapWith(Number) as SQL<number | null>,
        },
        matches ? ctx.db.with(matches) : ctx.db,
      )
      .where(and(where, keyset))
      .orderBy(
        ...(byId ? [sql`${idColumn} ${idOrder}`] : [sql`${sortColumn} ${direction}`, sql`${idColumn} ${direction}`]),
      )
      .limit(values.limit + 1)
      .offset(offset);

    let counted: { total: number; estimate: boolean };
    if (plan.kind === 'carried') counted = plan.total;
    else {
      const first = rows[0] as { total: number | null } | undefined;
      // An empty page carries no total: a first page means nothing matches; a page past the end (or
      // after a cursor made before totals were carried) asks once more.
      const exact = first ? Number(first.total) : offset === 0 && !cursor ? 0 : await countAlone(ctx, plan.sql);
      counted =
        plan.kind === 'bounded' && exact > bound
          ? { total: Math.max(await plannerEstimate(ctx, countable()), bound + 1), estimate: true }
          : { total: exact, estimate: false };
    }

    const hasMore = rows.length > values.limit;
    const pageRows = (hasMore ? rows.slice(0, values.limit) : rows) as (ListRow<Q> & {
      sortKey: string;
      sortId: number;
      total: unknown;
    })[];
    const last = pageRows[pageRows.length - 1];
    const nextCursor =
      hasMore && last
        ? encodeCursor({
            orderBy: values.order_by,
            orderIn: values.order_in,
            value: last.sortKey,
            id: last.sortId,
            total: counted,
            scope: walk,
          })
        : null;
    const selected = pageRows.map(
      ({ sortKey: _sortKey, sortId: _sortId, total: _total, ...row }) => row as unknown as ListRow<Q>,
    );
    const present = definition.present;
    return {
      rows: present ? selected.map((row) => present(row)) : (selected as unknown as V[]),
      total: counted.total,
      totalIsEstimate: counted.estimate,
      page: values.page,
      limit: values.limit,
      nextCursor,
    };
  }

  return { query, run };
}
