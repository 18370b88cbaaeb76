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
    description:
      "Creates an API key for server-to-server calls (sent as the `x-api-key` header). The plaintext key is in this response only: the server keeps only its hash, so store it now. A retry with the same `Idempotency-Key` within 24 hours gets this response again (stored sealed under the server's credentials key); on a server without one, or once that key was rotated away, the retry creates nothing and answers 409 `idempotency_replay_unavailable`.",
    auth: 'bearer',
    roles: ['admin'],
    sealedReplay: true,
    // One insert: no transaction.
    transaction: false,
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
    description: "The organization's active (not revoked) API keys: name, prefix and dates; never the key itself.",
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
    description:
      'Revokes an API key: requests with it answer 403 `invalid_api_key`, at once on the isolate that revoked it and within 60 seconds everywhere (isolates cache a verified key that long). A key already revoked, or of another organization, is a 404.',
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
