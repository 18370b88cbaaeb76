/**
 * GET /api/dashboard/overview: the headline numbers of a period and of the previous period of
 * equal length, in one statement. A lead is converted when its status is the organization's
 * Converted status lookup (module lead, type status, name Converted, any case) or it has a won
 * deal. Deals count by closed_at; the pipeline value is that of the deals open at the end of
 * each period (created before it ends and not closed by then), at their current value. Leads
 * created per period come from the lead rollup (lead-rollup.ts), so a year costs its days, not
 * its leads.
 */
import { meetings, dealDayCounts, lookups } from '../../db/schema';
import { sql } from 'drizzle-orm';
import type { TenantContext } from '../../db/tenant';
import { LEAD_LOOKUP_MODULE } from '../lookups';
import { periodLeadCounts } from './lead-rollup';
import { compared, numberOrNull, resolvePeriods } from './period';

type Pair = number | string | null;
type OverviewRow = Record<
  | 'created'
  | 'created_prev'
  | 'converted'
  | 'converted_prev'
  | 'won'
  | 'won_prev'
  | 'won_value'
  | 'won_value_prev'
  | 'lost'
  | 'lost_prev'
  | 'lost_value'
  | 'lost_value_prev'
  | 'days_to_convert'
  | 'days_to_convert_prev'
  | 'pipeline'
  | 'pipeline_prev'
  | 'open_deals'
  | 'open_deals_prev'
  | 'meetings'
  | 'meetings_prev',
  Pair
>;

/** The status values of the organization's lead status lookups named one of `names` (lower case; any case matches). */
export function statusValuesNamed(ctx: TenantContext, names: string[]) {
  return sql`(select lk.value from ${lookups} lk where lk.organization_id = ${ctx.orgId}
    and lk.module_name = ${LEAD_LOOKUP_MODULE} and lk.type = 'status' and lk.value is not null
    and lower(lk.name) in (${sql.join(
      names.map((name) => sql`${name}`),
      sql`, `,
    )}))`;
}

