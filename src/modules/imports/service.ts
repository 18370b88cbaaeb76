/**
 * Lead imports as seen through the API: accepting an upload (content-sniffed, size-capped,
 * stored in R2, recorded as a queued job, enqueued through the outbox) and reading jobs and
 * their per-row outcomes. The queue consumer's side of a job is import-job.ts and job-progress.ts.
 */
import { z } from '@hono/zod-openapi';
import { eq, ilike, inArray, sql } from 'drizzle-orm';
import { importJobRows, importJobs } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { Conflict, NotFound, PayloadTooLarge, ValidationFailed } from '../../core/errors';
import { containsPattern, defineList } from '../../core/list';
import { isoTimestamp } from '../../core/schemas';
import { JOB_STATUSES, type JobStatus } from '../../jobs/job-status';
import { insertJob } from '../../jobs/outbox';
import { storeFile } from '../files';
import { CONTENT_TYPES, sniffSpreadsheet, type SpreadsheetFormat } from './spreadsheet';

/** Largest accepted upload: about 200 000 typical lead rows as CSV. Larger files answer 413. */
export const MAX_IMPORT_BYTES = 32 * 1024 * 1024;
export const LEAD_IMPORT_TYPE = 'lead';

export type DuplicateMode = 'skip' | 'merge';
export type ImportRowOutcome = 'error' | 'duplicate_skipped' | 'duplicate_merged';

export interface ImportJobOptions {
  duplicate_mode: DuplicateMode;
  format: SpreadsheetFormat;
}

type ImportJobRow = typeof importJobs.$inferSelect;

export function presentImportJob(job: ImportJobRow) {
  const options = job.options as Partial<ImportJobOptions>;
  const done = job.status === 'completed';
  const total = done ? job.processedRows : Math.max(job.totalRows, job.processedRows);
  return {
    id: job.id,
    type: job.type,
    status: job.status as JobStatus,
    file_name: job.fileName,
    file_id: job.fileId,
    format: options.format ?? null,
    duplicate_mode: options.duplicate_mode ?? 'skip',
    total,
    total_is_estimate: !done && job.status !== 'failed',
    processed: job.processedRows,
    created: job.createdCount,
    updated: job.updatedCount,
    skipped: job.skippedCount,
    failed: job.failedCount,
    percentage: done ? 100 : total > 0 ? Math.min(99, Math.floor((job.processedRows / total) * 100)) : 0,
    error: job.error,
    created_by: job.createdBy,
    started_at: isoTimestamp(job.startedAt),
    finished_at: isoTimestamp(job.finishedAt),
    created_at: isoTimestamp(job.createdAt) as string,
    updated_at: isoTimestamp(job.updatedAt) as string,
  };
}

export type PresentedImportJob = ReturnType<typeof presentImportJob>;

/**
 * The upload goes to R2 first, before any database write of the request; storeFile registers
 * its deletion for the case the transaction rolls back, so a failed request leaves no object.
 * The queue message leaves only after the commit (insertJob).
 */
export async function startLeadImport(
  ctx: TenantContext,
  bucket: R2Bucket,
  input: { file: File; duplicateMode: DuplicateMode },
): Promise<PresentedImportJob> {
  const { file } = input;
  if (file.size > MAX_IMPORT_BYTES)
    throw new PayloadTooLarge(`file exceeds the import limit of ${MAX_IMPORT_BYTES / 1024 / 1024} MB`);
  const sniffed = await sniffSpreadsheet(file);
  if ('reason' in sniffed) throw ValidationFailed.field('file', sniffed.reason);
  const stored = await storeFile(ctx, bucket, {
    category: 'import',
    fileName: file.name || `import.${sniffed.format}`,
    contentType: CONTENT_TYPES[sniffed.format],
    body: file.stream().pipeThrough(new FixedLengthStream(file.size)),
    sizeBytes: file.size,
  });
  const options: ImportJobOptions = { duplicate_mode: input.duplicateMode, format: sniffed.format };
  // The job with its outbox message (sent only after the commit), in one statement, the request's
  // last: its COMMIT goes with it.
  ctx.commitWithNext?.();
  const job = await insertJob(ctx, 'lead-import', importJobs, {
    organizationId: ctx.orgId,
    type: LEAD_IMPORT_TYPE,
    status: 'queued',
    fileId: stored.id,
    fileName: stored.fileName,
    options: { ...options },
    createdBy: ctx.userId,
  });
  return presentImportJob(job);
}

