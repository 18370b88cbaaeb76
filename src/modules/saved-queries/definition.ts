/**
 * The saved query's definition grammar (module, filters, metric, group_by, bucket), and the
 * scopes and widget types shared with the dashboards.
 */
import { z } from '@hono/zod-openapi';
import { jsonObject } from '../../core/schemas';
import { BUCKET_UNITS, METRIC_OPS, QUERY_MODULES } from './modules';

export const SCOPES = ['personal', 'team', 'workspace'] as const;
export const WIDGET_TYPES = ['number', 'bar', 'line', 'pie', 'table'] as const;

export const scope = z.enum(SCOPES).openapi({
  description:
    'personal: only its owner sees it; team and workspace: the whole organization. Workspace scope is set by admins and managers only',
  example: 'team',
});

const fieldName = (description: string, example: string) =>
  z.string().trim().min(1, 'is required').max(64, 'must be at most 64 characters').openapi({ description, example });

const filters = jsonObject({ maxKeyLength: 50, maxChars: 20_000 }).openapi({
  description:
    "The module's list filters (leads: LeadFilters; deals: search_value, start_date, end_date, lead_id, pipeline_id, status, outcome; companies: CompanyFilters; contacts: ContactFilters; meetings: search_value, start_date, end_date, lead_id, contact_id, company_id, user_id, status, from, to). Unknown keys are refused",
  example: { state_id: '1,2' },
});

const numericFields =
  'The numeric field of sum and avg (leads: score, estimated_value; deals: value; contacts: lead_score; meetings: duration_minutes)';

export const QueryDefinition = z
  .object({
    module: z.enum(QUERY_MODULES).openapi({ description: 'The records queried', example: 'leads' }),
    filters: filters.optional(),
    metric: z
      .object({
        op: z.enum(METRIC_OPS).openapi({ description: 'count rows, or sum / avg a numeric field', example: 'count' }),
        field: fieldName(numericFields, 'value').optional().openapi({ description: numericFields }),
      })
      .strict()
      .openapi({ description: 'What each row of the result measures', example: { op: 'sum', field: 'value' } }),
    group_by: fieldName(
      'A groupable column of the module (see docs/domains/saved-queries.md, the definition grammar)',
      'status',
    )
      .nullish()
      .openapi({
        description:
          'A groupable column of the module (see docs/domains/saved-queries.md, the definition grammar); null: no grouping',
      }),
    bucket: z
      .object({
        field: fieldName('A date column of the module', 'created_at'),
        unit: z.enum(BUCKET_UNITS).openapi({ description: 'Period length', example: 'month' }),
      })
      .strict()
      .nullish()
      .openapi({
        description: 'Group by period of a date column (UTC); null: no periods',
        example: { field: 'created_at', unit: 'month' },
      }),
  })
  .strict()
  .openapi('SavedQueryDefinition', {
    description:
      'A declarative aggregate: never SQL. Names come from per-module allow-lists; a bad one is a 422 naming it',
    example: { module: 'leads', filters: {}, metric: { op: 'count' }, group_by: 'status', bucket: null },
  });
export type QueryDefinitionValue = z.output<typeof QueryDefinition>;
