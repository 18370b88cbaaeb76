/**
 * The queue consumer's side of an export job (claimed through the shared claimJob). An export
 * has no checkpoint: a redelivered message (after a crash) simply writes the file again from
 * the start. Each claim stamps `started_at`, and progress and completion only apply while that
 * stamp is still the job's, so an older delivery that is still running cannot overwrite a newer
 * one's result.
 */
import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { withTenant, type Database } from '../../db/client';
import { exportJobs, storedFiles } from '../../db/schema';
import { actorContext, type TenantContext } from '../../db/tenant';
import { claimJob, type JobActor } from '../../jobs/claim';
import { NOTIFICATION_TYPES, notifyJobEnded } from '../notifications/service';
import { safeFileName, storageKeyFor } from '../files/storage';
import { EXPORT_CONTENT_TYPES, type ExportFormat } from './file-writers';
import type { ExportType } from './sources';

export interface ClaimedExport extends JobActor {
  jobId: number;
  orgId: number;
  exportType: ExportType;
  format: ExportFormat;
  filters: Record<string, unknown>;
  /** This delivery's claim: the started_at it stamped. */
  claimedAt: Date;
}

/** A newer delivery of the same message owns the job now. */
export class ExportSuperseded extends Error {}

const ownedBy = (claim: ClaimedExport) =>
  and(eq(exportJobs.id, claim.jobId), eq(exportJobs.status, 'running'), eq(exportJobs.startedAt, claim.claimedAt));

/** Marks the job running from scratch under a fresh claim stamp; null when it has ended already. */
export async function claimExportJob(db: Database, orgId: number, jobId: number): Promise<ClaimedExport | null> {
  return claimJob(db, exportJobs, { orgId, jobId }, async (tx, job, actor) => {
    const [claimed] = await tx
      .update(exportJobs)
      .set({
        status: 'running',
        startedAt: sql`date_trunc('milliseconds', clock_timestamp())`,
        processedRows: 0,
        error: null,
        updatedAt: sql`now()`,
      })
      .where(eq(exportJobs.id, jobId))
      .returning({ startedAt: exportJobs.startedAt });
    return {
      jobId,
      orgId,
      ...actor,
      exportType: job.exportType as ExportType,
      format: job.format as ExportFormat,
      filters: job.filters,
      claimedAt: claimed.startedAt as Date,
    };
  });
}

export function exportContext(claim: ClaimedExport, db: TenantContext['db']): TenantContext {
  return { db, orgId: claim.orgId, ...actorContext({ kind: 'job', jobId: claim.jobId, createdBy: claim.userId }) };
}

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
        updatedAt: sql`now()`,
      })
      .where(ownedBy(claim))
      .returning({ id: exportJobs.id }),
  );
  if (updated.length === 0) throw new ExportSuperseded();
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
        createdBy: claim.userId,
      })
      .returning({ id: storedFiles.id });
    const done = await tx
      .update(exportJobs)
      .set({
        status: 'completed',
        fileId: stored.id,
        processedRows: file.rows,
        totalRows: file.rows,
        finishedAt: sql`now()`,
        updatedAt: sql`now()`,
      })
      .where(ownedBy(claim))
      .returning({ id: exportJobs.id });
    if (done.length === 0) throw new ExportSuperseded();
    await notifyJobEnded(tx, {
      orgId: claim.orgId,
      userId: claim.userId,
      typeId: NOTIFICATION_TYPES.exportReady,
      title: `Your ${claim.exportType} export is ready (${file.rows} rows)`,
      data: { export_id: claim.jobId, status: 'completed', download_path: `/api/exports/download/${claim.jobId}` },
    });
  });
}

/** Fails this delivery's job with `reason` and notifies its creator (see failExportJobWhere). */
export async function failExportJob(db: Database, claim: ClaimedExport, reason: string): Promise<void> {
  await failExportJobWhere(db, claim.orgId, ownedBy(claim), reason);
}

/** Fails a job that never ended, whoever claimed it last: its message was dead-lettered. */
export async function failDeadLetteredExport(
  db: Database,
  job: { orgId: number; jobId: number },
  reason: string,
): Promise<boolean> {
  const open = and(
    eq(exportJobs.organizationId, job.orgId),
    eq(exportJobs.id, job.jobId),
    inArray(exportJobs.status, ['queued', 'running']),
  );
  return failExportJobWhere(db, job.orgId, open, reason);
}

/** Only a job matching `which` changes, so a repeated call neither overwrites nor notifies again. */
async function failExportJobWhere(
  db: Database,
  orgId: number,
  which: SQL | undefined,
  reason: string,
): Promise<boolean> {
  return withTenant(db, orgId, async (tx) => {
    const [failed] = await tx
      .update(exportJobs)
      .set({ status: 'failed', error: reason.slice(0, 1000), finishedAt: sql`now()`, updatedAt: sql`now()` })
      .where(which)
      .returning({ id: exportJobs.id, exportType: exportJobs.exportType, createdBy: exportJobs.createdBy });
    if (!failed) return false;
    await notifyJobEnded(tx, {
      orgId,
      userId: failed.createdBy,
      typeId: NOTIFICATION_TYPES.exportReady,
      title: `Your ${failed.exportType} export failed`,
      data: { export_id: failed.id, status: 'failed' },
    });
    return true;
  });
}
