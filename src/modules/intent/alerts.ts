/**
 * Intent alerts (one per crossing of the hot threshold, raised by rescoring: scoring.ts) and the
 * hot-leads view: list, acknowledge, and the leads hot right now with the reasons why.
 */
import type { z } from '@hono/zod-openapi';
import { and, eq, ilike, isNull, sql } from 'drizzle-orm';
import { NotFound } from '../../core/errors';
import { containsPattern, defineList } from '../../core/list';
import { isoTimestamp } from '../../core/schemas';
import { intentAlerts, leads, type IntentReason, intentSignals, leadIntentScores } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { alertListFilters, type HotLeadsQuery } from './schemas';
import { engagingSignal, pointsNow, withinHorizon } from './scoring';
import { presentSignal, type SignalRow } from './service';

type AlertRow = {
  id: number | string;
  lead_id: number | string;
  lead_name: string;
  assigned_to_id: number | string | null;
  score: number;
  reasons: IntentReason[];
  created_at: Date | string;
  acknowledged_at: Date | string | null;
  acknowledged_by: number | string | null;
};

function presentAlert(row: AlertRow) {
  return {
    id: Number(row.id),
    lead_id: Number(row.lead_id),
    lead_name: row.lead_name,
    assigned_to_id: row.assigned_to_id === null ? null : Number(row.assigned_to_id),
    score: Math.round(row.score * 100) / 100,
    reasons: row.reasons.map((reason) => ({
      signal_type: reason.signal_type,
      occurred_at: isoTimestamp(reason.occurred_at) as string,
      points: Number(reason.points),
    })),
    created_at: isoTimestamp(row.created_at) as string,
    acknowledged_at: isoTimestamp(row.acknowledged_at),
    acknowledged_by: row.acknowledged_by === null ? null : Number(row.acknowledged_by),
  };
}

const leadName = sql<string>`${leads.firstName} || ' ' || ${leads.lastName}`;

const alertList = defineList({
  sort: { id: intentAlerts.id, created_at: intentAlerts.createdAt, score: intentAlerts.score },
  filters: alertListFilters,
  search: (term) => ilike(leadName, containsPattern(term)),
  createdAt: intentAlerts.createdAt,
  base: (ctx, params) => ({
    rows: (columns) =>
      ctx.db
        .select({
          id: intentAlerts.id,
          lead_id: intentAlerts.leadId,
          lead_name: leadName,
          assigned_to_id: leads.assignedTo,
          score: intentAlerts.score,
          reasons: intentAlerts.reasons,
          created_at: intentAlerts.createdAt,
          acknowledged_at: intentAlerts.acknowledgedAt,
          acknowledged_by: intentAlerts.acknowledgedBy,
          ...columns,
        })
        .from(intentAlerts)
        .innerJoin(leads, and(eq(leads.id, intentAlerts.leadId), isNull(leads.deletedAt)))
        .$dynamic(),
    where: tenantWhere(
      ctx,
      intentAlerts,
      params.lead_id ? eq(intentAlerts.leadId, params.lead_id) : undefined,
      params.assigned_to_id ? eq(leads.assignedTo, params.assigned_to_id) : undefined,
      params.from_date ? sql`${intentAlerts.createdAt} >= ${params.from_date}::date` : undefined,
      params.to_date ? sql`${intentAlerts.createdAt} < (${params.to_date}::date + 1)` : undefined,
    ),
  }),
  present: (row) => presentAlert(row),
});
export const AlertListQuery = alertList.query;

export const listAlerts = alertList.run;

/** Marks the alert acknowledged by the caller; acknowledging again keeps the first time and user. */
export async function acknowledgeAlert(ctx: TenantContext, id: number) {
  const result = await ctx.db.execute<AlertRow>(sql`
    with updated as (
      update ${intentAlerts} set
        acknowledged_at = coalesce(acknowledged_at, now()),
        acknowledged_by = case when acknowledged_at is null then ${ctx.userId}::bigint else acknowledged_by end
      where organization_id = ${ctx.orgId} and id = ${id}
        and exists (select 1 from ${leads} l where l.id = intent_alerts.lead_id and l.organization_id = ${ctx.orgId} and l.deleted_at is null)
      returning *
    )
    select u.id, u.lead_id, l.first_name || ' ' || l.last_name as lead_name, l.assigned_to as assigned_to_id,
      u.score, u.reasons, u.created_at, u.acknowledged_at, u.acknowledged_by
    from updated u join ${leads} l on l.id = u.lead_id`);
  const row = result.rows[0];
  if (!row) throw new NotFound('Intent alert', id);
  return presentAlert(row);
}

