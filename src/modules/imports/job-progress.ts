/**
 * The queue consumer's side of an import job, each step its own short transaction scoped to
 * the job's organization: claim (queued/running → running, through the shared claimJob),
 * commit one batch (leads + per-row outcomes + counters + checkpoint, atomically), note a
 * retry, finish, fail (at once for an unreadable file, or when the message is dead-lettered).
 * The job row is locked (FOR UPDATE) while a batch commits and the checkpoint is compared with
 * the one the batch started from, so two deliveries of one message never both commit a batch.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { withTenant, type Database, type Transaction } from '../../db/client';
import { importJobRows, importJobs, storedFiles } from '../../db/schema';
import { actorContext, type TenantContext } from '../../db/tenant';
import { claimJob, type JobActor } from '../../jobs/claim';
import { NOTIFICATION_TYPES, notifyJobEnded } from '../notifications/service';
import type { ImportJobOptions, ImportRowOutcome } from './service';

export interface ClaimedImport extends JobActor {
  jobId: number;
  orgId: number;
  storageKey: string;
  options: ImportJobOptions;
  checkpointRow: number;
}

/** Another delivery of the same message has moved the job on; this one stops quietly. */
export class ImportSuperseded extends Error {}

type JobRow = typeof importJobs.$inferSelect;

async function lockJob(tx: Transaction, orgId: number, jobId: number): Promise<JobRow | undefined> {
  const [job] = await tx
    .select()
    .from(importJobs)
    .where(and(eq(importJobs.organizationId, orgId), eq(importJobs.id, jobId)))
    .for('update');
  return job;
}

/** Marks the job running; null when it has ended already (see claimJob). */
export async function claimImportJob(db: Database, orgId: number, jobId: number): Promise<ClaimedImport | null> {
  return claimJob(db, importJobs, { orgId, jobId }, async (tx, job, actor) => {
    await tx
      .update(importJobs)
      .set({ status: 'running', startedAt: job.startedAt ?? sql`now()`, updatedAt: sql`now()` })
      .where(eq(importJobs.id, jobId));
    const [file] = await tx
      .select({ storageKey: storedFiles.storageKey })
      .from(storedFiles)
      .where(eq(storedFiles.id, job.fileId));
    return {
      jobId,
      orgId,
      ...actor,
      storageKey: file?.storageKey ?? '',
      options: job.options as unknown as ImportJobOptions,
      checkpointRow: job.checkpointRow,
    };
  });
}

export interface RowOutcome {
  rowNumber: number;
  outcome: ImportRowOutcome;
  field: string | null;
  message: string;
  leadId: number | null;
}

export interface BatchTally {
  lastRowNumber: number;
  processed: number;
  created: number;
  updated: number;
  skipped: number;
  failed: number;
  estimatedTotal: number;
  outcomes: RowOutcome[];
}

/**
 * Runs `work` (which writes the batch's leads) and records its tally in one transaction; the
 * batch commits completely or not at all, together with the checkpoint that skips it next time.
 */
export async function commitImportBatch(
  db: Database,
  claim: ClaimedImport,
  startCheckpoint: number,
  work: (ctx: TenantContext) => Promise<BatchTally>,
): Promise<BatchTally> {
  return withTenant(db, claim.orgId, async (tx) => {
    const job = await lockJob(tx, claim.orgId, claim.jobId);
    if (!job || job.checkpointRow !== startCheckpoint || job.status !== 'running') throw new ImportSuperseded();
    const tally = await work({
      db: tx,
      orgId: claim.orgId,
      ...actorContext({ kind: 'job', jobId: claim.jobId, createdBy: claim.userId }),
    });
    for (let start = 0; start < tally.outcomes.length; start += 1000) {
      await tx.insert(importJobRows).values(
        tally.outcomes.slice(start, start + 1000).map((outcome) => ({
          organizationId: claim.orgId,
          importJobId: claim.jobId,
          rowNumber: outcome.rowNumber,
          outcome: outcome.outcome,
          field: outcome.field,
          message: outcome.message.slice(0, 1000),
          leadId: outcome.leadId,
        })),
      );
    }
    await tx
      .update(importJobs)
      .set({
        processedRows: sql`${importJobs.processedRows} + ${tally.processed}`,
        createdCount: sql`${importJobs.createdCount} + ${tally.created}`,
        updatedCount: sql`${importJobs.updatedCount} + ${tally.updated}`,
        skippedCount: sql`${importJobs.skippedCount} + ${tally.skipped}`,
        failedCount: sql`${importJobs.failedCount} + ${tally.failed}`,
        checkpointRow: tally.lastRowNumber,
        totalRows: sql`greatest(${tally.estimatedTotal}, ${importJobs.processedRows} + ${tally.processed})`,
        updatedAt: sql`now()`,
      })
      .where(eq(importJobs.id, claim.jobId));
    return tally;
  });
}

export async function finishImportJob(db: Database, claim: ClaimedImport): Promise<void> {
  await withTenant(db, claim.orgId, async (tx) => {
    const [done] = await tx
      .update(importJobs)
      .set({
        status: 'completed',
        totalRows: sql`${importJobs.processedRows}`,
        error: null,
        finishedAt: sql`now()`,
        updatedAt: sql`now()`,
      })
      .where(and(eq(importJobs.id, claim.jobId), eq(importJobs.status, 'running')))
      .returning();
    if (!done) return;
    await notifyJobEnded(tx, {
      orgId: claim.orgId,
      userId: claim.userId,
      typeId: NOTIFICATION_TYPES.importFinished,
      title: `Import of ${done.fileName} finished: ${done.createdCount} created, ${done.updatedCount} updated, ${done.skippedCount} skipped, ${done.failedCount} failed`,
      data: { import_job_id: done.id, status: 'completed' },
    });
  });
}

/** A delivery failed and the queue will retry it: the reason is shown while the job waits. */
export async function noteImportRetry(db: Database, claim: ClaimedImport, message: string): Promise<void> {
  await withTenant(db, claim.orgId, (tx) =>
    tx
      .update(importJobs)
      .set({ error: message.slice(0, 1000), updatedAt: sql`now()` })
      .where(and(eq(importJobs.id, claim.jobId), inArray(importJobs.status, ['queued', 'running']))),
  );
}

/**
 * Fails the job for good with `reason` and notifies its creator. Only a queued or running job
 * changes, so a second call (a redelivered message) neither overwrites nor notifies again.
 */
export async function failImportJob(
  db: Database,
  job: { orgId: number; jobId: number },
  reason: string,
): Promise<boolean> {
  return withTenant(db, job.orgId, async (tx) => {
    const [failed] = await tx
      .update(importJobs)
      .set({ status: 'failed', error: reason.slice(0, 1000), finishedAt: sql`now()`, updatedAt: sql`now()` })
      .where(
        and(
          eq(importJobs.organizationId, job.orgId),
          eq(importJobs.id, job.jobId),
          inArray(importJobs.status, ['queued', 'running']),
        ),
      )
      .returning({ id: importJobs.id, fileName: importJobs.fileName, createdBy: importJobs.createdBy });
    if (!failed) return false;
    await notifyJobEnded(tx, {
      orgId: job.orgId,
      userId: failed.createdBy,
      typeId: NOTIFICATION_TYPES.importFinished,
      title: `Import of ${failed.fileName} failed`,
      data: { import_job_id: failed.id, status: 'failed' },
    });
    return true;
  });
}
