/**
 * GET /api/dashboard/top-accounts: live companies ranked by open pipeline value (open deals of
 * the company's live leads, as GET /api/company/stats counts it) or by engagement in the last
 * ENGAGEMENT_DAYS days: intent signals of its live leads plus MEETING_WEIGHT × its meetings
 * (meetings of the company or of one of its live leads, not cancelled nor no-show). Companies with neither an open deal nor
 * engagement are left out. One statement; ranked by value, only the companies that can make the
 * page have their engagement counted.
 */
import { meetings, intentSignals, companies, companySignalCounts, companyDealCounts } from '../../db/schema';
import type { z } from '@hono/zod-openapi';
import { type SQL, sql } from 'drizzle-orm';
import type { TenantContext } from '../../db/tenant';
import { ENGAGEMENT_DAYS, MEETING_WEIGHT } from './period';
import { engagingSignal } from '../intent';
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
  const sinceDate = new Date(now.getTime() - ENGAGEMENT_DAYS * DAY_MS);
  const since = sql`${sinceDate.toISOString()}::timestamptz`;
  const result = await ctx.db.execute<AccountRow>(
    query.rank_by === 'engagement'
      ? byEngagement(ctx.orgId, query.limit, { since: sinceDate, at: now }, since, at)
      : byPipelineValue(ctx.orgId, query.limit, since, at),
  );
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

/**
 * Open deals by the company they carry (their live lead's), from the company_deal_counts rollup
 * kept by triggers on deals: a few rows per company, no deal or lead is read.
 */
function dealCompanies(orgId: number) {
  return sql`deal_companies as (
      select r.company_id, sum(r.delta)::int as deals, sum(r.value_sum) as value
      from ${companyDealCounts} r
      where r.organization_id = ${orgId} and r.outcome = 'open'
      group by 1 having sum(r.delta) > 0
    )`;
}

const DAY_MS = 86_400_000;
/** Days of a company_signal_counts bucket: engagement_bucket() in drizzle/0041 uses the same. */
export const ENGAGEMENT_BUCKET_DAYS = 5;
const BUCKET_MS = ENGAGEMENT_BUCKET_DAYS * DAY_MS;

interface EngagementWindow {
  since: Date;
  at: Date;
}

/**
 * The window [since, at] as its whole buckets [firstBucket, endBucket) (counted from the rollup)
 * and the two ends outside them, [since, headEnd) and [tailStart, at] (counted from the signals).
 * Buckets start every ENGAGEMENT_BUCKET_DAYS UTC days from 1970-01-01. A window holding no whole
 * bucket is all tail.
 */
export function bucketedWindow({ since, at }: EngagementWindow) {
  let first = Math.ceil(since.getTime() / BUCKET_MS) * BUCKET_MS;
  let end = Math.floor(at.getTime() / BUCKET_MS) * BUCKET_MS;
  if (first >= end) first = end = since.getTime();
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const instant = (ms: number) => new Date(ms).toISOString();
  return { firstBucket: day(first), endBucket: day(end), headEnd: instant(first), tailStart: instant(end) };
}

/**
 * Every company's engagement is needed to rank by it: the window's signals by the company they
 * carry (whole 5-day buckets from company_signal_counts, the two partial ends as index-only
 * ranges of intent_signals) and its meetings, joined to the open deals and the live companies.
 */
