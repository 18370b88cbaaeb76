/**
 * Account health of a target account, computed in SQL from the account's company:
 *   - its leads: live leads whose company_id is the company, or that a live contact of the company points at (contacts.lead_id);
 *   - signals: intent signals of those leads in the last SIGNAL_WINDOW_DAYS days, POINTS_PER_SIGNAL each, at most SIGNAL_POINTS_MAX;
 *   - meetings: meetings (not cancelled, not no-show) with the company, one of its contacts or one of its leads,
 *     starting from MEETING_PAST_DAYS days ago to MEETING_AHEAD_DAYS days ahead, POINTS_PER_MEETING each, at most MEETING_POINTS_MAX;
 *   - deals: on those leads, DEAL_WON_POINTS with any won deal, else DEAL_OPEN_POINTS with any open deal.
 * score = the sum (0..100); band: hot at HOT_FROM and above, warm at WARM_FROM and above, cold below.
 * The lateral subquery reads the outer `target_accounts` row, so a list computes every row's
 * health in its one statement. `now()` is the transaction's clock.
 */
import { sql, type SQL } from 'drizzle-orm';
import { targetAccounts, meetings, intentSignals, deals, contacts, leads } from '../../db/schema';
import { engagingSignal } from '../intent';

export const SIGNAL_WINDOW_DAYS = 30;
export const POINTS_PER_SIGNAL = 5;
export const SIGNAL_POINTS_MAX = 40;
export const MEETING_PAST_DAYS = 90;
export const MEETING_AHEAD_DAYS = 30;
export const POINTS_PER_MEETING = 10;
export const MEETING_POINTS_MAX = 30;
export const DEAL_WON_POINTS = 30;
export const DEAL_OPEN_POINTS = 20;
export const HOT_FROM = 60;
export const WARM_FROM = 30;
export const HEALTH_BANDS = ['cold', 'warm', 'hot'] as const;
export type HealthBand = (typeof HEALTH_BANDS)[number];

const org = targetAccounts.organizationId;
const company = targetAccounts.companyId;

/**
 * `acc`: the account's contact ids, the leads its contacts point at outside the company
 * (`other_lead_ids`), and its open and won deals, gathered once per account (`offset 0` keeps the
 * planner from re-running them per use). Deals, signals and meetings carry their live lead's
 * company (`lead_company_id`, kept by triggers: drizzle/0025 and 0031), so those of the company's
 * own leads are index ranges by company; only the contacts' other leads are probed by
 * `= any(array)`, and they belong to another company or none, so nothing is counted twice.
 * An account costs a few index ranges however large the organization is.
 */
const accountIds = sql`(select contacts_of.contact_ids, contacts_of.other_lead_ids, deals_of.open_deals, deals_of.won_deals
    from (select array_agg(c.id) as contact_ids,
          array_agg(distinct l.id) filter (where l.id is not null and l.company_id is distinct from ${company}) as other_lead_ids
        from ${contacts} c left join ${leads} l on l.id = c.lead_id and l.organization_id = ${org} and l.deleted_at is null
        where c.organization_id = ${org} and c.company_id = ${company} and c.deleted_at is null) contacts_of
      cross join lateral (select count(*) filter (where x.outcome = 'open')::int as open_deals,
          count(*) filter (where x.outcome = 'won')::int as won_deals
        from (select d.outcome from ${deals} d
            where d.organization_id = ${org} and d.lead_company_id = ${company} and d.outcome in ('open', 'won')
          union all
          select d.outcome from ${deals} d
            where d.organization_id = ${org} and d.lead_id = any(contacts_of.other_lead_ids) and d.outcome in ('open', 'won')) x) deals_of
    offset 0) acc`;

/** An intent signal `s` inside the signal window. */
const signalInWindow = sql`s.occurred_at > now() - make_interval(days => ${SIGNAL_WINDOW_DAYS}) and s.occurred_at <= now()`;

/**
 * The company's live leads' signals `s` (one index range), and its contacts' other leads' signals;
 * only signals a person made: an open a mail client's proxy prefetched (Apple Mail Privacy
 * Protection fetches every image on delivery) is no engagement (intent's engagingSignal).
 */
const companySignals = sql`s.organization_id = ${org} and s.lead_company_id = ${company} and ${engagingSignal('s')}`;
const otherLeadSignals = sql`s.organization_id = ${org} and s.lead_id = any(acc.other_lead_ids) and ${engagingSignal('s')}`;

/** A meeting `m` that counts: not cancelled or no-show, in the meeting window, with the company, a contact or a lead. */
const meetingCounts = sql`m.organization_id = ${org} and m.status in (1, 2, 3)
      and m.start_time >= now() - make_interval(days => ${MEETING_PAST_DAYS})
      and m.start_time <= now() + make_interval(days => ${MEETING_AHEAD_DAYS})
      and (m.company_id = ${company} or m.lead_company_id = ${company}
        or m.contact_id = any(acc.contact_ids) or m.lead_id = any(acc.other_lead_ids))`;

