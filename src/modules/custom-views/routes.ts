/**
 * Saved views (spec "Lookups and saved views"): named filter/column/sort sets for a list,
 * private to their creator or shared with the organization.
 */
import { created, list, ok } from '../../core/http';
import { DeletedId } from '../../core/schemas';
import { createRouter, defineRoute, envelope, idParam, jsonBody, listEnvelope } from '../../core/routes';
import { AddViewBody, UpdateViewBody, ViewSchema } from './schemas';
import { addView, deleteView, listViews, updateView, ViewListQuery } from './service';

export const customViewRoutes = createRouter();
const tags = ['Saved views'];

customViewRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/custom-view/list',
    operationId: 'listCustomViews',
    tags,
    summary: 'Your private views and the organization’s team and public views',
    auth: 'bearer',
    request: { query: ViewListQuery },
    responses: { 200: listEnvelope(ViewSchema) },
  }),
  async (c) => list(c, await listViews(c.var.tenant, c.req.valid('query'))),
);

customViewRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/custom-view/add',
    operationId: 'addCustomView',
    tags,
    summary: 'Save a view; filters are checked against the module’s list filters',
    auth: 'bearer',
    request: { body: jsonBody(AddViewBody) },
    responses: { 201: envelope(ViewSchema, 'View created') },
  }),
  async (c) => created(c, await addView(c.var.tenant, c.req.valid('json')), 'View created'),
);

customViewRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/custom-view/update/{id}',
    operationId: 'updateCustomView',
    tags,
    summary: 'Change a view (its creator, or an admin for shared views)',
    auth: 'bearer',
    request: { params: idParam(), body: jsonBody(UpdateViewBody) },
    responses: { 200: envelope(ViewSchema, 'View updated') },
  }),
  async (c) => ok(c, await updateView(c.var.tenant, c.req.valid('param').id, c.req.valid('json')), 'View updated'),
);

customViewRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/api/custom-view/delete/{id}',
    operationId: 'deleteCustomView',
    tags,
    summary: 'Delete a view (its creator, or an admin for shared views)',
    auth: 'bearer',
    request: { params: idParam() },
    responses: { 200: envelope(DeletedId, 'View deleted') },
  }),
  async (c) => {
    const { id } = c.req.valid('param');
    await deleteView(c.var.tenant, id);
    return ok(c, { id }, 'View deleted');
  },
);
