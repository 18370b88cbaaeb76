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
  .openapi({ example: ['first_name', 'email', 'status_text'] });

const sorting = z
  .object({ order_by: z.string().trim().max(50), order_in: z.enum(['ASC', 'DESC', 'asc', 'desc']).optional() })
  .strict()
  .openapi({ example: { order_by: 'created_at', order_in: 'DESC' } });

const viewName = z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters').nullish();

export const AddViewBody = z
  .object({
    module_name: moduleName,
    visibility,
    view_name: viewName,
    filters: filters.optional(),
    columns: columns.optional(),
    sorting: sorting.optional(),
  })
  .openapi('AddCustomViewRequest');

export const UpdateViewBody = z
  .object({
    module_name: moduleName.optional(),
    visibility: visibility.optional(),
    view_name: viewName,
    filters: filters.optional(),
    columns: columns.optional(),
    sorting: sorting.nullish(),
  })
  .openapi('UpdateCustomViewRequest');

/** Filters of the list beyond the standard list parameters (the list itself: service.ts). */
export const viewListFilters = {
  module_name: moduleName.optional(),
};

export const ViewSchema = z
  .object({
    id: z.number().int(),
    module_name: z.string(),
    view_name: z.string().nullable(),
    visibility: z.enum(VISIBILITIES),
    filters: z.record(z.string(), z.unknown()),
    columns: z.array(z.string()),
    sorting: z.record(z.string(), z.unknown()),
    user_id: z.number().int().openapi({ description: 'Creator' }),
    created_at: timestamp(),
    updated_at: timestamp(),
  })
  .openapi('CustomView');

export type AddViewInput = z.infer<typeof AddViewBody>;
export type UpdateViewInput = z.infer<typeof UpdateViewBody>;
