/**
 * The intent score of a lead: the sum over its signals of weight × 0.5^(age_days / 7), i.e. a
 * signal loses half its weight every 7 days. Because every signal decays at the same rate, the
 * whole score decays as one exponential, so the instant it falls below the hot threshold is
 * known when it is computed (`hot_until`); a lead is hot while `hot_until > now()`. Scores only
 * rise when signals are added, so an upward crossing can only happen in a rescoring, which is
 * where alerts are created: once per crossing, never per signal.
 */
import { leads, notifications, intentAlerts, leadIntentScores, intentSignals } from '../../db/schema';
import type { TransactionEffects } from '../../core/transaction-effects';
import { deliveryIdsOf, sendWebhookDeliveries, webhookDeliveriesSql } from '../webhooks';
import { sql, type SQL } from 'drizzle-orm';
import type { Queryable } from '../../db/client';
import { NOTIFICATION_TYPES } from '../notifications/service';
import type { JobMessage } from '../../jobs/messages';
import { sendRowsAfterCommit } from '../../jobs/outbox';
import { leadScoringCtes, scoringOutboxRows } from '../../jobs/scoring-request';

export const SIGNAL_TYPES = [
  'pricing_page_visit',
  'demo_requested',
  'form_submitted',
  'reply_received',
  'email_opened',
  'email_opened_3x',
  'link_clicked',
  'case_study_download',
  'manual',
] as const;
export type SignalType = (typeof SIGNAL_TYPES)[number];

/** Points a fresh signal of each type adds to the intent score. */
export const SIGNAL_WEIGHTS: Record<SignalType, number> = {
  demo_requested: 40,
  reply_received: 25,
  pricing_page_visit: 20,
  form_submitted: 20,
  case_study_download: 15,
  email_opened_3x: 15,
  link_clicked: 10,
  manual: 10,
  email_opened: 5,
};

/**
 * A conversation: a `manual` signal whose source is `call`. The voice module writes one for every
 * completed outbound call of ENGAGED_CALL_SECONDS or more, and a manual signal posted with source
 * `call` counts the same. The prospect answered and talked, as much a sign of intent as a reply
 * (`reply_received`); at the plain `manual` weight (10, the scoring model's engagement reference
 * point) a call could only cancel the "no engagement" factor, never count for the lead.
 */
export const CALL_SIGNAL_WEIGHT = 25;

/** A signal's weight halves every HALF_LIFE_DAYS. */
export const HALF_LIFE_DAYS = 7;
const HALF_LIFE_SECONDS = HALF_LIFE_DAYS * 86_400;
/** A lead whose score reaches this is hot (one alert per upward crossing). */
export const HOT_THRESHOLD = 50;
/** Signals older than this count for nothing (40 points are worth under 0.001 after 180 days). */
export const SIGNAL_HORIZON_DAYS = 180;
/** Notification type_id of an intent alert (see the notifications module). */
export const INTENT_ALERT_NOTIFICATION_TYPE = NOTIFICATION_TYPES.intentAlert;

/** The weight of a signal type in SQL (0 for a type not in the table). */
function weightOf(signalType: SQL): SQL {
  const cases = Object.entries(SIGNAL_WEIGHTS).map(([type, weight]) => sql`when ${type} then ${weight}::float8`);
  return sql`(case ${signalType} ${sql.join(cases, sql` `)} else 0::float8 end)`;
}

/** A signal (table alias `alias`) that is an open a mail client's proxy prefetched (tracking/prefetch.ts). */
function prefetchedOpen(alias: string): SQL {
  const s = sql.raw(alias);
  return sql`(${s}.signal_type = 'email_opened' and ${s}.signal_detail @> '{"adjusted": true}'::jsonb)`;
}

/**
 * A signal (table alias `alias`) that shows a person engaged: every signal but an open a mail
 * client's proxy prefetched, which no person made. Account health, the ABM reports and top
 * accounts count these; the company_signal_counts rollup holds only these (drizzle/0085).
 */
export function engagingSignal(alias: string): SQL {
  return sql`not ${prefetchedOpen(alias)}`;
}

/**
 * The points a signal (table alias `alias`) is worth now; signals dated in the future count as now.
 * A conversation (a `manual` signal from a call) is worth CALL_SIGNAL_WEIGHT.
 * An open a mail client prefetched (tracking/prefetch.ts: signal_detail `adjusted: true`) is kept
 * as a record but is worth nothing: no person opened anything.
 */
