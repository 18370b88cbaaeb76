/**
 * How a deal's forecast is computed, in one SQL expression set (so a nightly run over every deal
 * and a single deal's change compute it the same way, set-based):
 *
 *   base        = the stage's probability (won: 1, lost: 0, and no factor applies to a closed deal)
 *   probability = min(1, base × every factor's multiplier that applies), rounded to 4 decimals
 *   weighted    = value × probability, rounded to cents
 *
 * Factors (an open deal only):
 *   stalled             ×0.7  days in stage > the stage's max_days_in_stage
 *   close_date_passed   ×0.5  expected_close_date before today
 *   recent_activity     ×1.1  the lead had activity in the last 14 days
 *   no_recent_activity  ×0.8  neither the lead's activity nor the deal's creation in the last 30 days
 *
 * The lead's activity is the latest of: its last_activity_at (notes, follow-ups …), its intent
 * signals and its activity-feed entries, each only up to `now` (so a fixed clock sees the past).
 *
 * Every input is one index descent per deal, never a scan of the lead's history, and each runs
 * once per deal (the lateral is fenced with `offset 0`): a lead's feed can hold thousands of
 * entries, and the nightly run computes every open deal. The feed's is its newest entry in the
 * feed's own order (id, as the feed list shows it) that is not after `now`, read through
 * feed_entries_organization_model_idx; the entry's created_at is when its transaction started,
 * so the newest by id is the latest but for writes that overlapped by milliseconds. A
 * max(created_at) read every entry of the lead for every deal: a lead with 10 000 entries and
 * 10 000 deals made the nightly run 10^8 row reads.
 */
import { feedEntries, intentSignals, leads } from '../../db/schema';
import { sql, type SQL } from 'drizzle-orm';

export const FACTORS = {
  stalled: { multiplier: 0.7, description: 'Longer in its stage than the stage’s max_days_in_stage' },
  close_date_passed: { multiplier: 0.5, description: 'The expected close date has passed' },
  recent_activity: { multiplier: 1.1, description: 'The lead had activity in the last 14 days' },
  no_recent_activity: { multiplier: 0.8, description: 'No activity on the lead or the deal in the last 30 days' },
} as const;
export type FactorName = keyof typeof FACTORS;
export const FACTOR_NAMES = Object.keys(FACTORS) as FactorName[];

export const RECENT_ACTIVITY_DAYS = 14;
export const NO_ACTIVITY_DAYS = 30;

/** `now` as the UTC calendar day, the day a snapshot is filed under. */
export function dayOf(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/**
 * FROM-clause joins giving, for each row of `deals d` joined to `stages s`, the columns
 * `x.days_in_stage`, `x.last_activity`, `x.stalled`, `x.overdue`, `x.recent`, `x.idle`.
 */
export function forecastInputs(now: Date): SQL {
  const at = sql`${now.toISOString()}::timestamptz`;
  const day = sql`${dayOf(now)}::date`;
  return sql`
    cross join lateral (
      select greatest(
        (select l.last_activity_at from ${leads} l where l.id = d.lead_id and l.last_activity_at <= ${at}),
        (select max(i.occurred_at) from ${intentSignals} i
          where i.organization_id = d.organization_id and i.lead_id = d.lead_id and i.occurred_at <= ${at}),
        (select fe.created_at from ${feedEntries} fe
          where fe.organization_id = d.organization_id and fe.model_type = 'lead' and fe.model_id = d.lead_id
            and fe.created_at <= ${at}
          order by fe.id desc nulls last limit 1)
      ) as last_activity,
      greatest(floor(extract(epoch from (${at} - d.stage_entered_at)) / 86400), 0)::int as days_in_stage
      -- A fence: pulled up into the query, each of the six uses of a.last_activity ran its subqueries again.
      offset 0
    ) a
    cross join lateral (
      select a.days_in_stage, a.last_activity,
        (d.outcome = 'open' and s.max_days_in_stage is not null and a.days_in_stage > s.max_days_in_stage) as stalled,
        (d.outcome = 'open' and d.expected_close_date < ${day}) as overdue,
        (d.outcome = 'open' and a.last_activity >= ${at} - make_interval(days => ${RECENT_ACTIVITY_DAYS})) as recent,
        (d.outcome = 'open' and greatest(a.last_activity, d.created_at) < ${at} - make_interval(days => ${NO_ACTIVITY_DAYS})) as idle
    ) x`;
}

const multiplier = (flag: string, factor: FactorName) =>
  sql`(case when x.${sql.raw(flag)} then ${FACTORS[factor].multiplier}::float8 else 1 end)`;

/** The stage's probability (1 won, 0 lost). */
export const baseProbability = sql<number>`(case when d.outcome = 'won' then 1 when d.outcome = 'lost' then 0 else s.probability end)::float8`;

/** The adjusted probability, from `forecastInputs`. */
export const adjustedProbability = sql<number>`round(least(1, ${baseProbability} * ${multiplier('stalled', 'stalled')} * ${multiplier('overdue', 'close_date_passed')} * ${multiplier('recent', 'recent_activity')} * ${multiplier('idle', 'no_recent_activity')})::numeric, 4)::float8`;

/** The applied factor names, as a jsonb array. */
export const appliedFactors = sql`to_jsonb(array_remove(array[
  case when x.stalled then 'stalled' end,
  case when x.overdue then 'close_date_passed' end,
  case when x.recent then 'recent_activity' end,
  case when x.idle then 'no_recent_activity' end]::text[], null))`;
