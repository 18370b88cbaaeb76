/**
 * Deals at risk and forecast accuracy.
 *
 * At risk: an open deal with at least one reason: stalled (days in stage > max_days_in_stage),
 * close_date_passed, no_activity (nothing on the lead, nor the deal's creation, in 30 days) or
 * value_dropped (its value is below the highest value of its snapshots of the last 30 days).
 * Ordered by value at risk = value × the stage's probability, largest first.
 *
 * Accuracy, per past month M: forecast = the weighted values of each deal's latest snapshot on
 * or before M's first day, for deals that snapshot expected to close in M (lost ones count 0, and
 * won ones only when the deal closed in M: one won before M began is in an earlier month's actual);
 * actual = the value of deals closed won in M (closed_at); error = forecast − actual.
 */
import { deals, dealForecasts, stages } from '../../db/schema';
import type { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import type { TenantContext } from '../../db/tenant';
import { isoTimestamp } from '../../core/schemas';
import { dayOf, forecastInputs, NO_ACTIVITY_DAYS } from './factors';
import type { AccuracyQuery, AtRiskQuery } from './schemas';

type RiskRow = {
  deal_id: number;
  title: string;
  lead_id: number;
  owner_id: number | null;
  pipeline_id: number;
  stage_id: number;
  stage_name: string;
  value: string;
  value_at_risk: string;
  days_in_stage: number;
  max_days_in_stage: number | null;
  expected_close_date: string;
  last_activity: string | null;
  stalled: boolean;
  overdue: boolean;
  idle: boolean;
  peak_value: string | null;
};

export async function dealsAtRisk(ctx: TenantContext, query: z.output<typeof AtRiskQuery>, now: Date) {
  const at = sql`${now.toISOString()}::timestamptz`;
  const result = await ctx.db.execute<RiskRow>(sql`
    select * from (
      select d.id as deal_id, d.title, d.lead_id, d.owner_id, d.pipeline_id, d.stage_id, s.name as stage_name, d.value,
        round(d.value * s.probability::numeric, 2) as value_at_risk, x.days_in_stage, s.max_days_in_stage,
        d.expected_close_date::text as expected_close_date, x.last_activity, x.stalled, x.overdue, x.idle,
        (select max(f.value) from ${dealForecasts} f where f.organization_id = d.organization_id and f.deal_id = d.id
          and f.taken_at >= ${at} - make_interval(days => ${NO_ACTIVITY_DAYS}) and f.taken_at <= ${at}) as peak_value
      from ${deals} d
      join ${stages} s on s.id = d.stage_id
      ${forecastInputs(now)}
      where d.organization_id = ${ctx.orgId} and d.outcome = 'open'
        ${query.pipeline_id === undefined ? sql`` : sql`and d.pipeline_id = ${query.pipeline_id}`}
        ${query.status === undefined ? sql`` : sql`and d.stage_id = ${query.status}`}
        ${query.owner === 'me' ? sql`and d.owner_id is not distinct from ${ctx.userId}` : sql``}
    ) r
    where r.stalled or r.overdue or r.idle or r.peak_value > r.value
    order by r.value_at_risk desc, r.deal_id
    limit ${query.limit}`);
  return result.rows.map((row) => {
    const reasons: { reason: 'stalled' | 'close_date_passed' | 'no_activity' | 'value_dropped'; detail: string }[] = [];
    if (row.stalled)
      reasons.push({
        reason: 'stalled',
        detail: `${row.days_in_stage} days in ${row.stage_name} (max ${row.max_days_in_stage})`,
      });
    if (row.overdue)
      reasons.push({ reason: 'close_date_passed', detail: `expected to close on ${row.expected_close_date}` });
    if (row.idle) reasons.push({ reason: 'no_activity', detail: `no activity for ${NO_ACTIVITY_DAYS} days or more` });
    if (row.peak_value !== null && Number(row.peak_value) > Number(row.value))
      reasons.push({
        reason: 'value_dropped',
        detail: `value dropped from ${Number(row.peak_value)} to ${Number(row.value)} in the last ${NO_ACTIVITY_DAYS} days`,
      });
    return {
      deal_id: Number(row.deal_id),
      title: row.title,
      lead_id: Number(row.lead_id),
      owner_id: row.owner_id === null ? null : Number(row.owner_id),
      pipeline_id: Number(row.pipeline_id),
      stage_id: Number(row.stage_id),
      stage_name: row.stage_name,
      value: Number(row.value),
      value_at_risk: Number(row.value_at_risk),
      days_in_stage: Number(row.days_in_stage),
      expected_close_date: row.expected_close_date,
      last_activity_at: isoTimestamp(row.last_activity),
      reasons,
    };
  });
}

export async function forecastAccuracy(ctx: TenantContext, query: z.output<typeof AccuracyQuery>, now: Date) {
  const pipeline = (column: string) =>
    query.pipeline_id === undefined ? sql`` : sql`and ${sql.raw(column)} = ${query.pipeline_id}`;
  const result = await ctx.db.execute<{ month_start: string; forecast: string; actual: string }>(sql`
    with months as (
      select (date_trunc('month', ${dayOf(now)}::date) - make_interval(months => g))::date as month_start
      from generate_series(1, ${query.months}) g
    )
    select m.month_start::text as month_start,
      coalesce((
        -- A snapshot that says won counts only when its deal closed in the month (as actual counts
        -- it): a deal won before the month began, early against its expected close date, is no part
        -- of the month's forecast (the month it closed in holds it in its actual).
        select sum(case when f.outcome = 'lost' then 0
            when f.outcome = 'won' and not (d.closed_at >= (m.month_start::timestamp at time zone 'UTC')
              and d.closed_at < ((m.month_start + interval '1 month')::timestamp at time zone 'UTC')) then 0
            else f.weighted_value end) from (
          select distinct on (f.deal_id) f.* from ${dealForecasts} f
          where f.organization_id = ${ctx.orgId} and f.snapshot_date <= m.month_start
          order by f.deal_id, f.snapshot_date desc
        ) f
        join ${deals} d on d.organization_id = ${ctx.orgId} and d.id = f.deal_id
        -- One pipeline's forecast and actual are those of the same deals, the ones in it now (as
        -- actual reads them): a deal moved since (pipelines consolidated) moves with its forecast.
        where true ${pipeline('d.pipeline_id')}
          and f.expected_close_date >= m.month_start and f.expected_close_date < (m.month_start + interval '1 month')::date
      ), 0) as forecast,
      coalesce((
        select sum(d.value) from ${deals} d
        where d.organization_id = ${ctx.orgId} and d.outcome = 'won' ${pipeline('d.pipeline_id')}
          and d.closed_at >= (m.month_start::timestamp at time zone 'UTC')
          and d.closed_at < ((m.month_start + interval '1 month')::timestamp at time zone 'UTC')
      ), 0) as actual
    from months m
    order by m.month_start`);
  return result.rows.map((row) => {
    const forecast = Number(row.forecast);
    const actual = Number(row.actual);
    const error = Math.round((forecast - actual) * 100) / 100;
    return {
      month: row.month_start.slice(0, 7),
      forecast,
      actual,
      error,
      error_percent: actual === 0 ? null : Math.round((10000 * error) / actual) / 100,
    };
  });
}

/** The accuracy rows as CSV with a header row. */
export function accuracyCsv(rows: Awaited<ReturnType<typeof forecastAccuracy>>): string {
  const lines = ['month,forecast,actual,error,error_percent'];
  for (const row of rows)
    lines.push([row.month, row.forecast, row.actual, row.error, row.error_percent ?? ''].join(','));
  return `${lines.join('\r\n')}\r\n`;
}
