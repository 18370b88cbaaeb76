/**
 * API key management (the spec's "application settings → API Keys", exposed as endpoints).
 */
import { z } from '@hono/zod-openapi';
import { isValidIpOrCidr } from '../../core/auth/ip-allow-list';
import { created, list, ok } from '../../core/http';
import { createRouter, defineRoute, envelope, idParam, jsonBody, listEnvelope } from '../../core/routes';
import { text } from '../../core/schemas';
import { ApiKeyListQuery, createApiKey, listApiKeys, revokeApiKey } from './service';

export const apiKeyRoutes = createRouter();
const tags = ['API keys'];

const domain = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .regex(/^(\*\.)?([a-z0-9-]+\.)*[a-z0-9-]+$/, 'must be a domain such as example.com or *.example.com');

const AddApiKeyBody = z
  .object({
    name: text(1, 100),
    allowed_domains: z.array(domain).max(50).optional(),
    allowed_ips: z.array(z.string().trim().max(64).refine(isValidIpOrCidr, 'must be an IP address or CIDR range')).max(50).optional(),
    expires_at: z.iso
      .datetime({ offset: true, message: 'must be an ISO 8601 date-time' })
      .refine((value) => Date.parse(value) > Date.now(), 'must be in the future')
      .nullish(),
  })
  .openapi('AddApiKeyRequest');

const ApiKeySchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    prefix: z.string().openapi({ description: 'First characters of the key, to tell keys apart' }),
    allowed_domains: z.array(z.string()),
    allowed_ips: z.array(z.string()),
    expires_at: z.string().nullable(),
    last_used_at: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi('ApiKey');

apiKeyRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/api-keys/add',
    operationId: 'createApiKey',
    tags,
    summary: 'Create an API key (admins only); the plaintext key is in this response only',
    auth: 'bearer',
    request: { body: jsonBody(AddApiKeyBody) },
    responses: { 201: envelope(ApiKeySchema.extend({ key: z.string().openapi({ example: 'lm_live_…' }) }), 'API key created') },
  }),
  async (c) => created(c, await createApiKey(c.var.tenant, c.req.valid('json')), 'API key created; store it now, it is not shown again'),
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
    request: { params: idParam() },
    responses: { 200: envelope(z.object({ id: z.number().int() }), 'API key revoked') },
  }),
  async (c) => {
    const { id } = c.req.valid('param');
    await revokeApiKey(c.var.tenant, id);
    return ok(c, { id }, 'API key revoked');
  },
);
