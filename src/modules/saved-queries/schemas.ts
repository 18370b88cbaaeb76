/**
 * Request and response shapes of the saved-query endpoints: the declarative definition
 * grammar (module, filters, metric, group_by, bucket), the execute parameters and the result
 * shapes per widget type.
 */
import { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import { defineFields } from '../../core/field-table';
import { isoTimestamp, jsonObject, timestamp } from '../../core/schemas';
import { savedQueries } from '../../db/schema';
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
    group_by: fieldName('A groupable column of the module (see the README grammar)', 'status')
      .nullish()
      .openapi({ description: 'A groupable column of the module (see the README grammar); null: no grouping' }),
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

const name = z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters');
const description = z.string().trim().max(500, 'must be at most 500 characters').nullish();
const iso = (value: Date) => isoTimestamp(value) as string;

/** The saved query's one field table: the bodies, the SavedQuery component, the selection and the presenter derive from it. */
export const savedQueryFields = defineFields(savedQueries, {
  id: {
    column: 'id',
    description: 'The query’s id (the path id of GET, PUT, DELETE and execute)',
    read: z.number().int(),
  },
  name: {
    column: 'name',
    description: 'Display name, 1 to 100 characters',
    read: z.string(),
    create: name.openapi({ example: 'Leads by status' }),
    update: name.optional(),
  },
  description: {
    column: 'description',
    description: 'What it shows, up to 500 characters; null clears it',
    read: z.string().nullable(),
    create: description,
    update: description,
  },
  scope: {
    column: 'scope',
    description:
      'Who sees it: personal (its owner only; the default), team or workspace (the whole organization). Workspace scope is set by admins and managers only',
    read: z.enum(SCOPES),
    create: scope.optional(),
    update: scope.optional(),
  },
  module: {
    column: 'module',
    description: 'The records queried: the definition’s module (read-only)',
    read: z.enum(QUERY_MODULES),
  },
  definition: {
    column: 'definition',
    description: 'The declarative aggregate (SavedQueryDefinition); an update replaces it whole',
    read: QueryDefinition,
    create: QueryDefinition,
    update: QueryDefinition.optional(),
  },
  user_id: {
    column: 'userId',
    description: 'The owner; null for the organization’s default queries',
    read: z.number().int().nullable(),
  },
  is_default: {
    select: sql<boolean>`${savedQueries.defaultKey} is not null`,
    description: 'One of the queries every organization starts with (read-only)',
    read: z.boolean(),
  },
  created_at: { column: 'createdAt', description: 'When it was created', read: timestamp(), present: iso },
  updated_at: { column: 'updatedAt', description: 'When it last changed', read: timestamp(), present: iso },
});

export const AddQueryBody = z.object(savedQueryFields.createShape).openapi('AddSavedQueryRequest', {
  description: 'A query to save',
  example: {
    name: 'Leads by status',
    scope: 'team',
    definition: { module: 'leads', metric: { op: 'count' }, group_by: 'status' },
  },
});

export const UpdateQueryBody = z
  .object(savedQueryFields.updateShape)
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message: 'give at least one field to change',
    path: ['name'],
  })
  .openapi('UpdateSavedQueryRequest', {
    description: 'The fields to change; the definition is replaced whole',
    example: { name: 'Leads by stage', scope: 'workspace' },
  });

export const queryListFilters = {
  module: z.enum(QUERY_MODULES).optional().openapi({ description: 'Only queries of this module' }),
  scope: z.enum(SCOPES).optional().openapi({ description: 'Only queries of this scope' }),
};

export const SavedQuerySchema = z.object(savedQueryFields.readShape).openapi('SavedQuery', {
  description: 'A saved query',
  example: {
    id: 3,
    name: 'Leads by status',
    description: 'Live leads per status',
    scope: 'workspace',
    module: 'leads',
    definition: { module: 'leads', filters: {}, metric: { op: 'count' }, group_by: 'status', bucket: null },
    user_id: null,
    is_default: true,
    created_at: '2026-01-15T09:30:00.000Z',
    updated_at: '2026-01-15T09:30:00.000Z',
  },
});

export type SavedQueryView = ReturnType<typeof savedQueryFields.present>;
export type AddQueryInput = z.output<typeof AddQueryBody>;
export type UpdateQueryInput = z.output<typeof UpdateQueryBody>;
