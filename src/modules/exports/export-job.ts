/**
 * The queue consumer's side of an export (job kind 'export'): counts the matching rows, then reads them in keyset pages (each
 * page its own short transaction scoped to the organization, as the job's creator) and streams
 * them as CSV or XLSX into an R2 multipart upload. A failure marks the job failed with the
 * reason (an export restarts from scratch, so asking again is the retry); a crash that kills
 * the isolate is redelivered by the queue and the export starts over.
 */
import { withTenant } from '../../db/client';
import type { JobContext, JobHandler } from '../../jobs/job-handler';
import { userFacingJobError } from '../../jobs/job-status';
import { csvEncoder, EXPORT_CONTENT_TYPES, R2MultipartWriter, xlsxEncoder } from './file-writers';
import {
  claimExportJob,
  ExportSuperseded,
  exportContext,
  exportStorageKey,
  failDeadLetteredExport,
  failExportJob,
  finishExportJob,
  recordExportProgress,
  type ClaimedExport,
} from './job-progress';
import { exportSource } from './sources';

async function writeExport(claim: ClaimedExport, { db }: JobContext, writer: R2MultipartWriter): Promise<number> {
  const source = exportSource(claim.exportType, claim.filters);
  const total = await withTenant(db, claim.orgId, (tx) => source.count(exportContext(claim, tx)));
  await recordExportProgress(db, claim, { total });
  const encoder =
    claim.format === 'xlsx' ? xlsxEncoder((bytes) => writer.write(bytes)) : csvEncoder((bytes) => writer.write(bytes));
  encoder.header(source.columns);
  let afterId = 0;
  let written = 0;
  for (;;) {
    const page = await withTenant(db, claim.orgId, (tx) => source.page(exportContext(claim, tx), afterId));
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
  const claim = await claimExportJob(context.db, message.orgId, message.jobId);
  if (!claim) return;
  const writer = new R2MultipartWriter(context.env.FILES, exportStorageKey(claim), EXPORT_CONTENT_TYPES[claim.format]);
  try {
    const rows = await writeExport(claim, context, writer);
    const size = await writer.close();
    await finishExportJob(context.db, claim, { key: writer.key, size, rows });
  } catch (error) {
    await writer.abort();
    await context.env.FILES.delete(writer.key).catch(() => undefined);
    if (error instanceof ExportSuperseded) return;
    await failExportJob(context.db, claim, `The export failed: ${userFacingJobError(error)}. Please request it again.`);
  }
}

export const EXPORT_DEAD_LETTER_REASON =
  'The export could not be written: every attempt failed. Please request it again.';

export const exportJobHandler: JobHandler<'export'> = {
  run: runExport,
  deadLettered: async (message, { db }) => {
    await failDeadLetteredExport(db, message, EXPORT_DEAD_LETTER_REASON);
  },
};
