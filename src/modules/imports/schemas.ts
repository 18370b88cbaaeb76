/**
 * Request and response shapes of the lead-import endpoints.
 */
import { z } from '@hono/zod-openapi';
import { timestamp } from '../../core/schemas';
import { JOB_STATUSES } from '../../jobs/job-status';
import { MAX_IMPORT_BYTES } from './service';

export const LeadImportForm = z
  .object({
    file: z
      .custom<File>((value) => value instanceof File, { message: 'is required and must be a file (CSV or XLSX)' })
      .openapi({
        type: 'string',
        format: 'binary',
        description: `CSV (UTF-8; comma, semicolon, tab or pipe separated) or XLSX (first worksheet), told apart by content; the first row holds the headers. At most ${MAX_IMPORT_BYTES / 1024 / 1024} MB.`,
      }),
    duplicate_mode: z.enum(['skip', 'merge']).default('skip').openapi({
      description:
        'A row whose email (compared case-insensitively) a live lead of the organization, or an earlier row of the file, already has: skip it, or merge its values into that lead',
    }),
  })
  .openapi('LeadImportRequest', {
    description: 'A multipart form: the spreadsheet and what to do with duplicates',
    example: { file: '(binary)', duplicate_mode: 'skip' },
  });

export const ImportJobSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The import job’s id' }),
    type: z.string().openapi({ description: 'What is imported (lead)', example: 'lead' }),
    status: z.enum(JOB_STATUSES).openapi({
      description: 'queued → running → completed, failed or cancelled',
    }),
    file_name: z.string().openapi({ description: 'The uploaded file’s name' }),
    file_id: z.number().int().openapi({ description: 'The stored file being imported' }),
    format: z
      .enum(['csv', 'xlsx'])
      .nullable()
      .openapi({ description: 'The file format recognised from its content; null until the job has read it' }),
    duplicate_mode: z.enum(['skip', 'merge']).openapi({ description: 'What happens to duplicate rows' }),
    total: z.number().int().openapi({
      description: 'Data rows in the file: exact once completed, an estimate from the bytes read while running',
    }),
    total_is_estimate: z.boolean().openapi({ description: 'true while total is an estimate' }),
    processed: z.number().int().openapi({ description: 'Rows handled so far' }),
    created: z.number().int().openapi({ description: 'New leads created' }),
    updated: z.number().int().openapi({ description: 'Existing leads merged with a row (duplicate_mode merge)' }),
    skipped: z.number().int().openapi({ description: 'Rows skipped as duplicates of existing leads' }),
    failed: z.number().int().openapi({ description: 'Rows refused by validation; see /api/import-job/{id}/rows' }),
    percentage: z.number().int().min(0).max(100).openapi({ description: 'processed of total, 0 to 100' }),
    error: z
      .string()
      .nullable()
      .openapi({ description: 'Why the job failed, or the last error it is being retried after' }),
    created_by: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'The user who started it; null when that user is gone' }),
    started_at: timestamp('When a worker started it; null while queued').nullable(),
    finished_at: timestamp('When it ended; null until then').nullable(),
    created_at: timestamp('When it was requested'),
    updated_at: timestamp('When its status or counts last changed'),
  })
  .openapi('ImportJob', {
    description: 'An asynchronous lead import and its progress',
    example: {
      id: 6,
      type: 'lead',
      status: 'completed',
      file_name: 'leads.csv',
      file_id: 20,
      format: 'csv',
      duplicate_mode: 'skip',
      total: 500,
      total_is_estimate: false,
      processed: 500,
      created: 480,
      updated: 0,
      skipped: 15,
      failed: 5,
      percentage: 100,
      error: null,
      created_by: 1,
      started_at: '2026-01-15T09:30:01.000Z',
      finished_at: '2026-01-15T09:30:06.000Z',
      created_at: '2026-01-15T09:30:00.000Z',
      updated_at: '2026-01-15T09:30:06.000Z',
    },
  });

export const ImportJobRowSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The row record’s id' }),
    row_number: z.number().int().openapi({
      description:
        'The file line of the row, as a spreadsheet shows it: the header is line 1, the first data row is 2 (blank lines count)',
    }),
    outcome: z.enum(['error', 'duplicate_skipped', 'duplicate_merged']).openapi({
      description:
        'error: refused, nothing imported; duplicate_skipped: a lead (stored, or from an earlier row of the file) has the email or profile URL, or (merge) the email and the profile URL lead to two different leads: row ignored, the message says which; duplicate_merged: merged into that lead',
    }),
    field: z.string().nullable().openapi({ description: 'Lead field the error is about' }),
    message: z.string().openapi({ description: 'What happened to the row, in plain words' }),
    lead_id: z.number().int().nullable().openapi({
      description:
        'The lead a duplicate matched: stored before, or created or merged into by an earlier row of the file',
    }),
    created_at: timestamp('When the row was handled'),
  })
  .openapi('ImportJobRow', {
    description: 'One row of an import that was refused or matched an existing lead',
    example: {
      id: 40,
      row_number: 12,
      outcome: 'error',
      field: 'email',
      message: 'must be a valid email address',
      lead_id: null,
      created_at: '2026-01-15T09:30:00.000Z',
    },
  });
