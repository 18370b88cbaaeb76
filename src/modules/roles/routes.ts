/**
 * Roles of the caller's organization. Signup seeds admin, manager and sales_rep.
 */
import { created, list } from '../../core/http';
import { conflictResponse, createRouter, defineRoute, envelope, jsonBody, listEnvelope } from '../../core/routes';
import { AddRoleBody, RoleSchema } from './schemas';
import { addRole, listRoles, RoleListQuery } from './service';

export const roleRoutes = createRouter();
const tags = ['Roles'];

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
    roles: ['admin'],
    request: { body: jsonBody(AddRoleBody) },
    responses: {
      201: envelope(RoleSchema, 'Role created'),
      409: conflictResponse(
        'RoleExistsConflict',
        'A role of the organization already has this name (error.code role_exists)',
        [{ code: 'role_exists' }],
      ),
    },
  }),
  async (c) => created(c, await addRole(c.var.tenant, c.req.valid('json')), 'Role created'),
);
