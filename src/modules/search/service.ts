/**
 * Global search across the organization's records. Each module contributes one section; add
 * a section here when a module gains searchable records (leads, contacts, companies …).
 */
import { z } from '@hono/zod-openapi';
import type { TenantContext } from '../../db/tenant';
import { searchLeads } from '../leads/listing';
import { LeadSchema } from '../leads/schemas';
import { UserSchema } from '../users/schemas';
import { searchUsers } from '../users/service';

export const GlobalSearchResult = z.object({ users: z.array(UserSchema), leads: z.array(LeadSchema) }).openapi('GlobalSearchResult');

export async function globalSearch(ctx: TenantContext, term: string) {
  const [users, leads] = await Promise.all([searchUsers(ctx, term), searchLeads(ctx, term)]);
  return { users, leads };
}
