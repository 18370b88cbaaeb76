/**
 * Roles of an organization: listing, and adding (an admin route, see routes.ts). Signup seeds the defaults.
 */
import type { z } from '@hono/zod-openapi';
import { ilike, inArray } from 'drizzle-orm';
import { roles } from '../../db/schema';
import { isUniqueViolation } from '../../db/errors';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { Conflict } from '../../core/errors';
import { containsPattern, dateRange, listPage, type ListParams, pageOf, countOf } from '../../core/list';
import { isoTimestamp } from '../../core/schemas';
import type { AddRoleBody } from './schemas';

const roleFields = { id: roles.id, name: roles.name, description: roles.description, stateId: roles.stateId, createdAt: roles.createdAt };
type RoleRow = { id: number; name: string; description: string | null; stateId: number; createdAt: Date };

function presentRole(row: RoleRow) {
  return { id: row.id, name: row.name, description: row.description, state_id: row.stateId, created_at: isoTimestamp(row.createdAt) as string };
}

export async function listRoles(ctx: TenantContext, params: ListParams & { state_id?: number[] }) {
  const where = tenantWhere(
    ctx,
    roles,
    params.state_id ? inArray(roles.stateId, params.state_id) : undefined,
    params.search_value ? ilike(roles.name, containsPattern(params.search_value)) : undefined,
    dateRange(roles.createdAt, params),
  );
  const page = await listPage({
    params,
    sortColumns: { id: roles.id, name: roles.name, created_at: roles.createdAt },
    idColumn: roles.id,
    where,
    fetch: (q) => pageOf(ctx.db.select({ ...roleFields, sortKey: q.sortKey }).from(roles).$dynamic(), q),
    count: countOf(ctx.db, roles),
  });
  return { ...page, rows: page.rows.map(presentRole) };
}

export async function addRole(ctx: TenantContext, input: z.infer<typeof AddRoleBody>) {
  try {
    const [row] = await ctx.db
      .insert(roles)
      .values({ organizationId: ctx.orgId, name: input.name, description: input.description ?? null })
      .returning(roleFields);
    return presentRole(row);
  } catch (error) {
    if (isUniqueViolation(error, 'roles_organization_name_key')) throw new Conflict('A role with this name already exists', 'role_exists');
    throw error;
  }
}

