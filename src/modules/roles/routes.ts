/**
 * Roles of the caller's organization. Signup seeds admin, manager and sales_rep.
 */
import { z } from '@hono/zod-openapi';
import { count, ilike, inArray } from 'drizzle-orm';
import { roles } from '../../db/schema';
import { isUniqueViolation } from '../../db/errors';
import { isAdmin, tenantWhere, type TenantContext } from '../../db/tenant';
import { Conflict, Forbidden } from '../../core/errors';
import { created, list } from '../../core/http';
import { dateRange, listPage, listQuery, type ListParams } from '../../core/list';
import { createRouter, defineRoute, envelope, jsonBody, listEnvelope } from '../../core/routes';
import { idList, isoTimestamp, optionalText, text } from '../../core/schemas';

export const roleRoutes = createRouter();
const tags = ['Roles'];

const RoleSchema = z
  .object({ id: z.number().int(), name: z.string(), description: z.string().nullable(), state_id: z.number().int(), created_at: z.string() })
  .openapi('Role');
const RoleListQuery = listQuery(['id', 'name', 'created_at'] as const, { state_id: idList('States, comma-separated (1 active, 0 inactive)') });
const AddRoleBody = z.object({ name: text(2, 50), description: optionalText(500) }).openapi('AddRoleRequest');

const roleFields = { id: roles.id, name: roles.name, description: roles.description, stateId: roles.stateId, createdAt: roles.createdAt };
type RoleRow = { id: number; name: string; description: string | null; stateId: number; createdAt: Date };

function presentRole(row: RoleRow) {
  return { id: row.id, name: row.name, description: row.description, state_id: row.stateId, created_at: isoTimestamp(row.createdAt) as string };
}

async function listRoles(ctx: TenantContext, params: ListParams & { state_id?: number[] }) {
  const where = tenantWhere(
    ctx,
    roles,
    params.state_id ? inArray(roles.stateId, params.state_id) : undefined,
    params.search_value ? ilike(roles.name, `%${params.search_value.replace(/[\\%_]/g, '\\$&')}%`) : undefined,
    dateRange(roles.createdAt, params),
  );
  const page = await listPage({
    params,
    sortColumns: { id: roles.id, name: roles.name, created_at: roles.createdAt },
    idColumn: roles.id,
    where,
    fetch: (q) => ctx.db.select({ ...roleFields, sortKey: q.sortKey }).from(roles).where(q.where).orderBy(...q.orderBy).limit(q.limit).offset(q.offset),
    count: async (w) => (await ctx.db.select({ n: count() }).from(roles).where(w))[0].n,
  });
  return { ...page, rows: page.rows.map(presentRole) };
}

async function addRole(ctx: TenantContext, input: z.infer<typeof AddRoleBody>) {
  if (!isAdmin(ctx)) throw new Forbidden('Only admins can add roles', 'admin_only');
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

roleRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/role/list',
    operationId: 'listRoles',
    tags,
    summary: 'Roles of the organization',
    auth: 'bearer',
    request: { query: RoleListQuery },
    responses: { 200: listEnvelope(RoleSchema) },
  }),
  async (c) => list(c, await listRoles(c.var.tenant, c.req.valid('query'))),
);

roleRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/role/add',
    operationId: 'addRole',
    tags,
    summary: 'Add a role (admins only)',
    auth: 'bearer',
    request: { body: jsonBody(AddRoleBody) },
    responses: { 201: envelope(RoleSchema, 'Role created') },
  }),
  async (c) => created(c, await addRole(c.var.tenant, c.req.valid('json')), 'Role created'),
);