/** `left join lateral <this> on true`: one row of counts per target account, named `health`. */
export const healthLateral = sql`(select sig.signal_count, sig.last_signal_at, mt.meeting_count, acc.open_deals, acc.won_deals
  from ${accountIds}
  cross join lateral (select
      (select count(*) from ${intentSignals} s where ${companySignals} and ${signalInWindow})::int
        + (select count(*) from ${intentSignals} s where ${otherLeadSignals} and ${signalInWindow})::int as signal_count,
      greatest((select max(s.occurred_at) from ${intentSignals} s where ${companySignals}),
        (select max(s.occurred_at) from ${intentSignals} s where ${otherLeadSignals})) as last_signal_at) sig
  cross join lateral (select count(*)::int as meeting_count from ${meetings} m where ${meetingCounts}) mt
  ) as health`;

const signalPoints = sql`least(${SIGNAL_POINTS_MAX}, ${POINTS_PER_SIGNAL} * health.signal_count)`;
const meetingPoints = sql`least(${MEETING_POINTS_MAX}, ${POINTS_PER_MEETING} * health.meeting_count)`;
const dealPoints = sql`(case when health.won_deals > 0 then ${DEAL_WON_POINTS} when health.open_deals > 0 then ${DEAL_OPEN_POINTS} else 0 end)`;

/** The health score, 0..100 (an integer), of the row joined with `healthLateral`. */
export const healthScore: SQL<number> = sql<number>`(${signalPoints} + ${meetingPoints} + ${dealPoints})::int`;

/** The band of the score. */
export const healthBand: SQL<HealthBand> = sql<HealthBand>`(case when ${healthScore} >= ${HOT_FROM} then 'hot' when ${healthScore} >= ${WARM_FROM} then 'warm' else 'cold' end)`;

/** Engaged: any signal in the signal window or any meeting in the meeting window. */
export const isEngaged: SQL<boolean> = sql<boolean>`(health.signal_count > 0 or health.meeting_count > 0)`;

/** The funnel stage: customer (a won deal), opportunity (an open deal), engaged, or targeted. */
export const ABM_STAGES = ['targeted', 'engaged', 'opportunity', 'customer'] as const;
export type AbmStage = (typeof ABM_STAGES)[number];
export const abmStage: SQL<AbmStage> = sql<AbmStage>`(case when health.won_deals > 0 then 'customer' when health.open_deals > 0 then 'opportunity' when ${isEngaged} then 'engaged' else 'targeted' end)`;

/** The health as one JSON value (score, band, stage and the components that made it). */
export const healthJson = sql<HealthJson>`json_build_object(
  'score', ${healthScore}, 'band', ${healthBand}, 'stage', ${abmStage}, 'engaged', ${isEngaged},
  'signals', json_build_object('count', health.signal_count, 'last_at', health.last_signal_at, 'points', ${signalPoints}),
  'meetings', json_build_object('count', health.meeting_count, 'points', ${meetingPoints}),
  'deals', json_build_object('open', health.open_deals, 'won', health.won_deals, 'points', ${dealPoints}))`;

export interface HealthJson {
  score: number;
  band: HealthBand;
  stage: AbmStage;
  engaged: boolean;
  signals: { count: number; last_at: string | null; points: number };
  meetings: { count: number; points: number };
  deals: { open: number; won: number; points: number };
}

/** The health in its wire form (instants in ISO 8601 UTC). */
export function presentHealth(health: HealthJson): HealthJson {
  return {
    ...health,
    signals: {
      ...health.signals,
      last_at: health.signals.last_at === null ? null : new Date(health.signals.last_at).toISOString(),
    },
  };
}

/** Why an account scores what it does, in plain words (top-engaged reasons). */
export function healthReasons(health: HealthJson): string[] {
  const reasons: string[] = [];
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (health.signals.count > 0)
    reasons.push(
      `${plural(health.signals.count, 'intent signal')} in the last ${SIGNAL_WINDOW_DAYS} days (+${health.signals.points})`,
    );
  if (health.meetings.count > 0)
    reasons.push(
      `${plural(health.meetings.count, 'meeting')} from ${MEETING_PAST_DAYS} days ago to ${MEETING_AHEAD_DAYS} days ahead (+${health.meetings.points})`,
    );
  if (health.deals.won > 0) reasons.push(`${plural(health.deals.won, 'won deal')} (+${health.deals.points})`);
  else if (health.deals.open > 0) reasons.push(`${plural(health.deals.open, 'open deal')} (+${health.deals.points})`);
  return reasons;
}
