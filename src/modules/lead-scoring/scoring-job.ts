/**
 * The queue consumer's side of lead scoring (job kind 'lead-scoring'). The small jobs of a queue
 * batch (what created and changed leads ask for) are scored together, one transaction per
 * organization (scoreSmallJobs). Any other job is claimed, then its leads are scored in batches
 * of SCORING_BATCH, each batch in one transaction that also moves the job's checkpoint (the last
 * lead id scored) and renews its lease; the last batch completes the job. A job with `retrain`
 * first retrains the organization's model (model.ts).
 * A redelivered message finds the job completed, or resumes after the checkpoint; scoring a lead
 * again writes nothing unless its score changed.
 */
import { eq, sql } from 'drizzle-orm';
import { withTenant, type Database } from '../../db/client';
import { leadScoringJobs } from '../../db/schema';
import { retryTransientOnly, userFacingJobError } from '../../jobs/faults';
import type { JobHandler } from '../../jobs/job-handler';
import { ENDED_JOB_STATUSES, type JobStatus, OPEN_JOB_STATUSES } from '../../jobs/job-status';
import { deleteOutboxRows } from '../../jobs/outbox';
import {
  claimJob,
  completeOpenJobs,
  finishJob,
  heartbeat,
  type JobRef,
  type JobSpec,
  lockJobs,
  lockRunningJob,
} from '../../jobs/lifecycle';
import { currentModel, retrainModel } from './model';
import { SCORING_BATCH, scoreLeadBatch } from './score-leads';

const scoringJobSpec: JobSpec<typeof leadScoringJobs> = {
  table: leadScoringJobs,
  // A batch is two statements over at most SCORING_BATCH leads; a retraining reads the outcomes first.
  leaseSeconds: 120,
};

async function scoreNextBatch(db: Database, ref: JobRef): Promise<boolean> {
  return withTenant(db, ref.orgId, async (tx) => {
    const job = await lockRunningJob(tx, scoringJobSpec, ref);
    const firstBatch = job.checkpointId === 0;
    // The writer that asked for this job left its outbox row to us (scoring-request.ts).
    if (firstBatch) await deleteOutboxRows(tx, [{ kind: 'lead-scoring', orgId: ref.orgId, jobId: ref.jobId }]);
    const model = job.retrain && firstBatch ? await retrainModel(tx, ref.orgId) : await currentModel(tx, ref.orgId);
    const where = job.leadIds ? sql`l.id = any(${`{${job.leadIds.join(',')}}`}::bigint[])` : sql`true`;
    const batch = await scoreLeadBatch(tx, ref.orgId, model, where, { afterId: job.checkpointId });
    const done = batch.lastId === null || batch.read < SCORING_BATCH;
    const progress = {
      checkpointId: batch.lastId ?? job.checkpointId,
      scoredCount: sql`${leadScoringJobs.scoredCount} + ${batch.read}`,
      // A retraining happens once: later batches (and redeliveries) score with the model it recorded.
      retrain: false,
    };
    if (done) await finishJob(tx, scoringJobSpec, ref, progress);
    else
      await tx
        .update(leadScoringJobs)
        .set({ ...progress, ...heartbeat(scoringJobSpec) })
        .where(eq(leadScoringJobs.id, ref.jobId));
    return done;
  });
}

export const SCORING_DEAD_LETTER_REASON = 'The leads could not be scored: every attempt failed.';
export const SCORING_STALLED_REASON = 'The scoring kept stopping before it finished.';
export const SCORING_NEVER_PICKED_UP_REASON =
  'The scoring was never picked up from the queue within 24 hours; the leads are scored again when they change, and at the daily retraining.';

/** A job that the one-transaction path runs: it fits one batch, trains nothing and was not resumed. */
function isSmall(
  job: typeof leadScoringJobs.$inferSelect,
): job is typeof leadScoringJobs.$inferSelect & { leadIds: number[] } {
  return (
    OPEN_JOB_STATUSES.includes(job.status as JobStatus) &&
    job.leadIds !== null &&
    job.leadIds.length <= SCORING_BATCH &&
    !job.retrain &&
    job.checkpointId === 0
  );
}

