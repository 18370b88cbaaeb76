/**
 * The daily retraining (ARCHITECTURE: scheduled work runs from the cron trigger). The minute
 * cron claims the UTC day in lead_score_training_runs; the first run of the day writes, for every
 * organization with live leads, a 'lead-scoring' job with `retrain` over all its leads, and its
 * outbox message, in one statement. The outbox sweep sends them (within a minute or two), and
 * each job retrains the organization's model (a new version only when it changed) and rescores
 * every lead, which also brings every engagement score's decay up to date.
 */
import { sql } from 'drizzle-orm';
import { withOwnDatabase, type Queryable } from '../../db/client';
import { jobOutbox, leadScoreTrainingRuns, leadScoringJobs, leads, organizations } from '../../db/schema';
import { readConfig, type Bindings } from '../../env';

const dayOf = (now: Date) => now.toISOString().slice(0, 10);

/**
 * Writes the retraining jobs of `organizationIds` (all organizations with live leads when
 * omitted): one statement, jobs and outbox rows together. Returns how many.
 */
export async function scheduleRetraining(db: Queryable, organizationIds?: number[]): Promise<number> {
  const scope = organizationIds ? sql`and o.id = any(${`{${organizationIds.join(',')}}`}::bigint[])` : sql``;
  const result = await db.execute<{ jobs: number }>(sql`
    with due as (
      select o.id from ${organizations} o
      where exists (select 1 from ${leads} l where l.organization_id = o.id and l.deleted_at is null) ${scope}
    ), jobs as (
      insert into ${leadScoringJobs} (organization_id, lead_ids, retrain)
      select id, null, true from due
      returning id, organization_id
    ), sent as (
      insert into ${jobOutbox} (organization_id, message)
      select j.organization_id, jsonb_build_object('kind', 'lead-scoring', 'orgId', j.organization_id, 'jobId', j.id)
      from jobs j
      returning id
    )
    select count(*)::int as jobs from sent`);
  return Number(result.rows[0]?.jobs ?? 0);
}

/** The day's retraining, once per UTC day; null when the day had been scheduled already. */
export async function scheduleDailyRetraining(db: Queryable, now: Date): Promise<number | null> {
  return db.transaction(async (tx) => {
    const claimed = await tx
      .insert(leadScoreTrainingRuns)
      .values({ day: dayOf(now), startedAt: now })
      .onConflictDoNothing()
      .returning({ day: leadScoreTrainingRuns.day });
    if (claimed.length === 0) return null;
    const jobs = await scheduleRetraining(tx);
    await tx.execute(
      sql`update ${leadScoreTrainingRuns} set organizations = ${jobs} where ${leadScoreTrainingRuns.day} = ${dayOf(now)}::date`,
    );
    return jobs;
  });
}

/** The cron trigger's entry: the day's retraining schedule on its own connection. */
export async function runScoreTrainingSchedule(env: Bindings, now = new Date()): Promise<number | null> {
  return withOwnDatabase(readConfig(env), (db) => scheduleDailyRetraining(db, now));
}
