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
    description:
      'Saved list views the caller can see: its own private views and every team or public view of the organization, filtered by `module_name`.',
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
    description:
      "Saves a list view for a module: its filters (checked against that module's list filters, 422 naming the bad filter), columns and sorting. Private views exist only for their creator; team and public views are visible to the whole organization.",
    auth: 'bearer',
    // One insert: no transaction.
    transaction: false,
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
    description:
      'Changes a saved view; only the fields sent change and filters are checked as on add. A private view of someone else is a 404; a shared view can be changed only by its creator or an admin (403 `not_view_owner`).',
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
    description:
      'Deletes a saved view. A private view of someone else is a 404; a shared view can be deleted only by its creator or an admin (403 `not_view_owner`).',
    auth: 'bearer',
    // One delete that stands alone (a refused one only reads after it): no BEGIN/COMMIT.
    transaction: false,
    request: { params: idParam() },
    responses: { 200: envelope(DeletedId, 'View deleted') },
  }),
  async (c) => {
    const { id } = c.req.valid('param');
    await deleteView(c.var.tenant, id);
    return ok(c, { id }, 'View deleted');
  },
);
