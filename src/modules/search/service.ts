/**
 * Global search across the organization's records. Each module contributes one section; add
 * a section here when a module gains searchable records (leads, contacts, companies …).
 */
import { z } from '@hono/zod-openapi';
import type { TenantContext } from '../../db/tenant';
import { UserSchema } from '../users/schemas';
import { searchUsers } from '../users/service';

export const GlobalSearchResult = z.object({ users: z.array(UserSchema) }).openapi('GlobalSearchResult');

export async function globalSearch(ctx: TenantContext, term: string) {
  const [users] = await Promise.all([searchUsers(ctx, term)]);
  return { users };
}
