/**
 * Saved queries (spec "Dashboards and analytics": GET /api/queries and execute; create, view,
 * update and delete are beyond the spec): declarative aggregates over leads, deals and
 * companies, run as one parameterised SQL statement and shaped for a widget.
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
import { ExecuteQueryBody, QueryResult } from './result-shapes';
import { AddQueryBody, SavedQuerySchema, UpdateQueryBody } from './schemas';
import { addQuery, deleteQuery, executeQuery, listQueries, QueryListQuery, updateQuery, viewQuery } from './service';

export const savedQueryRoutes = createRouter();
const tags = ['Saved queries'];

const visibility =
  'A personal query exists only for its owner (404 for anyone else); team and workspace queries are visible to the whole organization.';
const ownership =
  'Only the owner of a shared query or an admin changes it (403 `not_query_owner`; the default queries, owned by nobody, are changed by admins); workspace scope is given by admins and managers only (403 `workspace_scope_forbidden`).';

const queryInUse = conflictResponse(
  'SavedQueryInUseConflict',
  'Dashboards show the query and the change would break them (deleting it, or making it personal while a shared or someone else’s dashboard shows it)',
  [
    {
      code: 'query_in_use',
      details: z.object({
        dashboards: z.number().int().openapi({ description: 'How many dashboards show it', example: 2 }),
      }),
      example: { dashboards: 2 },
    },
  ],
);

savedQueryRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/queries',
    operationId: 'listSavedQueries',
    tags,
    summary: 'Saved queries you can see: yours and the organization’s shared ones',
    description: `The caller's personal queries and every team and workspace query of the organization (including the default ones every organization starts with), filtered by \`module\` and \`scope\`; \`search_value\` matches the name. ${visibility}`,
    auth: 'bearer',
    request: { query: QueryListQuery },
    responses: { 200: listEnvelope(SavedQuerySchema) },
  }),
  async (c) => list(c, await listQueries(c.var.tenant, c.req.valid('query'))),
);

savedQueryRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/queries/{id}',
    operationId: 'viewSavedQuery',
    tags,
    summary: 'One saved query',
    description: `One saved query with its definition. ${visibility}`,
    auth: 'bearer',
    request: { params: idParam() },
    responses: { 200: envelope(SavedQuerySchema, 'Saved query') },
  }),
  async (c) => ok(c, await viewQuery(c.var.tenant, c.req.valid('param').id), 'Saved query'),
);

savedQueryRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/queries',
    operationId: 'addSavedQuery',
    tags,
    summary: 'Save a query: module, filters, metric, group_by and date bucket from allow-lists',
    description: `Saves a declarative query. The definition names a module (leads, deals, companies, contacts), that module's list filters, a metric (count, or sum/avg of an allow-listed numeric field), an optional group_by column and an optional date bucket (day, week, month, quarter) of an allow-listed date column; every unknown name is a 422 naming it (e.g. \`definition.group_by\`). Scope is personal when omitted. ${ownership}`,
    auth: 'bearer',
    // One insert: no transaction.
    transaction: false,
    request: { body: jsonBody(AddQueryBody) },
    responses: { 201: envelope(SavedQuerySchema, 'Query saved') },
  }),
  async (c) => created(c, await addQuery(c.var.tenant, c.req.valid('json')), 'Query saved'),
);

savedQueryRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/api/queries/{id}',
    operationId: 'updateSavedQuery',
    tags,
    summary: 'Change a saved query (its owner, or an admin)',
    description: `Changes the fields sent; a new definition is checked as on create and replaces the old one whole. ${visibility} ${ownership}`,
    auth: 'bearer',
    request: { params: idParam(), body: jsonBody(UpdateQueryBody) },
    responses: { 200: envelope(SavedQuerySchema, 'Query updated'), 409: queryInUse },
  }),
  async (c) => ok(c, await updateQuery(c.var.tenant, c.req.valid('param').id, c.req.valid('json')), 'Query updated'),
);

savedQueryRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/api/queries/{id}',
    operationId: 'deleteSavedQuery',
    tags,
    summary: 'Delete a saved query (its owner, or an admin) that no dashboard shows',
    description: `Deletes a saved query; while a dashboard shows it the deletion is refused (409 \`query_in_use\`). ${visibility} ${ownership}`,
    auth: 'bearer',
    request: { params: idParam() },
    responses: { 200: envelope(DeletedId, 'Query deleted'), 409: queryInUse },
  }),
  async (c) => {
    const { id } = c.req.valid('param');
    await deleteQuery(c.var.tenant, id);
    return ok(c, { id }, 'Query deleted');
  },
);

savedQueryRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/queries/{queryId}/execute',
    operationId: 'executeSavedQuery',
    tags,
    summary: 'Run a saved query, shaped for a widget (number, bar, line, pie, table)',
    description: `Runs a query you can see as ONE SQL statement. \`parameters.start_date\`/\`end_date\` bound the bucketed date (or the creation date without a bucket); \`parameters.filters\` override the saved filters key by key and are checked the same way (422 \`parameters.filters.<key>\`). \`widgetType\`: number → {value} (groups and buckets ignored); bar, line, pie → {series:[{name, points:[{x, y}]}]}; table (the default) → {columns, rows}. At most 1000 result rows (\`truncated\` says when more matched). ${visibility}`,
    auth: 'bearer',
    transaction: false,
    request: { params: idParam('queryId'), body: jsonBody(ExecuteQueryBody) },
    responses: { 200: envelope(QueryResult, 'Query result') },
  }),
  async (c) =>
    ok(c, await executeQuery(c.var.tenant, c.req.valid('param').queryId, c.req.valid('json')), 'Query result'),
);
