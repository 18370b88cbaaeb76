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
    description:
      "Roles of the caller's organization: the built-in admin, manager and sales_rep roles (created at signup), and any added ones.",
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
    description:
      'Adds a role to the organization. Role names are unique per organization (409 `role_exists`). Access rules name the built-in roles (admin, manager, sales_rep); an added role grants only what every user may do.',
    auth: 'bearer',
    roles: ['admin'],
    // One insert (atomic alone): no transaction around it.
    transaction: false,
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