export function pointsNow(alias: string): SQL {
  const s = sql.raw(alias);
  const adjusted = prefetchedOpen(alias);
  const conversation = sql`(${s}.signal_type = 'manual' and ${s}.source = 'call')`;
  return sql`(case when ${adjusted} then 0::float8 when ${conversation} then ${CALL_SIGNAL_WEIGHT}::float8 else ${weightOf(sql`${s}.signal_type`)} end * power(0.5::float8, greatest(extract(epoch from (now() - ${s}.occurred_at))::float8, 0) / ${HALF_LIFE_SECONDS}::float8))`;
}

/** `occurred_at` within the horizon, for alias `alias`. */
export function withinHorizon(alias: string): SQL {
  return sql`${sql.raw(alias)}.occurred_at > now() - make_interval(days => ${SIGNAL_HORIZON_DAYS}::int)`;
}

/**
 * A condition for the statement that inserts intent signals: true, once it holds a transaction-scoped
 * advisory lock on the intent score of each lead `leadIds` yields (a subquery with a `lead_id`
 * column), taken in lead id order so that two writers cannot deadlock. The rescoring that follows
 * computes the score from the signals its statement sees: without the lock, two signals recorded
 * at once for one lead were each scored without the other (a demo request and a pricing visit, 40
 * and 20, left the lead at 20, never hot, with no alert). With it, the second writer waits in its
 * insert until the first commits, and its rescoring, a later statement, sees both signals. Taken in
 * the insert, so it costs no statement.
 */
export function intentScoresLocked(orgId: number, leadIds: SQL): SQL {
  return sql`(select count(pg_advisory_xact_lock(hashtextextended(${`${orgId}:intent-score:`} || t.k::text, 0)))
    from (select distinct s.lead_id as k from (${leadIds}) as s where s.lead_id is not null order by 1) as t) >= 0`;
}

/**
 * The locks of `intentScoresLocked`, taken in a statement of their own, for a writer whose insert
 * also reads the lead's other signals (tracking's email_opened_3x counts a token's opens): a
 * statement reads the rows committed when it started, so an insert that waited for the lock in
 * itself still counted without the signals of the writer it waited for. Two tracking batches with
 * the second and the third open of a token each counted two opens, and neither added
 * email_opened_3x. Taken before, the insert starts after the other writer committed, and counts
 * its signals.
 */
export async function lockIntentScores(db: Queryable, orgId: number, leadIds: number[]): Promise<void> {
  if (leadIds.length === 0) return;
  const ids = `{${[...new Set(leadIds)].map((id) => Math.trunc(id)).join(',')}}`;
  await db.execute(sql`select ${intentScoresLocked(orgId, sql`select unnest(${ids}::bigint[]) as lead_id`)} as locked`);
}

export interface Rescored {
  leadId: number;
  score: number;
  hot: boolean;
  /** The alert this rescoring created (the lead crossed the threshold), else null. */
  alertId: number | null;
}

/**
 * Recomputes the intent score of these leads of the organization from their signals, in ONE
 * statement: upserts lead_intent_scores, and for every lead that was not hot and now is, inserts
 * an intent alert and a notification (type 5) to the lead's assignee. Whether a lead crossed is
 * decided on the locked score row itself (`on conflict do update` sees the latest committed
 * version), so concurrent rescorings of one lead cannot both alert; `last_crossed_at` set to
 * this statement's timestamp is how RETURNING tells which rows crossed here.
 * Must run scoped to the organization (RLS).
 */
