/**
 * Request and response shapes of the saved-query endpoints: the bodies and the SavedQuery
 * component (from the field table, fields.ts), the list filters; the definition grammar is in
 * definition.ts.
 */
import { z } from '@hono/zod-openapi';
import { QUERY_MODULES } from './modules';
import { SCOPES } from './definition';
import { savedQueryFields } from './fields';

export { QueryDefinition, type QueryDefinitionValue, scope, SCOPES, WIDGET_TYPES } from './definition';
export { savedQueryFields } from './fields';

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