function byEngagement(orgId: number, limit: number, window: EngagementWindow, since: SQL, at: SQL): SQL {
  const parts = bucketedWindow(window);
  return sql`
    with ${dealCompanies(orgId)}, signal_counts as (
      select w.company_id, sum(w.n)::int as n from (
        select r.company_id, r.delta as n from ${companySignalCounts} r
        where r.organization_id = ${orgId} and r.bucket >= ${parts.firstBucket}::date and r.bucket < ${parts.endBucket}::date
        union all
        select s.lead_company_id, 1 from ${intentSignals} s
        where s.organization_id = ${orgId} and s.occurred_at >= ${since} and s.occurred_at < ${parts.headEnd}::timestamptz
          and s.lead_company_id is not null and ${engagingSignal('s')}
        union all
        select s.lead_company_id, 1 from ${intentSignals} s
        where s.organization_id = ${orgId} and s.occurred_at >= ${parts.tailStart}::timestamptz and s.occurred_at <= ${at}
          and s.lead_company_id is not null and ${engagingSignal('s')}
      ) w
      group by 1 having sum(w.n) > 0
    ), meeting_counts as (
      select coalesce(m.company_id, m.lead_company_id) as company_id, count(*)::int as n
      from ${meetings} m
      where m.organization_id = ${orgId} and m.status not in (4, 5) and m.start_time >= ${since} and m.start_time <= ${at}
        and coalesce(m.company_id, m.lead_company_id) is not null
      group by 1
    )
    select * from (
      select c.id, c.company_name, coalesce(dc.deals, 0) as open_deals, coalesce(dc.value, 0) as open_pipeline_value,
        coalesce(sc.n, 0) as intent_signals, coalesce(mc.n, 0) as meetings,
        coalesce(sc.n, 0) + ${MEETING_WEIGHT} * coalesce(mc.n, 0) as engagement_score
      from ${companies} c
        left join deal_companies dc on dc.company_id = c.id
        left join signal_counts sc on sc.company_id = c.id
        left join meeting_counts mc on mc.company_id = c.id
      where c.organization_id = ${orgId} and c.deleted_at is null
        and (dc.company_id is not null or sc.company_id is not null or mc.company_id is not null)
    ) ranked
    order by engagement_score desc, open_pipeline_value desc, id
    limit ${limit}`;
}

/**
 * Ranked by open pipeline value, only the companies at or above the `limit`-th value (ties
 * included) can make the page, so only theirs need engagement, each one index range of signals
 * and of meetings by company. When fewer live companies than `limit` have open deals, companies
 * with engagement alone fill the page: then every live company is a candidate.
 */
function byPipelineValue(orgId: number, limit: number, since: SQL, at: SQL): SQL {
  return sql`
    with ${dealCompanies(orgId)}, valued as (
      select dc.company_id, dc.value
      from deal_companies dc join ${companies} c on c.id = dc.company_id
      where c.organization_id = ${orgId} and c.deleted_at is null
    ), cutoff as (
      select value from valued order by value desc offset ${limit - 1} limit 1
    ), candidates as (
      select company_id as id from valued where value >= (select value from cutoff)
      union all
      select c.id from ${companies} c
      where c.organization_id = ${orgId} and c.deleted_at is null and not exists (select 1 from cutoff)
    )
    select * from (
      select c.id, c.company_name, coalesce(dc.deals, 0) as open_deals, coalesce(dc.value, 0) as open_pipeline_value,
        sc.n as intent_signals, mc.n as meetings, sc.n + ${MEETING_WEIGHT} * mc.n as engagement_score
      from candidates k
        join ${companies} c on c.id = k.id and c.organization_id = ${orgId}
        left join deal_companies dc on dc.company_id = c.id
        cross join lateral (
          select count(*)::int as n from ${intentSignals} s
          where s.organization_id = ${orgId} and s.lead_company_id = c.id
            and s.occurred_at >= ${since} and s.occurred_at <= ${at} and ${engagingSignal('s')}
        ) sc
        cross join lateral (
          select count(*)::int as n from ${meetings} m
          where m.organization_id = ${orgId} and m.status not in (4, 5) and m.start_time >= ${since} and m.start_time <= ${at}
            and (m.company_id = c.id or (m.company_id is null and m.lead_company_id = c.id))
        ) mc
    ) ranked
    where open_deals > 0 or engagement_score > 0
    order by open_pipeline_value desc, engagement_score desc, id
    limit ${limit}`;
}
