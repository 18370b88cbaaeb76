/**
 * How a list's `total` is computed without reading every row of the organization:
 *   - carried: a cursor page repeats the total its first page computed (inside the cursor);
 *   - counter: an unfiltered list sums the organization's few live-row counter rows, which
 *     statement-level triggers keep (drizzle/0007_live_row_counts.sql);
 *   - bounded: a filtered list counts at most `bound + 1` rows of the very select and WHERE the
 *     page is fetched with; past the bound the total is the planner's estimate and flagged.
 * The counter and bounded counts are scalar subqueries in the page's own statement (one round
 * trip); only an empty page past the end and an estimate ask the database a second time.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { PgSelect } from 'drizzle-orm/pg-core';
import { liveRowCounts } from '../db/schema';
import type { TenantContext } from '../db/tenant';
import type { CursorTotal } from './list-cursor';

/** Filtered totals are exact up to this many rows, then the planner's estimate. */
export const EXACT_TOTAL_UP_TO = 10_000;

export type TotalPlan =
  | { kind: 'carried'; total: CursorTotal }
  | { kind: 'counter'; sql: SQL<number> }
  | { kind: 'bounded'; sql: SQL<number> };

/** The organization's live rows of `relation`: the sum of its counter rows (a handful, see the migration). */
export function counterTotal(orgId: number, relation: string): SQL<number> {
  const c = liveRowCounts;
  return sql<number>`(select coalesce(sum(${c.delta}), 0)::bigint from ${c} where ${c.organizationId} = ${orgId} and ${c.relation} = ${relation})`;
}

/** `count(*)` of a select already limited to bound + 1 rows (its unused columns are dropped by the planner). */
export function boundedCount(limited: PgSelect): SQL<number> {
  return sql<number>`(select count(*) from ${limited} as bounded)`;
}

export async function countAlone(ctx: TenantContext, total: SQL<number>): Promise<number> {
  const result = await ctx.db.execute<{ total: string | number }>(sql`select ${total} as total`);
  return Number(result.rows[0]?.total ?? 0);
}

/** The planner's row estimate for the unlimited select (EXPLAIN, nothing executed). */
export async function plannerEstimate(ctx: TenantContext, unlimited: PgSelect): Promise<number> {
  const result = await ctx.db.execute<{ 'QUERY PLAN': unknown }>(sql`explain (format json) ${unlimited}`);
  const raw = result.rows[0]?.['QUERY PLAN'];
  const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan?: { 'Plan Rows'?: number } }[];
  return Math.round(plan[0]?.Plan?.['Plan Rows'] ?? 0);
}
