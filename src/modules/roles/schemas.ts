import { z } from '@hono/zod-openapi';
import { listQuery } from '../../core/list';
import { idList, optionalText, text } from '../../core/schemas';

export const RoleSchema = z
  .object({ id: z.number().int(), name: z.string(), description: z.string().nullable(), state_id: z.number().int(), created_at: z.string() })
  .openapi('Role');
export const RoleListQuery = listQuery(['id', 'name', 'created_at'] as const, { state_id: idList('States, comma-separated (1 active, 0 inactive)') });
export const AddRoleBody = z.object({ name: text(2, 50), description: optionalText(500) }).openapi('AddRoleRequest');