export async function dashboardOverview(
  ctx: TenantContext,
  query: { start_date?: string; end_date?: string },
  now: Date,
) {
  const periods = resolvePeriods(query, now);
  const pf = sql`${periods.previousFrom}::timestamptz`;
  const cf = sql`${periods.from}::timestamptz`;
  const ct = sql`${periods.to}::timestamptz`;
  // The periods' bounds as UTC days, for the day rollups.
  const [pfDay, cfDay, ctDay] = [periods.previousFrom, periods.from, periods.to].map((at) => at.slice(0, 10));
  const result = await ctx.db.execute<OverviewRow>(sql`
    -- Leads by creation day, status and won deal come from the rollup: no lead is read.
    with converted_status as ${statusValuesNamed(ctx, ['converted'])},
    period_leads as (
      select r.current, r.n, r.won_deal or r.status in (select value from converted_status) as converted
      from ${periodLeadCounts(ctx, periods)} r
    ), lead_numbers as (
      select coalesce(sum(n) filter (where current), 0)::int as created,
        coalesce(sum(n) filter (where not current), 0)::int as created_prev,
        coalesce(sum(n) filter (where current and converted), 0)::int as converted,
        coalesce(sum(n) filter (where not current and converted), 0)::int as converted_prev
      from period_leads
    ), closed as (
      -- Deals won and lost by day of closing, with their value and days to convert (lead created
      -- to deal won), from the deal rollup: no deal or lead is read.
      select r.event as outcome, r.day >= ${cfDay}::date as current, r.delta as n, r.value_sum as value, r.convert_days_sum as days
      from ${dealDayCounts} r
      where r.organization_id = ${ctx.orgId} and r.event in ('won', 'lost') and r.day >= ${pfDay}::date and r.day < ${ctDay}::date
    ), deal_numbers as (
      select coalesce(sum(n) filter (where outcome = 'won' and current), 0)::int as won,
        coalesce(sum(n) filter (where outcome = 'won' and not current), 0)::int as won_prev,
        coalesce(sum(value) filter (where outcome = 'won' and current), 0) as won_value,
        coalesce(sum(value) filter (where outcome = 'won' and not current), 0) as won_value_prev,
        coalesce(sum(n) filter (where outcome = 'lost' and current), 0)::int as lost,
        coalesce(sum(n) filter (where outcome = 'lost' and not current), 0)::int as lost_prev,
        coalesce(sum(value) filter (where outcome = 'lost' and current), 0) as lost_value,
        coalesce(sum(value) filter (where outcome = 'lost' and not current), 0) as lost_value_prev,
        round(sum(days) filter (where outcome = 'won' and current)
          / nullif(sum(n) filter (where outcome = 'won' and current), 0), 1)::float8 as days_to_convert,
        round(sum(days) filter (where outcome = 'won' and not current)
          / nullif(sum(n) filter (where outcome = 'won' and not current), 0), 1)::float8 as days_to_convert_prev
      from closed
    ), pipeline as (
      -- Open at a day boundary T: created before T and not closed before T (a deal closes after
      -- it is created), so the deals created before T less those closed before T.
      select coalesce(sum(r.value_sum) filter (where r.event = 'created'), 0)
          - coalesce(sum(r.value_sum) filter (where r.event <> 'created'), 0) as pipeline,
        coalesce(sum(r.value_sum) filter (where r.event = 'created' and r.day < ${cfDay}::date), 0)
          - coalesce(sum(r.value_sum) filter (where r.event <> 'created' and r.day < ${cfDay}::date), 0) as pipeline_prev,
        (coalesce(sum(r.delta) filter (where r.event = 'created'), 0)
          - coalesce(sum(r.delta) filter (where r.event <> 'created'), 0))::int as open_deals,
        (coalesce(sum(r.delta) filter (where r.event = 'created' and r.day < ${cfDay}::date), 0)
          - coalesce(sum(r.delta) filter (where r.event <> 'created' and r.day < ${cfDay}::date), 0))::int as open_deals_prev
      from ${dealDayCounts} r
      where r.organization_id = ${ctx.orgId} and r.day < ${ctDay}::date
    ), meeting_numbers as (
      select count(*) filter (where m.start_time >= ${cf})::int as meetings,
        count(*) filter (where m.start_time < ${cf})::int as meetings_prev
      from ${meetings} m
      where m.organization_id = ${ctx.orgId} and m.status = 3 and m.start_time >= ${pf} and m.start_time < ${ct}
    )
    select * from lead_numbers, deal_numbers, pipeline, meeting_numbers`);
  const row = result.rows[0];
  const pair = (value: keyof OverviewRow, previous: keyof OverviewRow) =>
    compared(numberOrNull(row[value]), numberOrNull(row[previous]));
  const rate = (converted: Pair, created: Pair) =>
    Number(created) === 0 ? null : Math.round((10000 * Number(converted)) / Number(created)) / 100;
  return {
    period: periods.current,
    previous_period: periods.previous,
    leads_created: pair('created', 'created_prev'),
    converted_leads: pair('converted', 'converted_prev'),
    conversion_rate: compared(rate(row.converted, row.created), rate(row.converted_prev, row.created_prev)),
    deals_won: pair('won', 'won_prev'),
    deals_won_value: pair('won_value', 'won_value_prev'),
    deals_lost: pair('lost', 'lost_prev'),
    deals_lost_value: pair('lost_value', 'lost_value_prev'),
    pipeline_value: pair('pipeline', 'pipeline_prev'),
    open_deals: pair('open_deals', 'open_deals_prev'),
    meetings_held: pair('meetings', 'meetings_prev'),
    avg_days_to_convert: pair('days_to_convert', 'days_to_convert_prev'),
  };
}
