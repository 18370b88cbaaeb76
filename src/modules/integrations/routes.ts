/**
 * Integrations (spec "Integrations"): the connected apps list, the CRM's properties, CRM imports
 * and their status; connecting and disconnecting CRM, team-chat and enrichment accounts (admin only) is beyond
 * the spec. The team-chat channel and notification routes belong to the chat adapters.
 */
import { z } from '@hono/zod-openapi';
import { accepted, created, list, ok, wholeList } from '../../core/http';
import { DeletedId } from '../../core/schemas';
import {
  conflictResponse,
  createRouter,
  defineRoute,
  envelope,
  ErrorEnvelope,
  idParam,
  jsonBody,
  listEnvelope,
} from '../../core/routes';
import { requestWriter } from '../../providers/connections';
import { connectApp, connectedAppList, disconnectApp, listConnectedApps } from './connected-apps';
import { startCrmImport, crmImportStatus } from './crm-import';
import { crmProperties } from './crm-properties';
import {
  ConnectBody,
  ConnectedAppSchema,
  CrmImportBody,
  CrmImportJobSchema,
  CrmImportStatusSchema,
  CrmPropertiesQuery,
  CrmPropertySchema,
} from './schemas';

export const integrationRoutes = createRouter();
const tags = ['Integrations'];

const connectionDetails = z.object({
  connection_id: z.number().int().openapi({ description: 'The CRM connection' }),
  provider: z.string().openapi({ description: 'Its provider' }),
});

const crmConflict = conflictResponse(
  'CrmConnectionConflict',
  'No CRM can be used: none is connected (crm_not_connected), or it needs to be reconnected (connection_needs_reconnect) or is disabled (connection_disabled)',
  [
    { code: 'crm_not_connected' },
    {
      code: 'connection_needs_reconnect',
      details: connectionDetails,
      example: { connection_id: 3, provider: 'hubspot' },
    },
    { code: 'connection_disabled', details: connectionDetails, example: { connection_id: 3, provider: 'hubspot' } },
  ],
);

const unavailable = {
  description:
    'The provider is unavailable or rate limiting (error.code provider_unavailable: retry after Retry-After seconds), or the server cannot seal credentials (credentials_key_missing)',
  headers: {
    'Retry-After': { description: 'Seconds to wait (provider_unavailable only)', schema: { type: 'integer' as const } },
  },
  content: { 'application/json': { schema: ErrorEnvelope } },
};

integrationRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/connected-apps/list',
    operationId: 'listConnectedApps',
    tags,
    summary: 'The organization’s connected apps, of every kind (never a credential)',
    description:
      'Every live connection of the organization: mail accounts, CRM and team-chat accounts (and later kinds), each with its kind, provider, account identity, state (`active`, `needs_reconnect`, `disabled`), last success, last error and scopes. Standard list parameters; filters `kind`, `provider`, `state`; `search_value` on the identity. Disconnected ones are not listed. Credentials are never returned.',
    auth: 'bearer',
    request: { query: connectedAppList.query },
    responses: { 200: listEnvelope(ConnectedAppSchema) },
  }),
  async (c) => list(c, await listConnectedApps(c.var.tenant, c.req.valid('query'))),
);

integrationRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/connected-apps/connect',
    operationId: 'connectApp',
    tags,
    summary: 'Connect a CRM, team-chat or enrichment account (admin; beyond the spec)',
    description: `Connects a CRM (\`kind: crm\`: \`hubspot\`, or \`local\` for the offline data set), a team-chat account (\`kind: chat\`: \`chat_a\` Slack bot token, \`chat_b\` Microsoft Graph token, or \`local\`), or the organization's lead-enrichment provider (\`kind: enrichment\`: \`apollo\` with its API key as \`access_token\`, or \`local\`; connecting one disconnects the other, so lead enrichment uses the one connected last, and local when none is). The token is checked with one call first (HubSpot \`GET /account-info/2026-03/details\`, Slack \`auth.test\`, Graph \`/me\`, Apollo \`GET /v1/auth/health\`): a refused one is a 422 naming \`access_token\`, an unknown provider for the kind a 422 naming \`provider\`. The account the provider names becomes the connection's identity; connecting it again reconnects the same connection (active again, the new token). The token is sealed (AES-GCM under CREDENTIALS_KEY) and never returned; a server without that key answers 503 \`credentials_key_missing\` for every provider but local. Beyond the spec.`,
    auth: 'bearer',
    roles: ['admin'],
    request: { body: jsonBody(ConnectBody) },
    responses: { 201: envelope(ConnectedAppSchema, 'Connected'), 503: unavailable },
  }),
  async (c) => {
    const { app, reconnected } = await connectApp(c.var.tenant, c.env, c.req.valid('json'));
    return created(c, app, reconnected ? 'Reconnected' : 'Connected');
  },
);

integrationRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/api/connected-apps/disconnect/{id}',
    operationId: 'disconnectApp',
    tags,
    summary: 'Disconnect a CRM or team-chat account (admin; beyond the spec)',
    description:
      'Erases the connection’s credentials at once and takes it off the list; what was imported or posted through it keeps its source. Imports still running through it fail at their next page. A mail account is disconnected with DELETE /api/mail-configurations/delete/{id} (422 here). Another organization’s connection is a 404. Beyond the spec.',
    auth: 'bearer',
    roles: ['admin'],
    request: { params: idParam() },
    responses: { 200: envelope(DeletedId, 'Disconnected') },
  }),
  async (c) => {
    const { id } = c.req.valid('param');
    await disconnectApp(c.var.tenant, id);
    return ok(c, { id }, 'Disconnected');
  },
);

integrationRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/connected-apps/crm/properties',
    operationId: 'listCrmProperties',
    tags,
    summary: 'The connected CRM’s contact and company properties',
    description:
      'The properties of the CRM’s contacts (mapped to leads) and companies, read from the CRM (HubSpot `GET /crm/properties/2026-03/{contacts|companies}`). `all=0` (default): the commonly mapped ones, each with the field it usually maps to; `all=1`: every property with its label and type. The whole list in one page. Uses the organization’s most recently connected active CRM, or `connection_id`; none is a 409 `crm_not_connected`.',
    auth: 'bearer',
    request: { query: CrmPropertiesQuery },
    responses: { 200: listEnvelope(CrmPropertySchema), 409: crmConflict, 503: unavailable },
  }),
  async (c) => {
    const query = c.req.valid('query');
    const rows = await crmProperties(c.var.tenant, c.env, requestWriter(c.env), query.all === '1', query.connection_id);
    return list(c, wholeList(rows));
  },
);

integrationRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/connected-apps/crm/import',
    operationId: 'startCrmImport',
    tags,
    summary: 'Import contacts and companies from the connected CRM (answered 202 with the job)',
    description: `Queues an import from the connected CRM and answers 202 with the job; follow it at /api/connected-apps/crm/import/{id}/status. \`mapping.lead\` maps CRM contact properties to lead fields (the fields POST /api/lead/add takes, \`full_name\`, \`custom_fields.<key>\`; first_name and last_name, or full_name, must be filled), \`mapping.company\` CRM company properties to company fields (company_name must be filled). Both are checked against the CRM's properties and our fields before anything is queued: every bad entry is a 422 detail naming it (\`mapping.lead.<property>\`). \`from\`/\`to\` keep only records the CRM changed in that window; \`limit\` reads at most that many records of each object type.

Companies are imported first, then contacts as leads, through the same rules as every import: each record is validated as on add (a bad one becomes an error with its CRM record id, the rest import); leads are deduplicated by email and profile URL, companies by domain and name, duplicates merged into one. Every lead and company keeps the CRM record id it came from, so running the import again updates them and creates nothing twice.`,
    auth: 'bearer',
    request: { body: jsonBody(CrmImportBody) },
    responses: { 202: envelope(CrmImportJobSchema, 'CRM import queued'), 409: crmConflict, 503: unavailable },
  }),
  async (c) => accepted(c, await startCrmImport(c.var.tenant, c.env, c.req.valid('json')), 'CRM import queued'),
);

integrationRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/connected-apps/crm/import/{id}/status',
    operationId: 'crmImportStatus',
    tags,
    summary: 'A CRM import’s status, counts, progress and first errors',
    description:
      'Status (queued, running, completed, failed, cancelled), phase (companies, contacts, done), counts (created, updated, skipped, failed), records read and the total when the CRM gives one, progress in percent, and the first 50 errors, each with the CRM record id and the field at fault. Another organization’s import is a 404.',
    auth: 'bearer',
    request: { params: idParam() },
    responses: { 200: envelope(CrmImportStatusSchema) },
  }),
  async (c) => ok(c, await crmImportStatus(c.var.tenant, c.req.valid('param').id)),
);
