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
  .openapi('LeadImportRequest');

export const ImportJobSchema = z
  .object({
    id: z.number().int(),
    type: z.string().openapi({ example: 'lead' }),
    status: z.enum(JOB_STATUSES),
    file_name: z.string(),
    file_id: z.number().int(),
    format: z.enum(['csv', 'xlsx']).nullable(),
    duplicate_mode: z.enum(['skip', 'merge']),
    total: z.number().int().openapi({
      description: 'Data rows in the file: exact once completed, an estimate from the bytes read while running',
    }),
    total_is_estimate: z.boolean(),
    processed: z.number().int(),
    created: z.number().int(),
    updated: z.number().int().openapi({ description: 'Existing leads merged with a row (duplicate_mode merge)' }),
    skipped: z.number().int().openapi({ description: 'Rows skipped as duplicates of existing leads' }),
    failed: z.number().int().openapi({ description: 'Rows refused by validation; see /api/import-job/{id}/rows' }),
    percentage: z.number().int().min(0).max(100),
    error: z
      .string()
      .nullable()
      .openapi({ description: 'Why the job failed, or the last error it is being retried after' }),
    created_by: z.number().int().nullable(),
    started_at: timestamp().nullable(),
    finished_at: timestamp().nullable(),
    created_at: timestamp(),
    updated_at: timestamp(),
  })
  .openapi('ImportJob');

export const ImportJobRowSchema = z
  .object({
    id: z.number().int(),
    row_number: z.number().int().openapi({
      description: 'The file line of the row, as a spreadsheet shows it: the header is line 1, the first data row is 2',
    }),
    outcome: z.enum(['error', 'duplicate_skipped', 'duplicate_merged']),
    field: z.string().nullable().openapi({ description: 'Lead field the error is about' }),
    message: z.string(),
    lead_id: z.number().int().nullable().openapi({ description: 'The existing lead a duplicate matched' }),
    created_at: timestamp(),
  })
  .openapi('ImportJobRow');
