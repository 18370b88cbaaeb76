/**
 * API key management (the spec's "application settings → API Keys", exposed as endpoints).
 */
import { created, list, ok } from '../../core/http';
import { DeletedId } from '../../core/schemas';
import { createRouter, defineRoute, envelope, idParam, jsonBody, listEnvelope } from '../../core/routes';
import { AddApiKeyBody, ApiKeySchema, CreatedApiKeySchema } from './schemas';
import { ApiKeyListQuery, createApiKey, listApiKeys, revokeApiKey } from './service';

export const apiKeyRoutes = createRouter();
const tags = ['API keys'];

apiKeyRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/api-keys/add',
    operationId: 'createApiKey',
    tags,
    summary: 'Create an API key (admins only); the plaintext key is in this response only',
    auth: 'bearer',
    roles: ['admin'],
    request: { body: jsonBody(AddApiKeyBody) },
    responses: { 201: envelope(CreatedApiKeySchema, 'API key created') },
  }),
  async (c) =>
    created(
      c,
      await createApiKey(c.var.tenant, c.req.valid('json')),
      'API key created; store it now, it is not shown again',
    ),
);

apiKeyRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/api-keys/list',
    operationId: 'listApiKeys',
    tags,
    summary: 'Active API keys (never the key itself)',
    auth: 'bearer',
    request: { query: ApiKeyListQuery },
    responses: { 200: listEnvelope(ApiKeySchema) },
  }),
  async (c) => list(c, await listApiKeys(c.var.tenant, c.req.valid('query'))),
);

apiKeyRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/api/api-keys/delete/{id}',
    operationId: 'revokeApiKey',
    tags,
    summary: 'Revoke an API key (admins only)',
    auth: 'bearer',
    roles: ['admin'],
    request: { params: idParam() },
    responses: { 200: envelope(DeletedId, 'API key revoked') },
  }),
  async (c) => {
    const { id } = c.req.valid('param');
    await revokeApiKey(c.var.tenant, id);
    return ok(c, { id }, 'API key revoked');
  },
);
