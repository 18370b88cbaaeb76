import { z } from '@hono/zod-openapi';
import { idList, optionalText, text, timestamp } from '../../core/schemas';

export const RoleSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string().nullable(),
    state_id: z.number().int(),
    created_at: timestamp(),
  })
  .openapi('Role');
/** Filters of the list beyond the standard list parameters (the list itself: service.ts). */
export const roleListFilters = { state_id: idList('States, comma-separated (1 active, 0 inactive)') };
export const AddRoleBody = z.object({ name: text(2, 50), description: optionalText(500) }).openapi('AddRoleRequest');
