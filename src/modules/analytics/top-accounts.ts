/**
 * GET /api/dashboard/top-accounts: live companies ranked by open pipeline value (open deals of
 * the company's live leads, as GET /api/company/stats counts it) or by engagement in the last
 * ENGAGEMENT_DAYS days: intent signals of its live leads plus MEETING_WEIGHT × its meetings
 * (meetings of the company or of one of its live leads, not cancelled). Companies with neither an open deal nor
 * engagement are left out. One statement.
 */
import type { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import type { TenantContext } from '../../db/tenant';
import { ENGAGEMENT_DAYS, MEETING_WEIGHT } from './period';
import type { TopAccountsQuery } from './schemas';

type AccountRow = {
  id: number | string;
  company_name: string;
  open_deals: number;
  open_pipeline_value: number | string;
  intent_signals: number;
  meetings: number;
  engagement_score: number;
};

export async function topAccounts(ctx: TenantContext, query: z.output<typeof TopAccountsQuery>, now: Date) {
  const at = sql`${now.toISOString()}::timestamptz`;
  const since = sql`${new Date(now.getTime() - ENGAGEMENT_DAYS * 86_400_000).toISOString()}::timestamptz`;
  const order =
    query.rank_by === 'engagement'
      ? sql`engagement_score desc, open_pipeline_value desc, id`
      : sql`open_pipeline_value desc, engagement_score desc, id`;
  const result = await ctx.db.execute<AccountRow>(sql`
    -- Deals, signals and meetings carry their live lead's company (lead_company_id, kept by
    -- triggers), so they are counted by company without reading the leads.
    with deal_companies as (
      select d.lead_company_id as company_id, count(*)::int as deals, sum(d.value) as value
      from deals d
      where d.organization_id = ${ctx.orgId} and d.outcome = 'open' and d.lead_company_id is not null
      group by 1
    ), signal_counts as (
      select s.lead_company_id as company_id, count(*)::int as n
      from intent_signals s
      where s.organization_id = ${ctx.orgId} and s.occurred_at >= ${since} and s.occurred_at <= ${at}
        and s.lead_company_id is not null
      group by 1
    ), meeting_counts as (
      select coalesce(m.company_id, m.lead_company_id) as company_id, count(*)::int as n
      from meetings m
      where m.organization_id = ${ctx.orgId} and m.status <> 4 and m.start_time >= ${since} and m.start_time <= ${at}
        and coalesce(m.company_id, m.lead_company_id) is not null
      group by 1
    )
    select * from (
      select c.id, c.company_name, coalesce(dc.deals, 0) as open_deals, coalesce(dc.value, 0) as open_pipeline_value,
        coalesce(sc.n, 0) as intent_signals, coalesce(mc.n, 0) as meetings,
        coalesce(sc.n, 0) + ${MEETING_WEIGHT} * coalesce(mc.n, 0) as engagement_score
      from companies c
        left join deal_companies dc on dc.company_id = c.id
        left join signal_counts sc on sc.company_id = c.id
        left join meeting_counts mc on mc.company_id = c.id
      where c.organization_id = ${ctx.orgId} and c.deleted_at is null
        and (dc.company_id is not null or sc.company_id is not null or mc.company_id is not null)
    ) ranked
    order by ${order}
    limit ${query.limit}`);
  return result.rows.map((row) => ({
    ...row,
    id: Number(row.id),
    open_pipeline_value: Number(row.open_pipeline_value),
    open_deals: Number(row.open_deals),
    intent_signals: Number(row.intent_signals),
    meetings: Number(row.meetings),
    engagement_score: Number(row.engagement_score),
  }));
}
