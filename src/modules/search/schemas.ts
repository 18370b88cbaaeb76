/**
 * Shapes of the global search: one section per module with searchable records.
 */
import { z } from '@hono/zod-openapi';
import { LeadSchema } from '../leads/schemas';
import { UserSchema } from '../users/schemas';

export const GlobalSearchQuery = z.object({ search_value: z.string().trim().min(1, 'is required').max(200) });

export const GlobalSearchResult = z
  .object({ users: z.array(UserSchema), leads: z.array(LeadSchema) })
  .openapi('GlobalSearchResult');
