/**
 * The import job's row and its steps beyond the shared lifecycle (src/jobs/lifecycle.ts): the
 * claim reads the stored file and the checkpoint; each batch commits its leads, per-row
 * outcomes, counters and checkpoint atomically, and renews the lease (the heartbeat) in the
 * same statement. The job row is locked while a batch commits and the checkpoint is compared
 * with the one the batch started from, so two deliveries of one message never both commit a batch.
 */
import { emitWebhookEvents } from '../webhooks';
import { eq, sql } from 'drizzle-orm';
import { withTenant, type Database } from '../../db/client';
import { importJobRows, importJobs, storedFiles } from '../../db/schema';
import { refreshStatisticsAfter } from '../../db/statistics';
import type { TenantContext } from '../../db/tenant';
import { JobSuperseded } from '../../jobs/faults';
import {
  claimJob,
  finishJob,
  heartbeat,
  type JobClaim,
  type JobRef,
  type JobSpec,
  jobTenantContext,
  lockRunningJob,
} from '../../jobs/lifecycle';
import { withTenantEffects } from '../../core/transaction-effects';
import type { Bindings } from '../../env';
import { NOTIFICATION_TYPES } from '../notifications';
import type { ImportJobOptions, ImportRowOutcome } from './service';

export const importJobSpec: JobSpec<typeof importJobs> = {
  table: importJobs,
  // A batch of 500 rows commits in seconds; the first delivery also counts the file's rows first.
  leaseSeconds: 300,
  notice: {
    typeId: NOTIFICATION_TYPES.importFinished,
    completed: (job) => ({
      title: `Import of ${job.fileName} finished: ${job.createdCount} created, ${job.updatedCount} updated, ${job.skippedCount} skipped, ${job.failedCount} failed`,
      data: { import_job_id: job.id, status: 'completed' },
    }),
    failed: (job) => ({ title: `Import of ${job.fileName} failed`, data: { import_job_id: job.id, status: 'failed' } }),
  },
};

export interface ClaimedImport extends JobClaim<typeof importJobs> {
  storageKey: string;
  options: ImportJobOptions;
  checkpointRow: number;
}

/** Marks the job running; null when it has ended already (see claimJob). */
export async function claimImportJob(db: Database, ref: JobRef): Promise<ClaimedImport | null> {
  const claim = await claimJob(db, importJobSpec, ref);
  if (!claim) return null;
  const [file] = await withTenant(db, ref.orgId, (tx) =>
    tx.select({ storageKey: storedFiles.storageKey }).from(storedFiles).where(eq(storedFiles.id, claim.job.fileId)),
  );
  return {
    ...claim,
    storageKey: file?.storageKey ?? '',
    options: claim.job.options as unknown as ImportJobOptions,
    checkpointRow: claim.job.checkpointRow,
  };
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
  env: Bindings,
  claim: ClaimedImport,
  startCheckpoint: number,
  work: (ctx: TenantContext) => Promise<BatchTally>,
): Promise<BatchTally> {
  return withTenantEffects(db, env, claim.orgId, async (tx, effects) => {
    const job = await lockRunningJob(tx, importJobSpec, claim);
    if (job.checkpointRow !== startCheckpoint) throw new JobSuperseded();
    const tally = await work(jobTenantContext(claim, tx, effects));
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
        ...heartbeat(importJobSpec),
      })
      .where(eq(importJobs.id, claim.jobId));
    return tally;
  });
}

/**
 * Completes the job (its total is now exact), tells its creator the counts and announces
 * `import.finished` to the webhooks, in one transaction; the deliveries leave once it has committed.
 */
export async function finishImportJob(db: Database, env: Bindings, claim: ClaimedImport): Promise<void> {
  await withTenantEffects(db, env, claim.orgId, async (tx, effects) => {
    const done = await finishJob(tx, importJobSpec, claim, { totalRows: sql`${importJobs.processedRows}` });
    // Before the job reads as finished: the organization's next bulk action must not be planned
    // as if it had none of the leads just written (src/db/statistics.ts).
    await refreshStatisticsAfter(tx, done.createdCount + done.updatedCount, [
      'leads',
      'lead_tags',
      'lead_search_documents',
    ]);
    await emitWebhookEvents(jobTenantContext(claim, tx, effects), 'import.finished', [
      {
        import_job_id: done.id,
        status: done.status,
        file_name: done.fileName,
        total_rows: done.totalRows,
        created: done.createdCount,
        updated: done.updatedCount,
        skipped: done.skippedCount,
        failed: done.failedCount,
        finished_at: done.finishedAt,
      },
    ]);
  });
}
