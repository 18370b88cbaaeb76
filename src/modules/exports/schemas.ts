/**
 * Request and response shapes of the export endpoints. `filters` is checked against the
 * export type's own filter schema (the lead list filters for leads and clients), and stored
 * as sent so the consumer applies exactly the same filters.
 */
import { z } from '@hono/zod-openapi';
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
          {
            type: 'object',
            title: 'RecordFilters',
            properties: {
              search_value: { type: 'string', maxLength: 200 },
              start_date: { type: 'string', format: 'date' },
              end_date: { type: 'string', format: 'date' },
            },
            additionalProperties: false,
          },
        ],
        description:
          'For leads and clients: the lead list filters (LeadFilters; unknown keys refused). For companies and contacts: search_value, start_date, end_date.',
        example: { state_id: '1,2', country: 'Germany' },
      }),
    format: z.enum(['csv', 'xlsx']).default('csv'),
  })
  .superRefine((body, ctx) => {
    if (!body.filters) return;
    const result = filterSchemaFor(body.export_type).safeParse(body.filters);
    if (result.success) return;
    for (const issue of result.error.issues)
      ctx.addIssue({ code: 'custom', path: ['filters', ...issue.path.map(String)], message: issue.message });
  })
  .openapi('CreateExportRequest');

export const ExportJobSchema = z
  .object({
    id: z.number().int(),
    export_type: z.enum(EXPORT_TYPES),
    format: z.enum(['csv', 'xlsx']),
    filters: z.record(z.string(), z.unknown()),
    status: z.enum(JOB_STATUSES),
    total: z.number().int().openapi({ description: 'Rows matching the filters (known once the job runs)' }),
    processed: z.number().int(),
    percentage: z.number().int().min(0).max(100),
    file_id: z.number().int().nullable(),
    download_url: z.string().nullable().openapi({ description: 'Path of the download once completed' }),
    error: z.string().nullable(),
    created_by: z.number().int().nullable(),
    started_at: timestamp().nullable(),
    finished_at: timestamp().nullable(),
    created_at: timestamp(),
    updated_at: timestamp(),
  })
  .openapi('ExportJob');

/** Filters of the list beyond the standard list parameters (the list itself: service.ts). */
export const exportListFilters = {
  export_type: z.enum(EXPORT_TYPES).optional(),
  status: z.enum(JOB_STATUSES).optional(),
};
