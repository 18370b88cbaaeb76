/**
 * The queue consumer's side of a lead import (job kind 'lead-import'): streams the stored
 * upload from R2, maps and validates each row, and writes leads in batches of IMPORT_BATCH_ROWS
 * through the leads service, committing each batch with the job's counters and checkpoint. A retried or redelivered message skips
 * the rows up to the checkpoint, so no row is imported twice (the (import_job_id, import_row)
 * unique index backs this up). Its retry policy: an unreadable file fails at once; any other
 * error is retried by the queue (the job is failed when the message is dead-lettered).
 */
import type { Database } from '../../db/client';
import type { Bindings } from '../../env';
import { pgError } from '../../db/errors';
import type { importJobs } from '../../db/schema';
import type { TenantContext } from '../../db/tenant';
import { PermanentJobFault } from '../../jobs/faults';
import type { JobContext, JobHandler } from '../../jobs/job-handler';
import type { AddLeadInput } from '../leads';
import {
  type BatchOptions,
  type BatchResult,
  type BatchRow,
  createLeadsBatch,
  type MergedRow,
  type SkippedRow,
} from '../leads';
import { planColumns, type ColumnPlan } from './header-mapping';
import {
  claimImportJob,
  commitImportBatch,
  finishImportJob,
  importJobSpec,
  type BatchTally,
  type ClaimedImport,
  type RowOutcome,
} from './job-progress';
import { loadLookupLabels, rowToLeadInput, type LookupLabels } from './row-input';
import { assertRowsWithin, openStoredSpreadsheet, type SpreadsheetRows } from './spreadsheet';
import { UnreadableFile } from '../../core/unreadable-file';

export const IMPORT_BATCH_ROWS = 500;

interface PendingRow {
  /** The row's file line (the header is line 1): its row_number and, once committed, the checkpoint. */
  rowNumber: number;
  cells: string[];
}

/** A data error (SQLSTATE class 22) of the database: a value it refuses, which validation let through. */
function isDataError(error: unknown): string | null {
  const code = pgError(error)?.code;
  return code?.startsWith('22') ? code : null;
}

/**
 * createLeadsBatch inside a savepoint. Should the database refuse a value that validation let
 * through, only that batch is redone row by row, each in its own savepoint, so the refused rows
 * become row errors (never the database's own text) and every other row still imports.
 */
export async function createIsolatingRejects(
  ctx: TenantContext,
  rows: BatchRow[],
  options: BatchOptions,
): Promise<BatchResult> {
  try {
    return await ctx.db.transaction((tx) => createLeadsBatch({ ...ctx, db: tx }, rows, options));
  } catch (error) {
    if (!isDataError(error)) throw error;
  }
  const total: BatchResult = { created: 0, updated: 0, skipped: [], merged: [], errors: [], createdLeads: [] };
  for (const row of rows) {
    try {
      const one = await ctx.db.transaction((tx) => createLeadsBatch({ ...ctx, db: tx }, [row], options));
      total.created += one.created;
      total.updated += one.updated;
      total.skipped.push(...one.skipped);
      total.merged.push(...one.merged);
      total.errors.push(...one.errors);
      total.createdLeads.push(...one.createdLeads);
    } catch (error) {
      const code = isDataError(error);
      if (!code) throw error;
      total.errors.push({
        rowNumber: row.rowNumber,
        field: 'row',
        message: `the database refused a value of this row (SQLSTATE ${code})`,
      });
    }
  }
  return total;
}

const FIELD_NAMES = { email: 'email', profile_url: 'profile URL' } as const;

/** A lead a row's key led to, as a row outcome names it: with the earlier row of the file that gave it the key. */
function leadNamed(lead: { leadId: number; earlierRow?: number }): string {
  return lead.earlierRow === undefined
    ? `lead ${lead.leadId}`
    : `lead ${lead.leadId} (through row ${lead.earlierRow} of the file)`;
}

/** Why a row was skipped: a live lead's duplicate, an earlier row's, or its keys lead to two leads (merge). */
function skippedMessage(skip: SkippedRow): string {
  const field = FIELD_NAMES[skip.field];
  if (skip.alsoMatched)
    return `its ${FIELD_NAMES[skip.alsoMatched.field]} belongs to ${leadNamed(skip.alsoMatched)} and its ${field} to ${leadNamed(skip)}; it cannot be merged into both; skipped`;
  if (skip.earlierRow !== undefined)
    return `same ${field} as row ${skip.earlierRow} of the file; skipped as its duplicate`;
  return `duplicate of an existing lead (same ${field}); skipped`;
}

/** Which lead a row was merged into: a live lead with its email or profile URL, or where an earlier row's went. */
function mergedMessage(merge: MergedRow): string {
  if (!merge.field) return 'duplicate of an existing lead; merged into it';
  const field = FIELD_NAMES[merge.field];
  if (merge.earlierRow !== undefined)
    return `same ${field} as row ${merge.earlierRow} of the file; merged into the same lead`;
  return `duplicate of an existing lead (same ${field}); merged into it`;
}