/**
 * The jobs of one organization that fit one batch together and train nothing (the jobs created or
 * changed leads ask for), scored in ONE transaction: their rows locked, their outbox rows
 * deleted, the model read once, their leads scored in one batch, the jobs completed in one
 * statement — nine statements for the lot, where a claim and a batch of each took fourteen a job.
 * Nothing commits until they are completed, so no lease is taken (lockJobs): a delivery that
 * dies leaves them queued with their outbox rows, which the queue or the outbox sweep sends
 * again. Answers which jobs are done (ended before, or completed here); the others (many leads,
 * a retraining, a resumed job, not visible, or past one batch together) take the claim path.
 */
async function scoreSmallJobs(db: Database, orgId: number, jobIds: number[]): Promise<Set<number>> {
  return withTenant(db, orgId, async (tx) => {
    const jobs = await lockJobs(tx, scoringJobSpec, orgId, jobIds);
    const done = new Set(
      jobs.filter((job) => ENDED_JOB_STATUSES.includes(job.status as JobStatus)).map((job) => job.id),
    );
    const small: number[] = [];
    const leadIds = new Set<number>();
    for (const job of jobs.filter(isSmall)) {
      const more = job.leadIds.filter((id) => !leadIds.has(id));
      if (leadIds.size + more.length > SCORING_BATCH) continue;
      for (const id of more) leadIds.add(id);
      small.push(job.id);
    }
    if (small.length === 0) return done;
    await deleteOutboxRows(
      tx,
      small.map((jobId) => ({ kind: 'lead-scoring', orgId, jobId })),
    );
    const model = await currentModel(tx, orgId);
    const batch = await scoreLeadBatch(tx, orgId, model, sql`l.id = any(${`{${[...leadIds].join(',')}}`}::bigint[])`, {
      afterId: 0,
    });
    // Each job's own count and checkpoint: its leads among those the batch read (a deleted lead is not read).
    const read = sql`${`{${batch.ids.join(',')}}`}::bigint[]`;
    const ownRead = sql`(select x from unnest(${leadScoringJobs.leadIds}) x where x = any(${read}))`;
    const completed = await completeOpenJobs(tx, scoringJobSpec, orgId, small, {
      checkpointId: sql`coalesce((select max(x) from ${ownRead} as own(x)), 0)`,
      scoredCount: sql`(select count(*) from ${ownRead} as own(x))::int`,
    });
    for (const job of completed) done.add(job.id);
    return done;
  });
}

export const leadScoringJobHandler: JobHandler<'lead-scoring', typeof leadScoringJobs> = {
  ...scoringJobSpec,
  retry: retryTransientOnly((error) => `The scoring failed: ${userFacingJobError(error)}.`),
  reasons: {
    deadLettered: SCORING_DEAD_LETTER_REASON,
    stalled: SCORING_STALLED_REASON,
    neverPickedUp: SCORING_NEVER_PICKED_UP_REASON,
  },
  runTogether: async (messages, { db }) => {
    const done = new Set<string>();
    for (const orgId of new Set(messages.map((message) => message.orgId))) {
      const jobIds = [
        ...new Set(messages.filter((message) => message.orgId === orgId).map((message) => message.jobId)),
      ];
      for (const jobId of await scoreSmallJobs(db, orgId, jobIds)) done.add(`${orgId}:${jobId}`);
    }
    return messages.map((message) => done.has(`${message.orgId}:${message.jobId}`));
  },
  run: async (message, { db }) => {
    if ((await scoreSmallJobs(db, message.orgId, [message.jobId])).has(message.jobId)) return;
    const claim = await claimJob(db, scoringJobSpec, message);
    if (!claim) return;
    while (!(await scoreNextBatch(db, message))) {
      // Each batch committed its checkpoint; the next one starts after it.
    }
  },
};
