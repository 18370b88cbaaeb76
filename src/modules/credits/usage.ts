/**
 * The organization's credits as `GET /api/credits` answers them: the balance, what open
 * reservations hold, and this calendar month's (UTC) use per feature, read from the ledger in
 * one statement. Use is what was settled this month; refunded calls cost nothing.
 */
import { sql } from 'drizzle-orm';
import { creditLedger } from '../../db/schema';
import type { TenantContext } from '../../db/tenant';
import { CREDIT_FEATURES, type CreditFeature, FEATURE_PRICES } from './prices';

function monthBounds(now: Date): { start: Date; end: Date } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end };
}

export async function creditSummary(ctx: Pick<TenantContext, 'db' | 'orgId'>, now = new Date()) {
  const { start, end } = monthBounds(now);
  const result = await ctx.db.execute<{
    balance: string;
    reserved: string;
    granted: string;
    usage: { feature: string; credits: number; calls: number }[] | null;
  }>(sql`
    select
      coalesce(sum(l.amount), 0)::bigint as balance,
      coalesce(-sum(l.amount) filter (
        where l.kind = 'reservation' and not exists (select 1 from ${creditLedger} c where c.reservation_id = l.id)
      ), 0)::bigint as reserved,
      coalesce(sum(l.amount) filter (where l.kind = 'grant'), 0)::bigint as granted,
      (select json_agg(u) from (
        select r.feature, -sum(r.amount)::int as credits, count(*)::int as calls
        from ${creditLedger} s join ${creditLedger} r on r.id = s.reservation_id
        where s.organization_id = ${ctx.orgId} and s.kind = 'settlement'
          and s.created_at >= ${start.toISOString()} and s.created_at < ${end.toISOString()}
        group by r.feature
      ) u) as usage
    from ${creditLedger} l
    where l.organization_id = ${ctx.orgId}`);
  const row = result.rows[0];
  const used = new Map((row.usage ?? []).map((entry) => [entry.feature, entry]));
  const byFeature = CREDIT_FEATURES.map((feature: CreditFeature) => ({
    feature,
    name: FEATURE_PRICES[feature].name,
    credits: used.get(feature)?.credits ?? 0,
    calls: used.get(feature)?.calls ?? 0,
  }));
  return {
    balance: Number(row.balance),
    reserved: Number(row.reserved),
    granted_total: Number(row.granted),
    period_start: start.toISOString(),
    period_end: end.toISOString(),
    used_this_month: byFeature.reduce((sum, entry) => sum + entry.credits, 0),
    usage_by_feature: byFeature,
  };
}