export async function rescoreLeads(
  db: Queryable,
  orgId: number,
  leadIds: number[],
  /** The request's effects, to send the `intent.hot` webhooks and the lead-scoring job right after the commit (without: the lease sweep sends the webhooks, the cron's outbox sweep the job). */
  effects?: TransactionEffects,
): Promise<Rescored[]> {
  if (leadIds.length === 0) return [];
  const ids = `{${[...new Set(leadIds)].map((id) => Math.trunc(id)).join(',')}}`;
  const threshold = sql`${HOT_THRESHOLD}::float8`;
  const result = await db.execute<{
    lead_id: string;
    score: number;
    hot: boolean;
    alert_id: string | null;
    webhook_ids: number[];
    scoring: { id: number; message: JobMessage }[];
  }>(sql`
    with contributions as (
      select s.lead_id, s.signal_type, s.occurred_at, ${pointsNow('s')} as points
      from ${intentSignals} s
      where s.organization_id = ${orgId} and s.lead_id = any(${ids}::bigint[]) and ${withinHorizon('s')}
    ),
    scored as (
      select c.lead_id, sum(c.points)::float8 as score,
        jsonb_path_query_array(
          jsonb_agg(jsonb_build_object('signal_type', c.signal_type, 'occurred_at', c.occurred_at,
            'points', round(c.points::numeric, 1)) order by c.points desc),
          '$[0 to 4]') as reasons
      from contributions c
      group by c.lead_id
    ),
    upserted as (
      insert into ${leadIntentScores} as st (organization_id, lead_id, score, scored_at, hot_until, last_crossed_at)
      select ${orgId}, sc.lead_id, sc.score, now(),
        case when sc.score >= ${threshold}
          then now() + make_interval(secs => ${HALF_LIFE_SECONDS}::float8 * ln(sc.score / ${threshold}) / ln(2::float8)) end,
        case when sc.score >= ${threshold} then statement_timestamp() end
      from scored sc
      on conflict (organization_id, lead_id) do update set
        score = excluded.score,
        scored_at = excluded.scored_at,
        hot_until = excluded.hot_until,
        last_crossed_at = case
          when excluded.score >= ${threshold} and (st.hot_until is null or st.hot_until <= now())
          then statement_timestamp() else st.last_crossed_at end
      returning st.lead_id, st.score, st.hot_until, st.last_crossed_at is not distinct from statement_timestamp() as crossed
    ),
    alerts as (
      insert into ${intentAlerts} (organization_id, lead_id, score, reasons)
      select ${orgId}, u.lead_id, u.score, sc.reasons
      from upserted u join scored sc on sc.lead_id = u.lead_id
      where u.crossed
      returning id, lead_id, score
    ),
    notices as (
      insert into ${notifications} (organization_id, user_id, type_id, title, data)
      select ${orgId}, l.assigned_to, ${INTENT_ALERT_NOTIFICATION_TYPE}::smallint,
        'Hot lead: ' || l.first_name || ' ' || l.last_name,
        jsonb_build_object('lead_id', a.lead_id, 'intent_alert_id', a.id, 'intent_score', round(a.score::numeric, 2))
      from alerts a join ${leads} l on l.id = a.lead_id and l.organization_id = ${orgId}
      where l.assigned_to is not null and l.deleted_at is null
    ),
    hooks as (
      ${webhookDeliveriesSql({ orgId, userId: null }, 'intent.hot', {
        from: sql`alerts a join ${leads} l on l.id = a.lead_id and l.organization_id = ${orgId}`,
        data: sql`jsonb_build_object('alert_id', a.id, 'lead_id', a.lead_id, 'lead_name', l.first_name || ' ' || l.last_name,
          'email', l.email, 'score', round(a.score::numeric, 2), 'assigned_to', l.assigned_to)`,
        where: sql`l.deleted_at is null`,
      })}
    ), ${leadScoringCtes({ orgId, userId: null }, sql`(select array_agg(u.lead_id) from upserted u)`)}
    select u.lead_id, u.score, coalesce(u.hot_until > now(), false) as hot, a.id as alert_id,
      ${deliveryIdsOf('hooks')} as webhook_ids, ${scoringOutboxRows} as scoring
    from upserted u left join alerts a on a.lead_id = u.lead_id`);
  if (effects) sendWebhookDeliveries({ orgId, effects }, result.rows[0]?.webhook_ids ?? []);
  // A new signal changes the lead's engagement: its lead score follows (modules/lead-scoring).
  sendRowsAfterCommit({ orgId, effects }, result.rows[0]?.scoring ?? [], { consumerDeletes: true });
  return result.rows.map((row) => ({
    leadId: Number(row.lead_id),
    score: roundScore(Number(row.score)),
    hot: row.hot,
    alertId: row.alert_id === null ? null : Number(row.alert_id),
  }));
}

export function roundScore(score: number): number {
  return Math.round(score * 100) / 100;
}