/** Writes one batch: validation failures become error outcomes, the rest go to createLeadsBatch. */
async function writeBatch(
  ctx: TenantContext,
  claim: ClaimedImport,
  plan: ColumnPlan[],
  labels: LookupLabels,
  rows: PendingRow[],
): Promise<Omit<BatchTally, 'estimatedTotal' | 'lastRowNumber'>> {
  const outcomes: RowOutcome[] = [];
  const valid: { rowNumber: number; input: AddLeadInput }[] = [];
  const failedRows = new Set<number>();
  for (const row of rows) {
    const result = rowToLeadInput(plan, row.cells, labels);
    if (result.ok) valid.push({ rowNumber: row.rowNumber, input: result.input });
    else {
      failedRows.add(row.rowNumber);
      for (const issue of result.issues)
        outcomes.push({
          rowNumber: row.rowNumber,
          outcome: 'error',
          field: issue.field,
          message: issue.message,
          leadId: null,
        });
    }
  }
  const result = valid.length
    ? await createIsolatingRejects(ctx, valid, { importJobId: claim.jobId, onDuplicate: claim.options.duplicate_mode })
    : { created: 0, updated: 0, skipped: [], merged: [], errors: [] };
  for (const error of result.errors) {
    failedRows.add(error.rowNumber);
    outcomes.push({
      rowNumber: error.rowNumber,
      outcome: 'error',
      field: error.field,
      message: error.message,
      leadId: null,
    });
  }
  for (const skip of result.skipped) {
    outcomes.push({
      rowNumber: skip.rowNumber,
      outcome: 'duplicate_skipped',
      field: null,
      message: skippedMessage(skip),
      leadId: skip.leadId ?? null,
    });
  }
  for (const merge of result.merged) {
    outcomes.push({
      rowNumber: merge.rowNumber,
      outcome: 'duplicate_merged',
      field: null,
      message: mergedMessage(merge),
      leadId: merge.leadId ?? null,
    });
  }
  return {
    processed: rows.length,
    created: result.created,
    updated: result.updated,
    skipped: result.skipped.length,
    failed: failedRows.size,
    outcomes,
  };
}

async function importRows(db: Database, env: Bindings, claim: ClaimedImport, sheet: SpreadsheetRows): Promise<void> {
  let plan: ColumnPlan[] | undefined;
  let labels: LookupLabels | undefined;
  /** Non-empty data rows read so far, for the estimate of the total. */
  let dataRows = 0;
  let checkpoint = claim.checkpointRow;
  let pending: PendingRow[] = [];
  const flush = async () => {
    if (pending.length === 0) return;
    const rows = pending;
    pending = [];
    const lastRowNumber = rows[rows.length - 1].rowNumber;
    const fraction = sheet.fractionRead();
    const estimatedTotal = fraction > 0 ? Math.round(dataRows / fraction) : dataRows;
    await commitImportBatch(db, env, claim, checkpoint, async (ctx) => {
      labels ??= await loadLookupLabels(ctx);
      const tally = await writeBatch(ctx, claim, plan as ColumnPlan[], labels, rows);
      return { ...tally, lastRowNumber, estimatedTotal };
    });
    checkpoint = lastRowNumber;
  };
  for await (const { line, cells } of sheet.rows) {
    if (!plan) {
      plan = planColumns(cells);
      if (!plan.some((column) => column.kind === 'field' || column.kind === 'full_name')) {
        throw new UnreadableFile(
          'the first row must be a header row naming lead fields (e.g. First Name, Last Name, Email)',
        );
      }
      continue;
    }
    dataRows++;
    if (line <= checkpoint) continue;
    pending.push({ rowNumber: line, cells });
    if (pending.length >= IMPORT_BATCH_ROWS) await flush();
  }
  if (!plan) throw new UnreadableFile('the file has no rows');
  await flush();
}

/**
 * One delivery: claim, count the rows on a first delivery, import from the checkpoint, finish.
 * Any error is the runner's (src/jobs/runner.ts) to judge by the retry policy below.
 */
export async function runLeadImport(message: { orgId: number; jobId: number }, { db, env }: JobContext): Promise<void> {
  const claim = await claimImportJob(db, message);
  if (!claim) return;
  if (!claim.storageKey) throw new UnreadableFile('the uploaded file record is missing');
  // A first delivery counts the rows before importing any; a redelivery resumes a file that passed.
  if (claim.checkpointRow === 0) {
    await assertRowsWithin(await openStoredSpreadsheet(env.FILES, claim.storageKey, claim.options.format));
  }
  const sheet = await openStoredSpreadsheet(env.FILES, claim.storageKey, claim.options.format);
  await importRows(db, env, claim, sheet);
  await finishImportJob(db, env, claim);
}

export const IMPORT_DEAD_LETTER_REASON =
  'The import stopped: every attempt failed. Rows already imported are kept; upload the file again to import the rest.';

export const IMPORT_STALLED_REASON =
  'The import kept stopping before it finished. Rows already imported are kept; upload the file again to import the rest.';

export const leadImportJobHandler: JobHandler<'lead-import', typeof importJobs> = {
  ...importJobSpec,
  retry: {
    // The file is what it is: no retry reads it differently. Anything else may pass.
    permanentReason: (error) =>
      error instanceof UnreadableFile || error instanceof PermanentJobFault ? error.message : null,
  },
  reasons: { deadLettered: IMPORT_DEAD_LETTER_REASON, stalled: IMPORT_STALLED_REASON },
  run: runLeadImport,
};
