import { z } from '@hono/zod-openapi';
import { idList, optionalText, text, timestamp } from '../../core/schemas';

export const RoleSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The role’s id (a user’s role_id)' }),
    name: z
      .string()
      .openapi({ description: 'Unique within the organization; admin, manager and sales_rep are built in' }),
    description: z.string().nullable().openapi({ description: 'What the role is for; null when none was given' }),
    state_id: z.number().int().openapi({ description: '1 = active, 0 = inactive' }),
    created_at: timestamp('When the role was created'),
  })
  .openapi('Role', {
    description: 'A role of the organization',
    example: {
      id: 2,
      name: 'manager',
      description: 'Manages the team’s records',
      state_id: 1,
      created_at: '2026-01-15T09:30:00.000Z',
    },
  });
/** Filters of the list beyond the standard list parameters (the list itself: service.ts). */
export const roleListFilters = { state_id: idList('States, comma-separated (1 active, 0 inactive)') };
export const AddRoleBody = z
  .object({
    name: text(2, 50).openapi({
      description: 'Role name, 2 to 50 characters, unique in the organization (409 role_exists)',
    }),
    description: optionalText(500).openapi({ description: 'What the role is for, up to 500 characters; optional' }),
  })
  .openapi('AddRoleRequest', {
    description: 'A new role',
    example: { name: 'support', description: 'Answers customer questions' },
  });
