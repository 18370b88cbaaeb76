/**
 * Saved dashboards (spec "Dashboards and analytics"): widgets over saved queries and built-in
 * metrics, personal to their owner or shared with the organization (team, workspace).
 */
import { z } from '@hono/zod-openapi';
import { created, list, ok } from '../../core/http';
import { DeletedId } from '../../core/schemas';
import {
  conflictResponse,
  createRouter,
  defineRoute,
  envelope,
  idParam,
  jsonBody,
  listEnvelope,
} from '../../core/routes';
import { AddDashboardBody, DashboardSchema, UpdateDashboardBody } from './schemas';
import {
  addDashboard,
  DashboardListQuery,
  deleteDashboard,
  listDashboards,
  updateDashboard,
  viewDashboard,
} from './service';

export const dashboardRoutes = createRouter();
const tags = ['Dashboards'];

const visibility =
  'A personal dashboard exists only for its owner (404 for anyone else, and absent from their lists); team and workspace dashboards are visible to the whole organization.';
const ownership =
  'Only the owner of a shared dashboard or an admin changes or deletes it (403 `not_dashboard_owner`); workspace scope is given by admins and managers only (403 `workspace_scope_forbidden`).';
const widgets =
  'Each widget shows a saved query (`source.saved_query_id`: one you can see, and a shared one on a team or workspace dashboard) or a built-in metric (`source.metric`); a bad reference is a 422 naming the widget (`definition.<index>.source.saved_query_id`).';

const dashboardIdTaken = conflictResponse(
  'DashboardIdTakenConflict',
  'You can already see a dashboard with this dashboard_id: a shared one, or one of your personal ones',
  [
    {
      code: 'dashboard_id_taken',
      details: z.object({
        dashboard_id: z.string().openapi({ description: 'The key sent', example: 'sales-overview' }),
        id: z
          .number()
          .int()
          .nullable()
          .openapi({ description: 'The existing dashboard; null only when it was deleted meanwhile', example: 2 }),
      }),
      example: { dashboard_id: 'sales-overview', id: 2 },
    },
  ],
);

dashboardRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/dashboards',
    operationId: 'listDashboards',
    tags,
    summary: 'Dashboards you can see: yours and the organization’s shared ones',
    description: `The caller's personal dashboards and every team and workspace dashboard of the organization, filtered by \`scope\`; \`search_value\` matches the name. ${visibility}`,
    auth: 'bearer',
    request: { query: DashboardListQuery },
    responses: { 200: listEnvelope(DashboardSchema) },
  }),
  async (c) => list(c, await listDashboards(c.var.tenant, c.req.valid('query'))),
);

dashboardRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/dashboards',
    operationId: 'addDashboard',
    tags,
    summary: 'Save a dashboard under your stable dashboard_id',
    description: `Saves a dashboard. \`dashboard_id\` is the client's stable key (1 to 64 of a-z, 0-9, _ and -): a shared (team, workspace) dashboard's is unique among the organization's shared dashboards, a personal one's among its owner's personal dashboards and the shared ones. Reusing a key you can see is a 409 \`dashboard_id_taken\` naming that dashboard; a key a colleague uses for a personal dashboard is free for you (and never revealed). Scope is personal when omitted. ${widgets} ${ownership}`,
    auth: 'bearer',
    // Reads and one insert (a lost race for the key read again to name its holder): no transaction.
    transaction: false,
    request: { body: jsonBody(AddDashboardBody) },
    responses: { 201: envelope(DashboardSchema, 'Dashboard saved'), 409: dashboardIdTaken },
  }),
  async (c) => created(c, await addDashboard(c.var.tenant, c.req.valid('json')), 'Dashboard saved'),
);

dashboardRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/dashboards/{id}',
    operationId: 'viewDashboard',
    tags,
    summary: 'One dashboard you can see, with its widgets',
    description: `The dashboard with its definition (added beside the spec's routes, so a client opens one dashboard without paging the list). ${visibility}`,
    auth: 'bearer',
    request: { params: idParam() },
    responses: { 200: envelope(DashboardSchema, 'The dashboard') },
  }),
  async (c) => ok(c, await viewDashboard(c.var.tenant, c.req.valid('param').id)),
);

dashboardRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/api/dashboards/{id}',
    operationId: 'updateDashboard',
    tags,
    summary: 'Change a dashboard (its owner, or an admin for shared ones)',
    description: `Changes the fields sent; a new definition replaces the old one whole. Making a dashboard shared checks its widgets again; a change of scope keeps the key, and answers 409 \`dashboard_id_taken\` when the new scope already holds it. ${widgets} ${visibility} ${ownership}`,
    auth: 'bearer',
    request: { params: idParam(), body: jsonBody(UpdateDashboardBody) },
    responses: { 200: envelope(DashboardSchema, 'Dashboard updated'), 409: dashboardIdTaken },
  }),
  async (c) =>
    ok(c, await updateDashboard(c.var.tenant, c.req.valid('param').id, c.req.valid('json')), 'Dashboard updated'),
);

dashboardRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/api/dashboards/{id}',
    operationId: 'deleteDashboard',
    tags,
    summary: 'Delete a dashboard (its owner, or an admin for shared ones)',
    description: `Deletes a dashboard; the saved queries it showed stay. ${visibility} ${ownership}`,
    auth: 'bearer',
    // One delete that stands alone (a refused one only reads after it): no BEGIN/COMMIT.
    transaction: false,
    request: { params: idParam() },
    responses: { 200: envelope(DeletedId, 'Dashboard deleted') },
  }),
  async (c) => {
    const { id } = c.req.valid('param');
    await deleteDashboard(c.var.tenant, id);
    return ok(c, { id }, 'Dashboard deleted');
  },
);
