/**
 * The queue consumer's side of lead scoring (job kind 'lead-scoring'). A delivery claims the job,
 * then scores its leads in batches of SCORING_BATCH, each batch in one transaction that also
 * moves the job's checkpoint (the last lead id scored) and renews its lease; the last batch
 * completes the job. A job with `retrain` first retrains the organization's model (model.ts).
 * A redelivered message finds the job completed, or resumes after the checkpoint; scoring a lead
 * again writes nothing unless its score changed.
 */
import { and, eq, sql } from 'drizzle-orm';
import { withTenant, type Database } from '../../db/client';
import { leadScoringJobs } from '../../db/schema';
import { retryTransientOnly, userFacingJobError } from '../../jobs/faults';
import type { JobHandler } from '../../jobs/job-handler';
import { ENDED_JOB_STATUSES, type JobStatus } from '../../jobs/job-status';
import { deleteOutboxRow } from '../../jobs/outbox';
import { claimJob, finishJob, heartbeat, type JobRef, type JobSpec, lockRunningJob } from '../../jobs/lifecycle';
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
    if (firstBatch) await deleteOutboxRow(tx, { kind: 'lead-scoring', orgId: ref.orgId, jobId: ref.jobId });
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

/**
 * A job that fits one batch and trains nothing (the job a created or changed lead asks for):
 * claimed, scored and completed in ONE transaction, instead of a claim's transaction and then the
 * batch's. Nothing is committed until it is completed, so the lease a claim takes would guard no
 * committed state: a delivery that dies rolls back to the queued job, and its outbox row (deleted
 * only here) lets the outbox sweep send it again if the queue does not. 'larger' when the job
 * needs the claim and its checkpoints (many leads, a retraining, a resumed job).
 */
async function scoreSmallJob(db: Database, ref: JobRef): Promise<'done' | 'larger'> {
  return withTenant(db, ref.orgId, async (tx) => {
    const [job] = await tx
      .select()
      .from(leadScoringJobs)
      .where(and(eq(leadScoringJobs.organizationId, ref.orgId), eq(leadScoringJobs.id, ref.jobId)))
      .for('update');
    // Not visible: the claim path throws, so the queue redelivers and then dead-letters.
    if (!job) return 'larger';
    if (ENDED_JOB_STATUSES.includes(job.status as JobStatus)) return 'done';
    const ids = job.leadIds;
    if (!ids || ids.length > SCORING_BATCH || job.retrain || job.checkpointId !== 0) return 'larger';
    await deleteOutboxRow(tx, { kind: 'lead-scoring', orgId: ref.orgId, jobId: ref.jobId });
    const model = await currentModel(tx, ref.orgId);
    const batch = await scoreLeadBatch(tx, ref.orgId, model, sql`l.id = any(${`{${ids.join(',')}}`}::bigint[])`, {
      afterId: 0,
    });
    await tx
      .update(leadScoringJobs)
      .set({
        status: 'completed',
        error: null,
        startedAt: sql`coalesce(${leadScoringJobs.startedAt}, now())`,
        finishedAt: sql`now()`,
        updatedAt: sql`now()`,
        leaseExpiresAt: null,
        checkpointId: batch.lastId ?? 0,
        scoredCount: batch.read,
      })
      .where(eq(leadScoringJobs.id, ref.jobId));
    return 'done';
  });
}

export const leadScoringJobHandler: JobHandler<'lead-scoring', typeof leadScoringJobs> = {
  ...scoringJobSpec,
  retry: retryTransientOnly((error) => `The scoring failed: ${userFacingJobError(error)}.`),
  reasons: { deadLettered: SCORING_DEAD_LETTER_REASON, stalled: SCORING_STALLED_REASON },
  run: async (message, { db }) => {
    if ((await scoreSmallJob(db, message)) === 'done') return;
    const claim = await claimJob(db, scoringJobSpec, message);
    if (!claim) return;
    while (!(await scoreNextBatch(db, message))) {
      // Each batch committed its checkpoint; the next one starts after it.
    }
  },
};
