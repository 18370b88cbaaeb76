/**
 * Shapes of the global search: one section per module with searchable records.
 */
import { z } from '@hono/zod-openapi';
import { LeadSchema } from '../leads';
import { UserSchema } from '../users';

export const GlobalSearchQuery = z.object({
  search_value: z
    .string()
    .trim()
    .min(1, 'is required')
    .max(200)
    .openapi({ description: 'Text to find (1 to 200 characters; case-insensitive substring)', example: 'ada' }),
});

export const GlobalSearchResult = z
  .object({
    users: z.array(UserSchema).openapi({ description: 'Users whose name or email matches, at most 10' }),
    leads: z.array(LeadSchema).openapi({ description: 'Live leads matching as on GET /api/lead/list, at most 10' }),
  })
  .openapi('GlobalSearchResult', {
    description: 'Matches of the search, one section per record type',
    example: { users: [], leads: [] },
  });
