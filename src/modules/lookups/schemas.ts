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
  .openapi({ description: 'Display color, hex #RGB, #RRGGBB or #RRGGBBAA; null clears it', example: '#3B82F6' });

const value = z
  .number()
  .int('must be a whole number')
  .min(0, 'must not be negative')
  .max(1_000_000, 'must be at most 1000000');

export const LookupSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The lookup’s id (what a lead’s `tags` hold)' }),
    module_name: z.string().openapi({ description: 'Resource the lookup belongs to, e.g. lead' }),
    type: z.string().openapi({ description: 'Lookup type: for lead, status, source, priority or tags' }),
    name: z.string().openapi({ description: 'Display name, unique within its type' }),
    value: z.number().int().nullable().openapi({
      description:
        'Stored number, unique within its type: what a lead’s status, lead_source or priority holds; null for tags',
    }),
    color_code: z.string().nullable().openapi({ description: 'Display color (hex); null: none' }),
    parent_id: z.number().int().nullable().openapi({ description: 'Id of the parent lookup; null: top level' }),
    is_active: z.boolean().openapi({
      description: 'false: kept on the records that use it, but no longer accepted on writes',
    }),
    created_at: timestamp('When the lookup was created'),
    updated_at: timestamp('When the lookup last changed'),
  })
  .openapi('Lookup', {
    description: 'One value of a per-organization pick list',
    example: {
      id: 5,
      module_name: 'lead',
      type: 'status',
      name: 'Qualified',
      value: 3,
      color_code: '#22C55E',
      parent_id: null,
      is_active: true,
      created_at: '2026-01-15T09:30:00.000Z',
      updated_at: '2026-01-15T09:30:00.000Z',
    },
  });

/** Filters of the list beyond the standard list parameters (the list itself: service.ts). */
export const lookupListFilters = {
  module_name: slug(
    'Resource, e.g. lead. `status`, `source` and `priority` are the spec’s spelling of `lead` with that type: `module_name=status` lists what `module_name=lead&type=status` lists',
    'lead',
  ).optional(),
  type: slug('Lookup type: for lead, status, source, priority or tags', 'status').optional(),
  is_active: booleanFlag.openapi({ description: '`true`: only active lookups; `false`: only deactivated ones' }),
  parent_id: idList('Parent lookup ids, comma-separated'),
};

export const AddLookupBody = z
  .object({
    module_name: slug(
      'Resource the lookup belongs to, e.g. lead. `status`, `source` and `priority` are the spec’s spelling of `lead` with that type (`type` may then be omitted; the lookup is stored and answered as module_name lead)',
      'lead',
    ),
    type: slug(
      'For lead: status, source, priority or tags. Required unless module_name is status, source or priority',
      'status',
    ).optional(),
    name: text(1, 100).openapi({ description: 'Display name, 1 to 100 characters, unique within its type (409)' }),
    value: value
      .nullish()
      .openapi({ description: 'Stored number; for status, source and priority the next free value when omitted' }),
    color_code: colorCode,
    parent_id: positiveId.nullish().openapi({ description: 'Id of a parent lookup; omitted or null: top level' }),
  })
  .openapi('AddLookupRequest', {
    description: 'A new lookup value',
    example: { module_name: 'lead', type: 'status', name: 'Negotiation', color_code: '#F59E0B' },
  });

export const UpdateLookupBody = z
  .object({
    name: text(1, 100)
      .optional()
      .openapi({ description: 'New display name, 1 to 100 characters, unique within its type (409)' }),
    value: value.nullish().openapi({
      description:
        'Changing a lead status/source/priority value moves the leads that hold it (a status value, the contacts too)',
    }),
    color_code: colorCode,
    is_active: z
      .boolean()
      .optional()
      .openapi({ description: 'false deactivates: kept where used, refused on new writes' }),
  })
  .openapi('UpdateLookupRequest', {
    description: 'The lookup fields to change; omitted fields keep their value',
    example: { name: 'Hot', color_code: '#EF4444' },
  });

export type AddLookupInput = z.infer<typeof AddLookupBody>;
export type UpdateLookupInput = z.infer<typeof UpdateLookupBody>;
