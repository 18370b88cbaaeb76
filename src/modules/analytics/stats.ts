/**
 * GET /api/dashboard/stats: the breakdowns of a period against the previous period of equal
 * length, in one statement: leads created by (current) status and by source, and deals closed
 * won and lost per pipeline. Names come from the organization's lookups and pipelines. Leads
 * per status and source come from the lead rollup (lead-rollup.ts).
 */
import { pipelines, deals, lookups } from '../../db/schema';
import { sql } from 'drizzle-orm';
import type { TenantContext } from '../../db/tenant';
import { LEAD_LOOKUP_MODULE } from '../lookups';
import { periodLeadCounts } from './lead-rollup';
import { compared, resolvePeriods } from './period';

interface CountRow {
  key: number | null;
  name: string | null;
  n: number;
  n_prev: number;
}
interface PipelineRow {
  pipeline_id: number | string;
  name: string;
  won: number;
  won_prev: number;
  won_value: number | string;
  won_value_prev: number | string;
  lost: number;
  lost_prev: number;
  lost_value: number | string;
  lost_value_prev: number | string;
}

/** `[{key, name, n, n_prev}]` of the period's leads grouped by `column`, named by the lookups of `type`. */
function countsBy(ctx: TenantContext, column: 'status' | 'lead_source', type: 'status' | 'source') {
  const name = sql.identifier(column);
  return sql`(select coalesce(json_agg(json_build_object('key', g.key, 'name', (select lk.name from ${lookups} lk
        where lk.organization_id = ${ctx.orgId} and lk.module_name = ${LEAD_LOOKUP_MODULE} and lk.type = ${type}
          and lk.value = g.key order by lk.id limit 1), 'n', g.n, 'n_prev', g.n_prev)
      order by g.n desc, g.n_prev desc, g.key nulls last), '[]'::json)
    from (select ${name} as key, coalesce(sum(n) filter (where current), 0)::int as n,
        coalesce(sum(n) filter (where not current), 0)::int as n_prev
      from period_leads group by ${name} having sum(n) <> 0) g)`;
}

export async function dashboardStats(ctx: TenantContext, query: { start_date?: string; end_date?: string }, now: Date) {
  const periods = resolvePeriods(query, now);
  const pf = sql`${periods.previousFrom}::timestamptz`;
  const cf = sql`${periods.from}::timestamptz`;
  const ct = sql`${periods.to}::timestamptz`;
  const result = await ctx.db.execute<{ by_status: CountRow[]; by_source: CountRow[]; by_pipeline: PipelineRow[] }>(sql`
    with period_leads as materialized ${periodLeadCounts(ctx, periods)}, pipeline_outcomes as (
      select d.pipeline_id,
        count(*) filter (where d.outcome = 'won' and d.closed_at >= ${cf})::int as won,
        count(*) filter (where d.outcome = 'won' and d.closed_at < ${cf})::int as won_prev,
        coalesce(sum(d.value) filter (where d.outcome = 'won' and d.closed_at >= ${cf}), 0) as won_value,
        coalesce(sum(d.value) filter (where d.outcome = 'won' and d.closed_at < ${cf}), 0) as won_value_prev,
        count(*) filter (where d.outcome = 'lost' and d.closed_at >= ${cf})::int as lost,
        count(*) filter (where d.outcome = 'lost' and d.closed_at < ${cf})::int as lost_prev,
        coalesce(sum(d.value) filter (where d.outcome = 'lost' and d.closed_at >= ${cf}), 0) as lost_value,
        coalesce(sum(d.value) filter (where d.outcome = 'lost' and d.closed_at < ${cf}), 0) as lost_value_prev
      from ${deals} d
      where d.organization_id = ${ctx.orgId} and d.outcome in ('won', 'lost') and d.closed_at >= ${pf} and d.closed_at < ${ct}
      group by d.pipeline_id
    )
    select ${countsBy(ctx, 'status', 'status')} as by_status,
      ${countsBy(ctx, 'lead_source', 'source')} as by_source,
      (select coalesce(json_agg(json_build_object('pipeline_id', o.pipeline_id, 'name', p.name, 'won', o.won, 'won_prev', o.won_prev,
          'won_value', o.won_value, 'won_value_prev', o.won_value_prev, 'lost', o.lost, 'lost_prev', o.lost_prev,
          'lost_value', o.lost_value, 'lost_value_prev', o.lost_value_prev)
        order by o.won_value desc, o.pipeline_id), '[]'::json)
        from pipeline_outcomes o join ${pipelines} p on p.id = o.pipeline_id and p.organization_id = ${ctx.orgId}) as by_pipeline`);
  const row = result.rows[0];
  return {
    period: periods.current,
    previous_period: periods.previous,
    by_status: row.by_status.map((entry) => ({
      status: Number(entry.key),
      name: entry.name,
      ...compared(entry.n, entry.n_prev),
    })),
    by_source: row.by_source.map((entry) => ({
      source: entry.key === null ? null : Number(entry.key),
      name: entry.name,
      ...compared(entry.n, entry.n_prev),
    })),
    by_pipeline: row.by_pipeline.map((entry) => ({
      pipeline_id: Number(entry.pipeline_id),
      name: entry.name,
      won: compared(entry.won, entry.won_prev),
      won_value: compared(Number(entry.won_value), Number(entry.won_value_prev)),
      lost: compared(entry.lost, entry.lost_prev),
      lost_value: compared(Number(entry.lost_value), Number(entry.lost_value_prev)),
    })),
  };
}
