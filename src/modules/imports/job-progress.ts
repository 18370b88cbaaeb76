/**
 * The queue consumer's side of an import job, each step its own short transaction scoped to
 * the job's organization: claim (queued/running → running, count the delivery), commit one
 * batch (leads + per-row outcomes + counters + checkpoint, atomically), finish, fail.
 * The job row is locked (FOR UPDATE) while a batch commits and the checkpoint is compared with
 * the one the batch started from, so two deliveries of one message never both commit a batch.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { withTenant, type Database, type Transaction } from '../../db/client';
import { importJobRows, importJobs, storedFiles } from '../../db/schema';
import { actorContext, type TenantContext } from '../../db/tenant';
import { NOTIFICATION_TYPES, notifyJobEnded } from '../notifications/service';
import type { ImportJobOptions, ImportRowOutcome } from './service';

/** Deliveries of one message: the first plus wrangler.toml's max_retries (5). */
export const MAX_IMPORT_ATTEMPTS = 6;

export interface ClaimedImport {
  jobId: number;
  orgId: number;
  /** The job's creator, credited with its writes; the job itself acts with no role. */
  userId: number | null;
  storageKey: string;
  options: ImportJobOptions;
  checkpointRow: number;
  attempts: number;
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

/**
 * Marks the job running and counts this delivery. Null when there is nothing to do (already
 * completed or failed). Throws when the job is not visible yet (the enqueuing request has not
 * committed), so the queue redelivers it.
 */
export async function claimImportJob(db: Database, orgId: number, jobId: number): Promise<ClaimedImport | null> {
  return withTenant(db, orgId, async (tx) => {
    const job = await lockJob(tx, orgId, jobId);
    if (!job) throw new Error(`import job ${jobId} not found (not committed yet?)`);
    if (job.status === 'completed' || job.status === 'failed') return null;
    const options = job.options as unknown as ImportJobOptions;
    const attempts = (options.attempts ?? 0) + 1;
    await tx
      .update(importJobs)
      .set({
        status: 'running',
        startedAt: job.startedAt ?? sql`now()`,
        options: { ...options, attempts },
        updatedAt: sql`now()`,
      })
      .where(eq(importJobs.id, jobId));
    const [file] = await tx.select({ storageKey: storedFiles.storageKey }).from(storedFiles).where(eq(storedFiles.id, job.fileId));
    return {
      jobId,
      orgId,
      userId: job.createdBy,
      storageKey: file?.storageKey ?? '',
      options: { ...options, attempts },
      checkpointRow: job.checkpointRow,
      attempts,
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
    const tally = await work({ db: tx, orgId: claim.orgId, ...actorContext({ kind: 'job', jobId: claim.jobId, createdBy: claim.userId }) });
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
      .set({ status: 'completed', totalRows: sql`${importJobs.processedRows}`, error: null, finishedAt: sql`now()`, updatedAt: sql`now()` })
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

/** `final`: the job is failed for good; otherwise the error is only noted while the queue retries. */
export async function recordImportError(db: Database, claim: ClaimedImport, message: string, final: boolean): Promise<void> {
  await withTenant(db, claim.orgId, async (tx) => {
    const [job] = await tx
      .update(importJobs)
      .set({
        error: message.slice(0, 1000),
        updatedAt: sql`now()`,
        ...(final ? { status: 'failed', finishedAt: sql`now()` } : {}),
      })
      .where(and(eq(importJobs.id, claim.jobId), inArray(importJobs.status, ['queued', 'running'])))
      .returning({ id: importJobs.id, fileName: importJobs.fileName });
    if (!job || !final) return;
    await notifyJobEnded(tx, {
      orgId: claim.orgId,
      userId: claim.userId,
      typeId: NOTIFICATION_TYPES.importFinished,
      title: `Import of ${job.fileName} failed`,
      data: { import_job_id: job.id, status: 'failed' },
    });
  });
}
