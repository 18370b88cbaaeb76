/**
 * GET /api/dashboard/top-accounts: live companies ranked by open pipeline value (open deals of
 * the company's leads, as GET /api/company/stats counts it) or by engagement in the last
 * ENGAGEMENT_DAYS days: intent signals of its leads plus MEETING_WEIGHT × its meetings (meetings
 * of the company or of one of its leads, not cancelled). Companies with neither an open deal nor
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
    -- Per lead first (open deals, window signals), then one pass over the leads for their company.
    with per_lead as (
      select d.lead_id, count(*)::int as deals, sum(d.value) as value, 0 as signals
      from deals d where d.organization_id = ${ctx.orgId} and d.outcome = 'open'
      group by d.lead_id
      union all
      select i.lead_id, 0, 0, count(*)::int
      from intent_signals i
      where i.organization_id = ${ctx.orgId} and i.occurred_at >= ${since} and i.occurred_at <= ${at}
      group by i.lead_id
    ), per_company as (
      select l.company_id, sum(p.deals)::int as deals, sum(p.value) as value, sum(p.signals)::int as signals
      from per_lead p join leads l on l.id = p.lead_id and l.organization_id = ${ctx.orgId}
      where l.company_id is not null
      group by l.company_id
    ), meeting_counts as (
      select coalesce(m.company_id, l.company_id) as company_id, count(*)::int as n
      from meetings m left join leads l on l.id = m.lead_id and l.organization_id = ${ctx.orgId}
      where m.organization_id = ${ctx.orgId} and m.status <> 4 and m.start_time >= ${since} and m.start_time <= ${at}
        and coalesce(m.company_id, l.company_id) is not null
      group by 1
    )
    select * from (
      select c.id, c.company_name, coalesce(pc.deals, 0) as open_deals, coalesce(pc.value, 0) as open_pipeline_value,
        coalesce(pc.signals, 0) as intent_signals, coalesce(mc.n, 0) as meetings,
        coalesce(pc.signals, 0) + ${MEETING_WEIGHT} * coalesce(mc.n, 0) as engagement_score
      from companies c
        left join per_company pc on pc.company_id = c.id
        left join meeting_counts mc on mc.company_id = c.id
      where c.organization_id = ${ctx.orgId} and c.deleted_at is null
        and (pc.company_id is not null or mc.company_id is not null)
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
