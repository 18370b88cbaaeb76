/**
 * Roles of an organization: listing, and adding (an admin route, see routes.ts). Signup seeds the defaults.
 */
import type { z } from '@hono/zod-openapi';
import { ilike, inArray } from 'drizzle-orm';
import { roles } from '../../db/schema';
import { isUniqueViolation } from '../../db/errors';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { Conflict } from '../../core/errors';
import { containsPattern, defineList } from '../../core/list';
import { isoTimestamp } from '../../core/schemas';
import { roleListFilters, type AddRoleBody } from './schemas';

const roleFields = {
  id: roles.id,
  name: roles.name,
  description: roles.description,
  stateId: roles.stateId,
  createdAt: roles.createdAt,
};
type RoleRow = { id: number; name: string; description: string | null; stateId: number; createdAt: Date };

function presentRole(row: RoleRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    state_id: row.stateId,
    created_at: isoTimestamp(row.createdAt) as string,
  };
}

export const roleList = defineList({
  sort: { id: roles.id, name: roles.name, created_at: roles.createdAt },
  filters: roleListFilters,
  search: (term) => ilike(roles.name, containsPattern(term)),
  createdAt: roles.createdAt,
  base: (ctx, params) => ({
    rows: (columns) =>
      ctx.db
        .select({ ...roleFields, ...columns })
        .from(roles)
        .$dynamic(),
    where: tenantWhere(ctx, roles, params.state_id ? inArray(roles.stateId, params.state_id) : undefined),
  }),
  present: (row) => presentRole(row),
});
export const RoleListQuery = roleList.query;

export const listRoles = roleList.run;

export async function addRole(ctx: TenantContext, input: z.infer<typeof AddRoleBody>) {
  try {
    const [row] = await ctx.db
      .insert(roles)
      .values({ organizationId: ctx.orgId, name: input.name, description: input.description ?? null })
      .returning(roleFields);
    return presentRole(row);
  } catch (error) {
    if (isUniqueViolation(error, 'roles_organization_name_key'))
      throw new Conflict('A role with this name already exists', 'role_exists');
    throw error;
  }
}
