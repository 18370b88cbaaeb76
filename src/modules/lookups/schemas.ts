import { z } from '@hono/zod-openapi';
import { booleanFlag, idList, positiveId, text, timestamp } from '../../core/schemas';

const slug = (description: string, example: string) =>
  z
    .string()
    .trim()
    .toLowerCase()
    .min(1, 'is required')
    .max(50, 'must be at most 50 characters')
    .regex(/^[a-z][a-z0-9_]*$/, 'must be lower-case letters, digits and underscores')
    .openapi({ description, example });

const colorCode = z
  .string()
  .trim()
  .max(9)
  .regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/, 'must be a hex color such as #3B82F6')
  .nullish()
  .openapi({ example: '#3B82F6' });

const value = z
  .number()
  .int('must be a whole number')
  .min(0, 'must not be negative')
  .max(1_000_000, 'must be at most 1000000');

export const LookupSchema = z
  .object({
    id: z.number().int(),
    module_name: z.string(),
    type: z.string(),
    name: z.string(),
    value: z.number().int().nullable(),
    color_code: z.string().nullable(),
    parent_id: z.number().int().nullable(),
    is_active: z.boolean(),
    created_at: timestamp(),
    updated_at: timestamp(),
  })
  .openapi('Lookup');

/** Filters of the list beyond the standard list parameters (the list itself: service.ts). */
export const lookupListFilters = {
  module_name: slug('Resource, e.g. lead', 'lead').optional(),
  type: slug('Lookup type: for lead, status, source, priority or tags', 'status').optional(),
  is_active: booleanFlag,
  parent_id: idList('Parent lookup ids, comma-separated'),
};

export const AddLookupBody = z
  .object({
    module_name: slug('Resource the lookup belongs to, e.g. lead', 'lead'),
    type: slug('For lead: status, source, priority or tags', 'status'),
    name: text(1, 100),
    value: value
      .nullish()
      .openapi({ description: 'Stored number; for status, source and priority the next free value when omitted' }),
    color_code: colorCode,
    parent_id: positiveId.nullish(),
  })
  .openapi('AddLookupRequest');

export const UpdateLookupBody = z
  .object({
    name: text(1, 100).optional(),
    value: value
      .nullish()
      .openapi({ description: 'Changing a lead status/source/priority value moves the leads that hold it' }),
    color_code: colorCode,
    is_active: z.boolean().optional(),
  })
  .openapi('UpdateLookupRequest');

export type AddLookupInput = z.infer<typeof AddLookupBody>;
export type UpdateLookupInput = z.infer<typeof UpdateLookupBody>;
