/**
 * The pipeline forecast by period (expected close date) and the deals that make up a month.
 * A deal's weighted value is that of its latest snapshot.
 */
import type { z } from '@hono/zod-openapi';
import { ilike, sql } from 'drizzle-orm';
import { deals, stages, users, dealCloseMonthCounts, dealForecasts } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { containsPattern, defineList } from '../../core/list';
import { dayOf } from './factors';
import { contributorFilters, type PipelineForecastQuery } from './schemas';

const latestWeighted = sql<number>`coalesce((select f.weighted_value from ${dealForecasts} f
  where f.organization_id = "deals"."organization_id" and f.deal_id = "deals"."id"
  order by f.snapshot_date desc limit 1), 0)`;
const latestProbability = sql<number>`coalesce((select f.probability from ${dealForecasts} f
  where f.organization_id = "deals"."organization_id" and f.deal_id = "deals"."id"
  order by f.snapshot_date desc limit 1), 0)`;

export async function pipelineForecast(ctx: TenantContext, query: z.output<typeof PipelineForecastQuery>, now: Date) {
  const quarterly = query.period === 'quarterly';
  const step = quarterly ? 3 : 1;
  const count = quarterly ? Math.ceil(query.months / 3) : query.months;
  const unit = quarterly ? 'quarter' : 'month';
  const result = await ctx.db.execute<{
    start_date: string;
    end_date: string;
    committed: string;
    best_case: string;
    weighted_pipeline: string;
    deal_count: number;
  }>(sql`
    with periods as (
      select g::date as start_date, (g + make_interval(months => ${step}))::date as next_start
      from generate_series(date_trunc(${unit}, ${dayOf(now)}::date),
        date_trunc(${unit}, ${dayOf(now)}::date) + make_interval(months => ${step * (count - 1)}),
        make_interval(months => ${step})) g
    )
    -- Deals by pipeline, month of expected close and outcome, with their latest weighted value,
    -- come from the rollup kept by triggers on deals: no deal or snapshot is read.
    select p.start_date::text as start_date, (p.next_start - 1)::text as end_date,
      coalesce(sum(r.value_sum) filter (where r.outcome = 'won'), 0) as committed,
      coalesce(sum(r.value_sum) filter (where r.outcome <> 'lost'), 0) as best_case,
      coalesce(sum(r.weighted_sum) filter (where r.outcome = 'open'), 0) as weighted_pipeline,
      coalesce(sum(r.delta) filter (where r.outcome <> 'lost'), 0)::int as deal_count
    from periods p
    left join ${dealCloseMonthCounts} r on r.organization_id = ${ctx.orgId}
      and r.month >= p.start_date and r.month < p.next_start
      ${query.pipeline_id === undefined ? sql`` : sql`and r.pipeline_id = ${query.pipeline_id}`}
    group by p.start_date, p.next_start
    order by p.start_date`);
  return result.rows.map((row) => {
    const committed = Number(row.committed);
    const weighted = Number(row.weighted_pipeline);
    const month = Number(row.start_date.slice(5, 7));
    return {
      period: quarterly ? `${row.start_date.slice(0, 4)}-Q${Math.ceil(month / 3)}` : row.start_date.slice(0, 7),
      start_date: row.start_date,
      end_date: row.end_date,
      committed,
      best_case: Number(row.best_case),
      weighted_pipeline: weighted,
      expected_total: Math.round((committed + weighted) * 100) / 100,
      deal_count: Number(row.deal_count),
    };
  });
}

export const contributorList = defineList({
  sort: {
    weighted_value: latestWeighted,
    id: deals.id,
    value: deals.value,
    expected_close_date: deals.expectedCloseDate,
  },
  filters: contributorFilters,
  search: (term) => ilike(deals.title, containsPattern(term)),
  createdAt: deals.createdAt,
  base: (ctx, params) => ({
    rows: (columns) =>
      ctx.db
        .select({
          id: deals.id,
          title: deals.title,
          owner_id: deals.ownerId,
          owner_name: sql<
            string | null
          >`(select u.first_name || coalesce(' ' || u.last_name, '') from ${users} u where u.id = "deals"."owner_id")`,
          stage_id: deals.stageId,
          stage_name: sql<string>`(select s.name from ${stages} s where s.id = "deals"."stage_id")`,
          outcome: deals.outcome,
          expected_close_date: deals.expectedCloseDate,
          value: deals.value,
          probability: latestProbability.mapWith(Number),
          weighted_value: latestWeighted.mapWith(Number),
          ...columns,
        })
        .from(deals)
        .$dynamic(),
    where: tenantWhere(
      ctx,
      deals,
      sql`${deals.outcome} <> 'lost'`,
      params.pipeline_id === undefined ? undefined : sql`${deals.pipelineId} = ${params.pipeline_id}`,
    ),
  }),
  present: (row) => ({ ...row, owner_id: row.owner_id ?? null }),
});
export const ContributorListQuery = contributorList.query;

/** The deals (not lost) of `period_month` (default: the month of `now`): won in it, or open and expected to close in it. */
export async function forecastContributors(
  ctx: TenantContext,
  params: z.output<typeof ContributorListQuery>,
  now: Date,
) {
  const month = params.period_month ?? dayOf(now).slice(0, 7);
  const start = `${month}-01`;
  // As the pipeline forecast files them (deal_close_month_counts, drizzle/0087): a won deal in the
  // month it was won (closed_at, UTC), any other by its expected close date.
  const from = sql`(${start}::date::timestamp at time zone 'UTC')`;
  const until = sql`((${start}::date + interval '1 month')::timestamp at time zone 'UTC')`;
  return contributorList.run(ctx, params, {
    where: sql`case when ${deals.outcome} = 'won' and ${deals.closedAt} is not null
      then ${deals.closedAt} >= ${from} and ${deals.closedAt} < ${until}
      else ${deals.expectedCloseDate} >= ${start}::date and ${deals.expectedCloseDate} < (${start}::date + interval '1 month') end`,
  });
}
