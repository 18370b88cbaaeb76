/**
 * Outbound webhooks (beyond the spec): admins register endpoints that receive the organization's
 * events, signed per Standard Webhooks. docs/domains/webhooks.md holds the delivery rules; the
 * payload of each event is in the OpenAPI document's `webhooks` section (payloads.ts).
 */
import { accepted, created, list, ok } from '../../core/http';
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
import {
  AddWebhookBody,
  CreatedWebhookSchema,
  ReplayedDeliverySchema,
  RotatedSecretSchema,
  RotateSecretQuery,
  UpdateWebhookBody,
  WebhookAttemptSchema,
  WebhookSchema,
} from './schemas';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhookAttempts,
  listWebhooks,
  replayWebhookDelivery,
  rotateWebhookSecret,
  updateWebhook,
  WebhookAttemptListQuery,
  WebhookListQuery,
} from './service';

export const webhookRoutes = createRouter();
const tags = ['Webhooks'];
const admin = { auth: 'bearer', roles: ['admin'] } as const;
const SIGNING =
  'Each event is POSTed as JSON `{ type, timestamp, data }` with the Standard Webhooks headers `webhook-id` (the same on every retry and replay), `webhook-timestamp` and `webhook-signature` (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed by the base64-decoded part of the secret after `whsec_`).';

webhookRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/webhooks',
    operationId: 'createWebhook',
    tags,
    summary: 'Register a webhook endpoint (admins only); its secret is in this response only',
    description: `Registers an endpoint for the listed events. ${SIGNING} The secret is in this response only: it is stored encrypted and never shown again (rotate it to get a new one). The URL must be https on the standard port with a public host: the server makes the request, so private, loopback, link-local and CGNAT addresses and \`localhost\` are refused (server-side request forgery).`,
    ...admin,
    // A create retried with its Idempotency-Key answers the secret again: kept sealed meanwhile.
    sealedReplay: true,
    // One insert: no transaction.
    transaction: false,
    request: { body: jsonBody(AddWebhookBody) },
    responses: { 201: envelope(CreatedWebhookSchema, 'Webhook created') },
  }),
  async (c) =>
    created(c, await createWebhook(c.var.tenant, c.env, c.req.valid('json')), 'Webhook created; store its secret now'),
);

webhookRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/webhooks',
    operationId: 'listWebhooks',
    tags,
    summary: 'Webhook endpoints (admins only; never the secret)',
    description: "The organization's webhook endpoints, with their health; never their secrets.",
    ...admin,
    request: { query: WebhookListQuery },
    responses: { 200: listEnvelope(WebhookSchema) },
  }),
  async (c) => list(c, await listWebhooks(c.var.tenant, c.req.valid('query'))),
);

webhookRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/webhooks/{id}',
    operationId: 'getWebhook',
    tags,
    summary: 'One webhook endpoint (admins only)',
    description: 'The endpoint, its events and health. Another organization’s endpoint is a 404.',
    ...admin,
    request: { params: idParam() },
    responses: { 200: envelope(WebhookSchema, 'The webhook') },
  }),
  async (c) => ok(c, await getWebhook(c.var.tenant, c.req.valid('param').id)),
);

webhookRoutes.openapi(
  defineRoute({
    method: 'patch',
    path: '/api/webhooks/{id}',
    operationId: 'updateWebhook',
    tags,
    summary: 'Change a webhook endpoint (admins only)',
    description:
      'Changes the URL, events, description or enabled flag. Enabling an endpoint that was disabled for failing forgets its failures. Deliveries already queued go to the new URL.',
    ...admin,
    request: { params: idParam(), body: jsonBody(UpdateWebhookBody) },
    responses: { 200: envelope(WebhookSchema, 'Webhook updated') },
  }),
  async (c) =>
    ok(c, await updateWebhook(c.var.tenant, c.env, c.req.valid('param').id, c.req.valid('json')), 'Webhook updated'),
);

webhookRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/api/webhooks/{id}',
    operationId: 'deleteWebhook',
    tags,
    summary: 'Delete a webhook endpoint (admins only)',
    description: 'Deletes the endpoint with its deliveries and delivery log; queued deliveries are not sent.',
    ...admin,
    request: { params: idParam() },
    responses: { 200: envelope(DeletedId, 'Webhook deleted') },
  }),
  async (c) => {
    const { id } = c.req.valid('param');
    await deleteWebhook(c.var.tenant, id);
    return ok(c, { id }, 'Webhook deleted');
  },
);

webhookRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/webhooks/{id}/rotate-secret',
    operationId: 'rotateWebhookSecret',
    tags,
    summary: 'Replace a webhook endpoint’s secret (admins only); the new one is in this response only',
    description:
      'Generates a new signing secret and returns it once. Attempts from now on, retries included, are signed with the new secret and, for `previous_valid_hours` (default 24, at most 168), also with the replaced one: `webhook-signature` then carries two space-separated `v1,` signatures, and a Standard Webhooks verifier accepts either, so receivers can switch to the new secret without rejecting deliveries meanwhile. `previous_valid_hours=0` stops the old secret at once (a leaked secret). Only the secret just replaced is kept: rotating again drops the one before.',
    ...admin,
    // One update (atomic alone): no transaction around it.
    transaction: false,
    request: { params: idParam(), query: RotateSecretQuery },
    responses: { 200: envelope(RotatedSecretSchema, 'Secret rotated') },
  }),
  async (c) =>
    ok(
      c,
      await rotateWebhookSecret(
        c.var.tenant,
        c.env,
        c.req.valid('param').id,
        c.req.valid('query').previous_valid_hours,
      ),
      'Secret rotated; store it now',
    ),
);

webhookRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/webhooks/{id}/attempts',
    operationId: 'listWebhookAttempts',
    tags,
    summary: 'The delivery log of a webhook endpoint (admins only)',
    description:
      'Every attempt to deliver to the endpoint: when, which delivery and message id, the status code, the latency and the first 1 KB of the response body. `search_value` matches the event type. A finished delivery is kept 90 days, then deleted with its attempts.',
    ...admin,
    request: { params: idParam(), query: WebhookAttemptListQuery },
    responses: { 200: listEnvelope(WebhookAttemptSchema) },
  }),
  async (c) => list(c, await listWebhookAttempts(c.var.tenant, c.req.valid('param').id, c.req.valid('query'))),
);

webhookRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/webhooks/deliveries/{id}/replay',
    operationId: 'replayWebhookDelivery',
    tags,
    summary: 'Send one delivery again (admins only)',
    description:
      'Queues the delivery again as a new delivery with the same `webhook-id` and payload and a fresh retry schedule, whatever became of the original. A disabled endpoint is a 409 `webhook_disabled`; a delivery past its 90 days (deleted) is a 404.',
    ...admin,
    request: { params: idParam() },
    responses: {
      202: envelope(ReplayedDeliverySchema, 'Replay queued'),
      409: conflictResponse('WebhookDisabledConflict', 'The endpoint is disabled', [{ code: 'webhook_disabled' }]),
    },
  }),
  async (c) => accepted(c, await replayWebhookDelivery(c.var.tenant, c.req.valid('param').id), 'Replay queued'),
);
