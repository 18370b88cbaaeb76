/**
 * The export job's row and its steps beyond the shared lifecycle (src/jobs/lifecycle.ts). An
 * export has no checkpoint: a redelivered message (after a crash, a retry or the lease sweep)
 * writes the file again from the start. Each claim stamps `started_at`, and progress and
 * completion only apply while that stamp is still the job's, so an older delivery that is still
 * running cannot overwrite a newer one's result. Each progress update renews the lease.
 */
import { and, eq, type SQL, sql } from 'drizzle-orm';
import { withTenant, type Database } from '../../db/client';
import { exportJobs, storedFiles } from '../../db/schema';
import { JobSuperseded } from '../../jobs/faults';
import { claimJob, finishJob, heartbeat, type JobClaim, type JobRef, type JobSpec } from '../../jobs/lifecycle';
import { safeFileName, storageKeyFor } from '../files';
import { NOTIFICATION_TYPES } from '../notifications';
import { EXPORT_CONTENT_TYPES, type ExportFormat } from './file-writers';
import type { ExportType } from './sources';

export const exportJobSpec: JobSpec<typeof exportJobs> = {
  table: exportJobs,
  // Progress is recorded after every page of rows, seconds apart.
  leaseSeconds: 300,
  notice: {
    typeId: NOTIFICATION_TYPES.exportReady,
    completed: (job) => ({
      title: `Your ${job.exportType} export is ready (${job.processedRows} rows)`,
      data: { export_id: job.id, status: 'completed', download_path: `/api/exports/download/${job.id}` },
    }),
    failed: (job) => ({ title: `Your ${job.exportType} export failed`, data: { export_id: job.id, status: 'failed' } }),
  },
};

export interface ClaimedExport extends JobClaim<typeof exportJobs> {
  exportType: ExportType;
  format: ExportFormat;
  filters: Record<string, unknown>;
  /** This delivery's claim: the started_at it stamped. */
  claimedAt: Date;
}

/** Whether this delivery still holds the job (its claim stamp is the job's). */
const ownedBy = (claim: ClaimedExport): SQL => eq(exportJobs.startedAt, claim.claimedAt);

/** Marks the job running from scratch under a fresh claim stamp; null when it has ended already. */
export async function claimExportJob(db: Database, ref: JobRef): Promise<ClaimedExport | null> {
  const claim = await claimJob(db, exportJobSpec, ref, () => ({
    startedAt: sql`date_trunc('milliseconds', clock_timestamp())`,
    processedRows: 0,
    error: null,
  }));
  if (!claim) return null;
  return {
    ...claim,
    exportType: claim.job.exportType as ExportType,
    format: claim.job.format as ExportFormat,
    filters: claim.job.filters,
    claimedAt: claim.job.startedAt as Date,
  };
}

/** Records progress and renews the lease; JobSuperseded when a newer delivery owns the job. */
export async function recordExportProgress(
  db: Database,
  claim: ClaimedExport,
  values: { processed?: number; total?: number },
): Promise<void> {
  const updated = await withTenant(db, claim.orgId, (tx) =>
    tx
      .update(exportJobs)
      .set({
        ...(values.processed !== undefined ? { processedRows: values.processed } : {}),
        ...(values.total !== undefined ? { totalRows: values.total } : {}),
        ...heartbeat(exportJobSpec),
      })
      .where(
        and(
          eq(exportJobs.organizationId, claim.orgId),
          eq(exportJobs.id, claim.jobId),
          eq(exportJobs.status, 'running'),
          ownedBy(claim),
        ),
      )
      .returning({ id: exportJobs.id }),
  );
  if (updated.length === 0) throw new JobSuperseded();
}

export function exportFileName(claim: ClaimedExport): string {
  return safeFileName(`${claim.exportType}-export-${claim.jobId}.${claim.format}`);
}

export function exportStorageKey(claim: ClaimedExport): string {
  return storageKeyFor(claim.orgId, 'export', exportFileName(claim));
}

/** Records the written object as the job's file and completes the job, atomically. */
export async function finishExportJob(
  db: Database,
  claim: ClaimedExport,
  file: { key: string; size: number; rows: number },
): Promise<void> {
  await withTenant(db, claim.orgId, async (tx) => {
    const [stored] = await tx
      .insert(storedFiles)
      .values({
        organizationId: claim.orgId,
        storageKey: file.key,
        fileName: exportFileName(claim),
        contentType: EXPORT_CONTENT_TYPES[claim.format],
        sizeBytes: file.size,
        category: 'export',
        createdBy: claim.actor.createdBy,
      })
      .returning({ id: storedFiles.id });
    await finishJob(
      tx,
      exportJobSpec,
      claim,
      { fileId: stored.id, processedRows: file.rows, totalRows: file.rows },
      ownedBy(claim),
    );
  });
}
