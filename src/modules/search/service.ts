/**
 * Global search across the organization's records. Each module contributes one section from its
 * own service; add a section here (and to schemas.ts) when a module gains searchable records
 * (contacts, companies …).
 */
import type { TenantContext } from '../../db/tenant';
import { searchLeads } from '../leads';
import { searchUsers } from '../users';

export async function globalSearch(ctx: TenantContext, term: string) {
  const [users, leads] = await Promise.all([searchUsers(ctx, term), searchLeads(ctx, term)]);
  return { users, leads };
}
