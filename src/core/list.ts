/**
 * The standard list parameters (page, limit, search_value, order_by, order_in, start_date,
 * end_date) plus a keyset `cursor`, parsed by one schema builder, and `listPage` which turns
 * them into ORDER BY / LIMIT / keyset SQL for any resource. `order_by` values come only from
 * each resource's allow-list, so user input never reaches SQL as an identifier.
 */
import { z } from '@hono/zod-openapi';
import { and, count, sql, type SQL } from 'drizzle-orm';
import type { PgSelect, PgTable } from 'drizzle-orm/pg-core';
import type { Queryable } from '../db/client';
import type { Page } from './http';
import { BadRequest } from './errors';
import { fromBase64Url, toBase64Url } from './encoding';

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 10;

const isoDate = z
  .string()
  .max(40)
  .refine((value) => !Number.isNaN(Date.parse(value)) && /^\d{4}-\d{2}-\d{2}/.test(value), 'must be an ISO 8601 date (YYYY-MM-DD)');

export const listParamsShape = {
  page: z.coerce.number().int().min(1).max(1_000_000).default(1).openapi({ description: 'Page number (1-based)' }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .default(DEFAULT_PAGE_SIZE)
    .transform((value) => Math.min(value, MAX_PAGE_SIZE))
    .openapi({ description: `Items per page; values above ${MAX_PAGE_SIZE} are capped at ${MAX_PAGE_SIZE}`, type: 'integer' }),
  search_value: z.string().trim().max(200).optional().openapi({ description: 'Free-text search' }),
  order_in: z
    .string()
    .max(4)
    .transform((value) => value.toUpperCase())
    .pipe(z.enum(['ASC', 'DESC']))
    .default('DESC')
    .openapi({ description: 'ASC or DESC (case-insensitive)', type: 'string' }),
  start_date: isoDate.optional().openapi({ description: 'Created on or after this date' }),
  end_date: isoDate.optional().openapi({ description: 'Created on or before this date (inclusive day)' }),
  cursor: z.string().max(512).optional().openapi({ description: 'Opaque keyset cursor from a previous next_cursor; when given, page is ignored' }),
};

function baseListQuery<const K extends readonly [string, ...string[]]>(orderBy: K) {
  return z.object({
    ...listParamsShape,
    order_by: z.enum(orderBy).default(orderBy[0] as K[number] as never).openapi({ description: `Sort field: ${orderBy.join(', ')}` }),
  });
}

/** The standard list query schema with a resource's `order_by` allow-list (first = default) and extra filters. */
export function listQuery<const K extends readonly [string, ...string[]]>(orderBy: K): ReturnType<typeof baseListQuery<K>>;
export function listQuery<const K extends readonly [string, ...string[]], E extends z.ZodRawShape>(
  orderBy: K,
  extra: E,
): z.ZodObject<ReturnType<typeof baseListQuery<K>>['shape'] & E>;
export function listQuery(orderBy: readonly [string, ...string[]], extra?: z.ZodRawShape) {
  const base = baseListQuery(orderBy);
  return extra ? base.extend(extra) : base;
}

export interface ListParams {
  page: number;
  limit: number;
  search_value?: string;
  order_by: string;
  order_in: 'ASC' | 'DESC';
  start_date?: string;
  end_date?: string;
  cursor?: string;
}

interface CursorState {
  k: string;
  d: 'ASC' | 'DESC';
  v: string | null;
  id: number;
}

function decodeCursor(cursor: string, params: ListParams): CursorState {
  try {
    const state = JSON.parse(new TextDecoder().decode(fromBase64Url(cursor))) as CursorState;
    if (state.k !== params.order_by || state.d !== params.order_in || !Number.isSafeInteger(state.id)) throw new Error('mismatch');
    return state;
  } catch {
    throw new BadRequest('cursor is invalid or belongs to a different order_by/order_in', 'cursor');
  }
}

function encodeCursor(state: CursorState): string {
  return toBase64Url(new TextEncoder().encode(JSON.stringify(state)));
}

/** `created_at` within [start_date, end_date], end date inclusive of its whole day. */
export function dateRange(column: SQL | { getSQL(): SQL }, params: Pick<ListParams, 'start_date' | 'end_date'>): SQL | undefined {
  const parts: SQL[] = [];
  if (params.start_date) parts.push(sql`${column} >= ${params.start_date}::date`);
  if (params.end_date) parts.push(sql`${column} < (${params.end_date}::date + 1)`);
  return parts.length ? and(...parts) : undefined;
}

export interface PageQuery {
  where: SQL | undefined;
  orderBy: SQL[];
  limit: number;
  offset: number;
  /** Select this as `sortKey` so the next cursor can be built from the last row. */
  sortKey: SQL<string>;
}

/**
 * Fetches one page. `sortColumns` maps each allowed order_by to a non-null SQL expression;
 * ties break on `idColumn` so the order is total and keyset paging never skips or repeats.
 */
export async function listPage<Row extends { id: number; sortKey: string }>(options: {
  params: ListParams;
  sortColumns: Record<string, SQL | { getSQL(): SQL }>;
  idColumn: SQL | { getSQL(): SQL };
  where: SQL | undefined;
  fetch: (query: PageQuery) => PromiseLike<Row[]>;
  count: (where: SQL | undefined) => PromiseLike<number>;
}): Promise<Page<Omit<Row, 'sortKey'>>> {
  const { params, idColumn } = options;
  const sortColumn = options.sortColumns[params.order_by];
  if (!sortColumn) throw new BadRequest(`order_by must be one of ${Object.keys(options.sortColumns).join(', ')}`, 'order_by');
  const descending = params.order_in === 'DESC';
  const direction = descending ? sql`desc` : sql`asc`;
  let keyset: SQL | undefined;
  let offset = (params.page - 1) * params.limit;
  if (params.cursor) {
    const state = decodeCursor(params.cursor, params);
    const comparison = descending ? sql`<` : sql`>`;
    keyset = sql`(${sortColumn}, ${idColumn}) ${comparison} (${state.v}, ${state.id})`;
    offset = 0;
  }
  const [rows, total] = await Promise.all([
    Promise.resolve(options.fetch({
      where: and(options.where, keyset),
      orderBy: [sql`${sortColumn} ${direction}`, sql`${idColumn} ${direction}`],
      limit: params.limit + 1,
      offset,
      sortKey: sql<string>`(${sortColumn})::text`,
    })),
    Promise.resolve(options.count(options.where)),
  ]);
  const hasMore = rows.length > params.limit;
  const pageRows = hasMore ? rows.slice(0, params.limit) : rows;
  const last = pageRows[pageRows.length - 1];
  const nextCursor = hasMore && last ? encodeCursor({ k: params.order_by, d: params.order_in, v: last.sortKey, id: last.id }) : null;
  return {
    rows: pageRows.map(({ sortKey: _sortKey, ...row }) => row),
    total,
    page: params.page,
    limit: params.limit,
    nextCursor,
  };
}

/**
 * `listPage`'s `fetch` for a select built by the caller (any columns, any joins): applies the
 * page's filter, order, limit and offset to it (drizzle's dynamic query building).
 */
export function pageOf<T extends PgSelect>(select: T, query: PageQuery): T {
  return select.where(query.where).orderBy(...query.orderBy).limit(query.limit).offset(query.offset);
}

/** `listPage`'s `count` for a list over one table: `count(*)` of the rows the filter keeps. */
export function countOf(db: Queryable, table: PgTable): (where: SQL | undefined) => Promise<number> {
  return async (where) => (await db.select({ n: count() }).from(table).where(where))[0].n;
}

/** An ILIKE pattern matching `term` anywhere, with LIKE wildcards in the term escaped. */
export function containsPattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}
