/**
 * Request and response shapes of the export endpoints. `filters` is checked against the
 * export type's own filter schema (the lead list filters for leads and clients), and stored
 * as sent so the consumer applies exactly the same filters.
 */
import { z } from '@hono/zod-openapi';
import { refineDayRanges } from '../../core/list';
import { jsonObject, timestamp } from '../../core/schemas';
import { JOB_STATUSES } from '../../jobs/job-status';
import { EXPORT_TYPES, filterSchemaFor } from './sources';

export const CreateExportBody = z
  .object({
    export_type: z
      .enum(EXPORT_TYPES)
      .openapi({ description: '`clients` = leads whose status is the organization’s Converted status' }),
    filters: jsonObject({ maxKeyLength: 100, maxChars: 20_000 })
      .optional()
      .openapi({
        anyOf: [
          { $ref: '#/components/schemas/LeadFilters' },
          { $ref: '#/components/schemas/CompanyFilters' },
          { $ref: '#/components/schemas/ContactFilters' },
        ],
        description:
          'The filters of the exported type’s list: LeadFilters for leads and clients, CompanyFilters for companies, ContactFilters for contacts (unknown keys refused)',
        example: { state_id: '1,2', country: 'Germany' },
      }),
    format: z.enum(['csv', 'xlsx']).default('csv').openapi({ description: 'File format; csv when omitted' }),
  })
  .superRefine((body, ctx) => {
    if (!body.filters) return;
    const result = filterSchemaFor(body.export_type).safeParse(body.filters);
    if (result.success) {
      // The list's own range rule (core/list.ts): an inverted range would export an empty file.
      refineDayRanges(result.data, ctx, ['filters']);
      return;
    }
    for (const issue of result.error.issues)
      ctx.addIssue({ code: 'custom', path: ['filters', ...issue.path.map(String)], message: issue.message });
  })
  .openapi('CreateExportRequest', {
    description: 'What to export, filtered how, in which format',
    example: { export_type: 'leads', filters: { state_id: '1,2', country: 'Germany' }, format: 'xlsx' },
  });

export const ExportJobSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The export job’s id' }),
    export_type: z.enum(EXPORT_TYPES).openapi({ description: 'What is exported' }),
    format: z.enum(['csv', 'xlsx']).openapi({ description: 'File format' }),
    filters: z.record(z.string(), z.unknown()).openapi({ description: 'The filters as sent; {} when none' }),
    status: z.enum(JOB_STATUSES).openapi({
      description: 'queued → running → completed, failed or cancelled; download once completed',
    }),
    total: z.number().int().openapi({ description: 'Rows matching the filters (known once the job runs)' }),
    processed: z.number().int().openapi({ description: 'Rows written so far' }),
    percentage: z.number().int().min(0).max(100).openapi({ description: 'processed of total, 0 to 100' }),
    file_id: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'The stored export file; null until completed, and again once the file has expired' }),
    download_url: z.string().nullable().openapi({
      description: 'Path of the download once completed; null before, and once the file has expired (expires_at)',
    }),
    expires_at: timestamp(
      'When a completed export’s file is deleted: 30 days after it finished. From then on its download is a 410 `export_expired`; request a new export. Null until completed',
    ).nullable(),
    error: z.string().nullable().openapi({ description: 'Why the export failed; null unless failed' }),
    created_by: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'The user who requested it; null when that user is gone' }),
    started_at: timestamp('When a worker started it; null while queued').nullable(),
    finished_at: timestamp('When it ended; null until then').nullable(),
    created_at: timestamp('When it was requested'),
    updated_at: timestamp('When its status or progress last changed'),
  })
  .openapi('ExportJob', {
    description: 'An asynchronous export and its progress',
    example: {
      id: 8,
      export_type: 'leads',
      format: 'csv',
      filters: { state_id: '1,2' },
      status: 'completed',
      total: 1250,
      processed: 1250,
      percentage: 100,
      file_id: 21,
      download_url: '/api/exports/download/8',
      expires_at: '2026-02-14T09:30:04.000Z',
      error: null,
      created_by: 1,
      started_at: '2026-01-15T09:30:01.000Z',
      finished_at: '2026-01-15T09:30:04.000Z',
      created_at: '2026-01-15T09:30:00.000Z',
      updated_at: '2026-01-15T09:30:04.000Z',
    },
  });

/** Filters of the list beyond the standard list parameters (the list itself: service.ts). */
export const exportListFilters = {
  export_type: z.enum(EXPORT_TYPES).optional().openapi({ description: 'Only exports of this type' }),
  status: z.enum(JOB_STATUSES).optional().openapi({ description: 'Only exports in this status' }),
};
