/**
 * The queue consumer's side of an export (job kind 'export'): counts the matching rows, then
 * reads them in keyset pages (each page its own short transaction scoped to the organization,
 * as the job itself) and streams them as CSV or XLSX into an R2 multipart upload. Its retry
 * policy: a transient fault (the database connection lost, R2 unavailable) is retried by the
 * queue, and the retry writes the file again from the start; any other failure fails the job at
 * once with the reason, since asking again would meet it again.
 */
import { withTenant } from '../../db/client';
import type { exportJobs } from '../../db/schema';
import { retryTransientOnly, userFacingJobError } from '../../jobs/faults';
import type { JobContext, JobHandler } from '../../jobs/job-handler';
import { jobTenantContext } from '../../jobs/lifecycle';
import { csvEncoder, EXPORT_CONTENT_TYPES, R2MultipartWriter, xlsxEncoder } from './file-writers';
import {
  claimExportJob,
  exportJobSpec,
  exportStorageKey,
  finishExportJob,
  recordExportProgress,
  type ClaimedExport,
} from './job-progress';
import { exportSource } from './sources';

async function writeExport(claim: ClaimedExport, { db }: JobContext, writer: R2MultipartWriter): Promise<number> {
  const source = exportSource(claim.exportType, claim.filters);
  const total = await withTenant(db, claim.orgId, (tx) => source.count(jobTenantContext(claim, tx)));
  await recordExportProgress(db, claim, { total });
  const encoder =
    claim.format === 'xlsx' ? xlsxEncoder((bytes) => writer.write(bytes)) : csvEncoder((bytes) => writer.write(bytes));
  encoder.header(source.columns);
  let afterId = 0;
  let written = 0;
  for (;;) {
    const page = await withTenant(db, claim.orgId, (tx) => source.page(jobTenantContext(claim, tx), afterId));
    if (page.lastId === null) break;
    encoder.rows(page.rows);
    written += page.rows.length;
    afterId = page.lastId;
    await writer.flush();
    await recordExportProgress(db, claim, { processed: written });
  }
  encoder.end();
  return written;
}

async function runExport(message: { orgId: number; jobId: number }, context: JobContext): Promise<void> {
  const claim = await claimExportJob(context.db, message);
  if (!claim) return;
  const writer = new R2MultipartWriter(context.env.FILES, exportStorageKey(claim), EXPORT_CONTENT_TYPES[claim.format]);
  try {
    const rows = await writeExport(claim, context, writer);
    const size = await writer.close();
    await finishExportJob(context.db, claim, { key: writer.key, size, rows });
  } catch (error) {
    // Whatever follows (a retry, a failure, a newer delivery), this delivery's object is abandoned.
    await writer.abort();
    await context.env.FILES.delete(writer.key).catch(() => undefined);
    throw error;
  }
}

export const EXPORT_DEAD_LETTER_REASON =
  'The export could not be written: every attempt failed. Please request it again.';

export const EXPORT_STALLED_REASON = 'The export kept stopping before it finished. Please request it again.';

export const exportJobHandler: JobHandler<'export', typeof exportJobs> = {
  ...exportJobSpec,
  retry: retryTransientOnly((error) => `The export failed: ${userFacingJobError(error)}. Please request it again.`),
  reasons: { deadLettered: EXPORT_DEAD_LETTER_REASON, stalled: EXPORT_STALLED_REASON },
  run: runExport,
};