/** "2 days ago", "3 hours ago", "just now". */
function ageText(seconds: number): string {
  const units: [number, string][] = [
    [86_400, 'day'],
    [3_600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, name] of units) {
    const count = Math.floor(seconds / size);
    if (count >= 1) return `${count} ${name}${count === 1 ? '' : 's'} ago`;
  }
  return 'just now';
}

type HotLeadRow = {
  lead_id: string | number;
  first_name: string;
  last_name: string;
  email: string | null;
  assigned_to: string | number | null;
  last_crossed_at: Date | string | null;
  score: number;
  top: { signal_type: string; age_seconds: number; points: number }[];
  recent: SignalRow[];
};

/**
 * Leads hot right now, hottest first: their score recomputed now from their signals (all decay
 * at one rate, so `hot_until` orders them the same way and bounds the scan), the largest
 * contributions as reasons and the latest signals.
 */
export async function hotLeads(ctx: TenantContext, params: z.output<typeof HotLeadsQuery>) {
  const hot = sql`${leadIntentScores} st
    join ${leads} l on l.id = st.lead_id and l.organization_id = st.organization_id and l.deleted_at is null`;
  const hotWhere = sql`st.organization_id = ${ctx.orgId} and st.hot_until > now()
      ${params.assigned_to_id ? sql`and l.assigned_to = ${params.assigned_to_id}` : sql``}
      ${
        params.signal_type
          ? sql`and exists (select 1 from ${intentSignals} x where x.organization_id = st.organization_id
              and x.lead_id = st.lead_id and x.signal_type = ${params.signal_type} and x.occurred_at > now() - interval '30 days'
              and ${engagingSignal('x')})`
          : sql``
      }`;
  // Every lead hot now under the filters is counted, in the same statement, not only the `limit`
  // returned (the reasons and signals are built for those alone).
  const result = await ctx.db.execute<HotLeadRow & { total: string | number }>(sql`
    select st.lead_id, l.first_name, l.last_name, l.email, l.assigned_to, st.last_crossed_at, scored.score, scored.top, recent.signals as recent,
      (select count(*) from ${hot} where ${hotWhere}) as total
    from ${hot}
    cross join lateral (
      select coalesce(sum(c.points), 0)::float8 as score,
        coalesce(jsonb_path_query_array(jsonb_agg(jsonb_build_object('signal_type', c.signal_type,
          'age_seconds', greatest(extract(epoch from now() - c.occurred_at), 0), 'points', round(c.points::numeric, 1))
          order by c.points desc), '$[0 to 2]'), '[]'::jsonb) as top
      from (select s.signal_type, s.occurred_at, ${pointsNow('s')} as points from ${intentSignals} s
            where s.organization_id = st.organization_id and s.lead_id = st.lead_id and ${withinHorizon('s')}) c
    ) scored
    cross join lateral (
      select coalesce(jsonb_agg(to_jsonb(r) order by r.occurred_at desc, r.id desc), '[]'::jsonb) as signals
      from (select s.id, s.lead_id, s.signal_type, s.signal_detail, s.source, s.occurred_at, s.created_at
            from ${intentSignals} s where s.organization_id = st.organization_id and s.lead_id = st.lead_id
            order by s.occurred_at desc, s.id desc limit 5) r
    ) recent
    where ${hotWhere}
    order by st.hot_until desc, st.lead_id
    limit ${params.limit}`);
  const rows = result.rows
    .map((row) => ({
      lead_id: Number(row.lead_id),
      first_name: row.first_name,
      last_name: row.last_name,
      email: row.email,
      assigned_to_id: row.assigned_to === null ? null : Number(row.assigned_to),
      intent_score: Math.round(Number(row.score) * 100) / 100,
      hot_since: isoTimestamp(row.last_crossed_at),
      reasons: row.top.map(
        (top) => `${top.signal_type} ${ageText(Number(top.age_seconds))} (+${Number(top.points).toFixed(1)})`,
      ),
      recent_signals: row.recent.map(presentSignal),
    }))
    .sort((a, b) => b.intent_score - a.intent_score || a.lead_id - b.lead_id);
  return { rows, total: Number(result.rows[0]?.total ?? 0) };
}
