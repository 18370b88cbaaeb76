/**
 * Forecast snapshots: one per deal per UTC day, written by every deal change (that deal) and by
 * the nightly run (every open deal of every organization). Both write the row of (organization,
 * deal, day), never a second one: a change rewrites it, the nightly run leaves an existing one.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Queryable } from '../../db/client';
import { withOwnDatabase } from '../../db/client';
import { forecastSnapshotRuns, deals, stages, dealForecasts } from '../../db/schema';
import type { Bindings } from '../../env';
import { readConfig } from '../../env';
import { adjustedProbability, appliedFactors, baseProbability, dayOf, forecastInputs } from './factors';

/**
 * Writes today's (per `now`) snapshot of the deals `where` selects (over `deals d`); returns how
 * many. `replace`: a deal's change rewrites the day's row; the nightly run keeps a row the day
 * already has (a change that day is as new or newer).
 */
export async function recordForecasts(db: Queryable, now: Date, where: SQL, replace = true): Promise<number> {
  const result = await db.execute(forecastWrite(now, where, replace));
  return result.rowCount ?? 0;
}

/**
 * The one statement of `recordForecasts` (tests explain it). `source` is where the deals are read:
 * the table by default, or the CTE of a deal write in the same statement (its rows with every deal
 * column), since every part of a statement reads the table as it was when the statement began.
 */
export function forecastWrite(now: Date, where: SQL, replace: boolean, source: SQL = sql`${deals}`): SQL {
  return sql`
    insert into ${dealForecasts} (organization_id, deal_id, pipeline_id, snapshot_date, taken_at, stage_id, outcome,
      value, expected_close_date, base_probability, probability, weighted_value, factors, days_in_stage)
    select d.organization_id, d.id, d.pipeline_id, ${dayOf(now)}::date, ${now.toISOString()}::timestamptz, d.stage_id,
      d.outcome, d.value, d.expected_close_date, ${baseProbability}, p.probability,
      round(d.value * p.probability::numeric, 2), ${appliedFactors}, x.days_in_stage
    from ${source} d
    join ${stages} s on s.id = d.stage_id
    ${forecastInputs(now)}
    cross join lateral (select ${adjustedProbability} as probability) p
    where ${where}
    on conflict (organization_id, deal_id, snapshot_date) ${
      replace
        ? sql`do update set
      taken_at = excluded.taken_at, pipeline_id = excluded.pipeline_id, stage_id = excluded.stage_id,
      outcome = excluded.outcome, value = excluded.value, expected_close_date = excluded.expected_close_date,
      base_probability = excluded.base_probability, probability = excluded.probability,
      weighted_value = excluded.weighted_value, factors = excluded.factors, days_in_stage = excluded.days_in_stage`
        : sql`do nothing`
    }`;
}

/** The transaction-scoped advisory lock a nightly run holds while it works on its day. */
const snapshotRunLock = (day: string) => sql`hashtextextended(${`forecast-snapshot-run:${day}`}, 0)`;

/**
 * The nightly snapshot of every open deal, across organizations, at most once per UTC day: the
 * day's row in forecast_snapshot_runs is claimed in the same transaction, so the every-minute
 * cron does the work on its first run of the day only (and again only if that run failed).
 * Returns the snapshots written, or null when the day had already run or is running.
 *
 * A run holds a transaction-scoped advisory lock, and the claim is only tried when that lock is
 * free: a cron call during a long run (every organization's open deals) returns at once instead
 * of waiting on the running claim's uncommitted row, so calls never pile up behind it, each
 * holding a connection. One statement either way.
 */
export async function snapshotAllOpenDeals(
  db: Queryable,
  now: Date,
  /** Tests: only this organization's deals, so a run does not touch other test files' organizations. */
  onlyOrganization?: number,
): Promise<number | null> {
  return db.transaction(async (tx) => {
    const claimed = await tx.execute<{ day: string }>(sql`
      insert into ${forecastSnapshotRuns} (day, started_at)
      select ${dayOf(now)}::date, ${now.toISOString()}::timestamptz where pg_try_advisory_xact_lock(${snapshotRunLock(dayOf(now))})
      on conflict do nothing
      returning day`);
    if (claimed.rows.length === 0) return null;
    const scope = onlyOrganization === undefined ? sql`` : sql` and x.organization_id = ${onlyOrganization}`;
    // The run locks the deals it snapshots, skipping those a deal change holds: that change writes
    // the deal's day snapshot itself. Without the lock the run inserted the snapshot first and
    // locked the deal after (its foreign-key check, then the trigger carrying the latest snapshot
    // onto the deal), while a change locks the deal first and then writes the snapshot: a change
    // during the run waited on the run's snapshot row and the run on the change's deal, a deadlock
    // that failed the change (or the night's run).
    const written = await recordForecasts(
      tx,
      now,
      sql`d.outcome = 'open' and d.id in (select x.id from ${deals} x where x.outcome = 'open'${scope}
        for no key update skip locked)`,
      false,
    );
    await tx.execute(sql`update ${forecastSnapshotRuns} set snapshots = ${written} where day = ${dayOf(now)}::date`);
    return written;
  });
}

/** The cron trigger's entry: the nightly snapshot on its own connection. */
export async function runForecastSnapshots(env: Bindings, now = new Date()): Promise<number | null> {
  return withOwnDatabase(readConfig(env), (db) => snapshotAllOpenDeals(db, now));
}
