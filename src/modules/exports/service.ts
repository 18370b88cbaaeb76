/**
 * Exports as seen through the API: create (validated filters stored with a queued job, message
 * enqueued through the outbox), list with status and progress, and download (only a completed
 * job's file, only to its organization). The queue consumer's side is export-job.ts and
 * job-progress.ts.
 */
import { eq, sql } from 'drizzle-orm';
import { exportJobs } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { Conflict, Gone, NotFound } from '../../core/errors';
import { containsPattern, defineList } from '../../core/list';
import { isoTimestamp } from '../../core/schemas';
import type { JobStatus } from '../../jobs/job-status';
import { insertJob } from '../../jobs/outbox';
import { fileResponse, findStoredFile } from '../files';
import type { ExportFormat } from './file-writers';
import { EXPORT_FILE_RETENTION_DAYS, exportExpiresAt } from './retention';
import { exportListFilters } from './schemas';
import type { ExportType } from './sources';

type ExportJobRow = typeof exportJobs.$inferSelect;

export function presentExportJob(job: ExportJobRow) {
  const done = job.status === 'completed';
  const expiresAt = done ? exportExpiresAt(job.finishedAt) : null;
  return {
    id: job.id,
    export_type: job.exportType as ExportType,
    format: job.format as ExportFormat,
    filters: job.filters,
    status: job.status as JobStatus,
    total: job.totalRows,
    processed: job.processedRows,
    percentage: done
      ? 100
      : job.totalRows > 0
        ? Math.min(99, Math.floor((job.processedRows / job.totalRows) * 100))
        : 0,
    file_id: job.fileId,
    download_url: done && job.fileId !== null ? `/api/exports/download/${job.id}` : null,
    expires_at: isoTimestamp(expiresAt),
    error: job.error,
    created_by: job.createdBy,
    started_at: isoTimestamp(job.startedAt),
    finished_at: isoTimestamp(job.finishedAt),
    created_at: isoTimestamp(job.createdAt) as string,
    updated_at: isoTimestamp(job.updatedAt) as string,
  };
}

export async function createExport(
  ctx: TenantContext,
  input: { exportType: ExportType; format: ExportFormat; filters: Record<string, unknown> },
) {
  // The job with its outbox message (sent only after the commit), in one statement, the request's
  // last: its COMMIT goes with it.
  ctx.commitWithNext?.();
  const job = await insertJob(ctx, 'export', exportJobs, {
    organizationId: ctx.orgId,
    exportType: input.exportType,
    format: input.format,
    filters: input.filters,
    status: 'queued',
    createdBy: ctx.userId,
  });
  return presentExportJob(job);
}

export const exportList = defineList({
  sort: { id: exportJobs.id, created_at: exportJobs.createdAt, status: exportJobs.status },
  filters: exportListFilters,
  // What a row shows: its type, format, status and error.
  search: (term) =>
    sql`(${exportJobs.exportType} || ' ' || ${exportJobs.format} || ' ' || ${exportJobs.status} || ' ' || coalesce(${exportJobs.error}, '')) ilike ${containsPattern(term)}`,
  createdAt: exportJobs.createdAt,
  base: (ctx, params) => ({
    rows: (columns) =>
      ctx.db
        .select({ job: exportJobs, ...columns })
        .from(exportJobs)
        .$dynamic(),
    where: tenantWhere(
      ctx,
      exportJobs,
      params.export_type ? eq(exportJobs.exportType, params.export_type) : undefined,
      params.status ? eq(exportJobs.status, params.status) : undefined,
    ),
  }),
  present: (row) => presentExportJob(row.job),
});
export const ExportListQuery = exportList.query;

export const listExports = exportList.run;

export async function downloadExport(ctx: TenantContext, bucket: R2Bucket, id: number): Promise<Response> {
  const [job] = await ctx.db
    .select()
    .from(exportJobs)
    .where(tenantWhere(ctx, exportJobs, eq(exportJobs.id, id)));
  if (!job) throw new NotFound('Export', id);
  if (job.status !== 'completed') {
    throw new Conflict(`Export ${id} is not ready (status ${job.status})`, 'export_not_ready', { status: job.status });
  }
  if (job.fileId === null) {
    const expiredAt = isoTimestamp(exportExpiresAt(job.finishedAt));
    throw new Gone(
      `Export ${id} has expired: its file is kept ${EXPORT_FILE_RETENTION_DAYS} days after the export finished. Request a new export.`,
      'export_expired',
      { expired_at: expiredAt },
    );
  }
  return fileResponse(bucket, await findStoredFile(ctx, job.fileId));
}
