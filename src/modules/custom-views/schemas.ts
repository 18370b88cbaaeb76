import { z } from '@hono/zod-openapi';
import { jsonObject, timestamp } from '../../core/schemas';

export const VISIBILITIES = ['private', 'team', 'public'] as const;

const moduleName = z
  .string()
  .trim()
  .toLowerCase()
  .min(1, 'is required')
  .max(50, 'must be at most 50 characters')
  .openapi({ description: 'The list the view belongs to (lead)', example: 'lead' });

const visibility = z
  .enum(VISIBILITIES)
  .openapi({ description: 'private: only its creator; team and public: everyone in the organization' });

/**
 * Checked against the module's own list filters by the service (unknown keys are refused); the
 * one module with views today is `lead`, whose filters are the LeadFilters of the list and bulk actions.
 */
const filters = jsonObject({ maxKeyLength: 50, maxChars: 20_000 }).openapi({
  description: "The module's list filters: for module_name `lead`, LeadFilters (unknown keys are refused)",
  allOf: [{ $ref: '#/components/schemas/LeadFilters' }],
  example: { state_id: '1,2', assigned_to: 'true' },
});

const columns = z
  .array(z.string().trim().min(1).max(100, 'must be at most 100 characters'))
  .max(100, 'at most 100 columns')
  .openapi({
    description: 'Columns to show, in order: field names of the module’s records (422 for an unknown one); at most 100',
    example: ['first_name', 'email', 'status_text'],
  });

const sorting = z
  .object({
    order_by: z
      .string()
      .trim()
      .max(50)
      .openapi({ description: 'One of the module list’s order_by values (422 otherwise)' }),
    order_in: z
      .enum(['ASC', 'DESC', 'asc', 'desc'])
      .optional()
      .openapi({ description: 'Direction; stored upper-cased, DESC when omitted' }),
  })
  .strict()
  .openapi({
    description: 'The list’s sort order',
    example: { order_by: 'created_at', order_in: 'DESC' },
  });

const viewName = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(100, 'must be at most 100 characters')
  .nullish()
  .openapi({ description: 'Display name, 1 to 100 characters; null: unnamed' });

export const AddViewBody = z
  .object({
    module_name: moduleName,
    visibility,
    view_name: viewName,
    filters: filters.optional(),
    columns: columns.optional(),
    sorting: sorting.optional(),
  })
  .openapi('AddCustomViewRequest', {
    description: 'A view to save',
    example: {
      module_name: 'lead',
      visibility: 'team',
      view_name: 'Hot leads',
      filters: { state_id: '3' },
      columns: ['first_name', 'email', 'status_text'],
      sorting: { order_by: 'created_at', order_in: 'DESC' },
    },
  });

export const UpdateViewBody = z
  .object({
    module_name: moduleName.optional(),
    visibility: visibility.optional(),
    view_name: viewName,
    filters: filters.optional(),
    columns: columns.optional(),
    sorting: sorting.nullish().openapi({ description: 'The list’s sort order; null clears it' }),
  })
  .openapi('UpdateCustomViewRequest', {
    description: 'The view fields to change; omitted fields keep their value, filters and columns are replaced whole',
    example: { view_name: 'Hot leads (EMEA)', visibility: 'private' },
  });

/** Filters of the list beyond the standard list parameters (the list itself: service.ts). */
export const viewListFilters = {
  module_name: moduleName.optional(),
};

export const ViewSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The view’s id' }),
    module_name: z.string().openapi({ description: 'The list the view belongs to (lead)' }),
    view_name: z.string().nullable().openapi({ description: 'Display name; null: unnamed' }),
    visibility: z
      .enum(VISIBILITIES)
      .openapi({ description: 'private: only its creator; team and public: everyone in the organization' }),
    filters: z
      .record(z.string(), z.unknown())
      .openapi({ description: 'The saved list filters, as given (for lead: LeadFilters); {} when none' }),
    columns: z.array(z.string()).openapi({ description: 'Columns to show, in order; [] when none' }),
    sorting: z
      .record(z.string(), z.unknown())
      .openapi({ description: 'The sort order: {order_by, order_in} (order_in upper-cased), or {} when none' }),
    user_id: z.number().int().openapi({ description: 'Creator' }),
    created_at: timestamp('When the view was created'),
    updated_at: timestamp('When the view last changed'),
  })
  .openapi('CustomView', {
    description: 'A saved list view',
    example: {
      id: 4,
      module_name: 'lead',
      view_name: 'Hot leads',
      visibility: 'team',
      filters: { state_id: '3' },
      columns: ['first_name', 'email', 'status_text'],
      sorting: { order_by: 'created_at', order_in: 'DESC' },
      user_id: 1,
      created_at: '2026-01-15T09:30:00.000Z',
      updated_at: '2026-01-15T09:30:00.000Z',
    },
  });

export type AddViewInput = z.infer<typeof AddViewBody>;
export type UpdateViewInput = z.infer<typeof UpdateViewBody>;