// Declared here, not in schemas.ts: schemas.ts imports MAX_IMPORT_BYTES from this file.
const importJobListFilters = {
  type: z.string().trim().max(50).optional().openapi({ description: 'Job type, e.g. `lead`' }),
  status: z.enum(JOB_STATUSES).optional().openapi({ description: 'Only jobs in this status' }),
};

const importJobRowFilters = {
  outcome: z
    .enum(['error', 'duplicate_skipped', 'duplicate_merged'])
    .optional()
    .openapi({ description: 'Only rows with this outcome' }),
};

export const importJobList = defineList({
  sort: { id: importJobs.id, created_at: importJobs.createdAt, status: importJobs.status },
  filters: importJobListFilters,
  search: (term) => ilike(importJobs.fileName, containsPattern(term)),
  createdAt: importJobs.createdAt,
  base: (ctx, params) => ({
    rows: (columns) =>
      ctx.db
        .select({ job: importJobs, ...columns })
        .from(importJobs)
        .$dynamic(),
    where: tenantWhere(
      ctx,
      importJobs,
      params.type ? eq(importJobs.type, params.type) : undefined,
      params.status ? eq(importJobs.status, params.status) : undefined,
    ),
  }),
  present: (row) => presentImportJob(row.job),
});
export const ImportJobListQuery = importJobList.query;

export const listImportJobs = importJobList.run;

/**
 * Stops a queued or running import: the consumer sees the status at its next batch and stops
 * there (rows of batches already committed stay imported). An ended job answers 409.
 */
export async function cancelImportJob(ctx: TenantContext, id: number) {
  const [cancelled] = await ctx.db
    .update(importJobs)
    .set({ status: 'cancelled', error: 'Cancelled on request', finishedAt: sql`now()`, updatedAt: sql`now()` })
    .where(tenantWhere(ctx, importJobs, eq(importJobs.id, id), inArray(importJobs.status, ['queued', 'running'])))
    .returning();
  if (cancelled) return presentImportJob(cancelled);
  const job = await requireImportJob(ctx, id);
  throw new Conflict(`The import has already ended (${job.status})`, 'import_ended', { status: job.status });
}

export async function requireImportJob(ctx: Pick<TenantContext, 'db' | 'orgId'>, id: number): Promise<ImportJobRow> {
  const [job] = await ctx.db
    .select()
    .from(importJobs)
    .where(tenantWhere(ctx, importJobs, eq(importJobs.id, id)));
  if (!job) throw new NotFound('Import job', id);
  return job;
}

export const importJobRowList = defineList({
  sort: { row_number: importJobRows.rowNumber, id: importJobRows.id },
  filters: importJobRowFilters,
  search: (term) => ilike(importJobRows.message, containsPattern(term)),
  createdAt: importJobRows.createdAt,
  base: (ctx, params) => ({
    rows: (columns) =>
      ctx.db
        .select({ row: importJobRows, ...columns })
        .from(importJobRows)
        .$dynamic(),
    where: tenantWhere(ctx, importJobRows, params.outcome ? eq(importJobRows.outcome, params.outcome) : undefined),
  }),
  present: ({ row }) => ({
    id: row.id,
    row_number: row.rowNumber,
    outcome: row.outcome as ImportRowOutcome,
    field: row.field,
    message: row.message,
    lead_id: row.leadId,
    created_at: isoTimestamp(row.createdAt) as string,
  }),
});
export const ImportJobRowsQuery = importJobRowList.query;

export async function listImportJobRows(
  ctx: TenantContext,
  jobId: number,
  params: z.output<typeof ImportJobRowsQuery>,
) {
  const page = await importJobRowList.run(ctx, params, { where: eq(importJobRows.importJobId, jobId) });
  // After the paging parameters are checked, so a malformed cursor is a 400 whatever the id.
  await requireImportJob(ctx, jobId);
  return page;
}
