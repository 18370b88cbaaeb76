/**
 * Meeting transcripts: upload (`POST /api/meeting/{id}/transcript`), read
 * (`GET /api/meeting/{id}/transcript`), and the signed webhook meeting tools post finished
 * transcripts to, with the routes that add, list and delete an organization's endpoints (beyond
 * the spec). A meeting or endpoint of another organization is a 404.
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../../core/context';
import { runAsTenant } from '../../core/database';
import { NotFound, PayloadTooLarge } from '../../core/errors';
import { created, list, ok, wholeList } from '../../core/http';
import { DeletedId } from '../../core/schemas';
import { createRouter, defineRoute, envelope, ErrorEnvelope, idParam, jsonBody, listEnvelope } from '../../core/routes';
import { actorContext } from '../../db/tenant';
import {
  addEndpoint,
  type CheckedEndpoint,
  deleteEndpoint,
  endpointOfToken,
  endpointTokenHash,
  listEndpoints,
  organizationOfEndpoint,
  receiveDelivery,
} from './meeting-tool-webhooks';
import { parseTranscript } from './transcript-parse';
import {
  AddEndpointBody,
  DeliveryResultSchema,
  EndpointSchema,
  MAX_TRANSCRIPT_BYTES,
  NewEndpointSchema,
  TranscriptDeliveryBody,
  TranscriptSchema,
  TranscriptUploadForm,
  WebhookToolParams,
} from './transcript-schemas';
import { readTranscript, storeTranscript } from './transcripts';

export const transcriptRoutes = createRouter();
const tags = ['Meetings'];

transcriptRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/meeting/{id}/transcript',
    operationId: 'uploadMeetingTranscript',
    tags,
    summary: 'Upload a meeting’s transcript (plain text, WebVTT or SubRip)',
    description:
      'Parses the file (multipart field `file`) into speaker/time segments and stores it as the meeting’s transcript, replacing any previous one. A malformed cue timing or an empty transcript: 422 naming `file` (with the line). A meeting of another organization: 404.',
    auth: 'bearer',
    request: {
      params: idParam(),
      body: { required: true, content: { 'multipart/form-data': { schema: TranscriptUploadForm } } },
    },
    responses: {
      201: envelope(TranscriptSchema, 'Transcript stored'),
      413: {
        description: `Transcript larger than ${MAX_TRANSCRIPT_BYTES / 1024 / 1024} MB`,
        content: { 'application/json': { schema: ErrorEnvelope } },
      },
    },
  }),
  async (c) => {
    const { file, format } = c.req.valid('form');
    if (file.size > MAX_TRANSCRIPT_BYTES) {
      throw new PayloadTooLarge(`file: a transcript is at most ${MAX_TRANSCRIPT_BYTES / 1024 / 1024} MB`);
    }
    const parsed = parseTranscript(await file.text(), format);
    const id = c.req.valid('param').id;
    return created(
      c,
      await storeTranscript(c.var.tenant, c.env.FILES, id, parsed, 'upload', { lastStatement: true }),
      'Transcript stored',
    );
  },
);

transcriptRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/meeting/{id}/transcript',
    operationId: 'getMeetingTranscript',
    tags,
    summary: 'A meeting’s transcript and its segments (404 while it has none)',
    description:
      'The transcript of a meeting, uploaded or delivered by its meeting tool: the text, the speakers and the speaker/time segments. A meeting without a transcript answers 404 `not_found`, as does a meeting of another organization.',
    auth: 'bearer',
    request: { params: idParam() },
    responses: { 200: envelope(TranscriptSchema) },
  }),
  async (c) => ok(c, await readTranscript(c.var.tenant, c.env.FILES, c.req.valid('param').id)),
);

transcriptRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/meeting-tools/webhooks/add',
    operationId: 'addMeetingToolWebhook',
    tags,
    summary: 'Add a meeting tool’s transcript webhook (beyond the spec; its URL and secret are shown once)',
    description:
      'Creates a webhook endpoint for `tool` and answers its URL and signing secret, both shown whole only here (the URL’s token is kept only as a hash, the secret sealed; the list shows the URL masked). Give both to the meeting tool: it signs each delivery as Standard Webhooks do (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`).',
    auth: 'bearer',
    roles: ['admin'],
    sealedReplay: true,
    // One insert: no transaction.
    transaction: false,
    request: { body: jsonBody(AddEndpointBody) },
    responses: { 201: envelope(NewEndpointSchema, 'Webhook added') },
  }),
  async (c) => created(c, await addEndpoint(c.var.tenant, c.env, c.req.valid('json').tool), 'Webhook added'),
);

transcriptRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/meeting-tools/webhooks/list',
    operationId: 'listMeetingToolWebhooks',
    tags,
    summary: 'The organization’s meeting-tool webhooks (beyond the spec; URLs masked, no secrets)',
    description:
      'Every live meeting-tool webhook endpoint of the organization, oldest first, with its URL masked (`…/webhook/mtw_…` and the token’s last 4 characters) and without its secret: both were shown whole only when the endpoint was added. A lost URL or secret is replaced by adding a new endpoint and deleting the old one.',
    auth: 'bearer',
    responses: {
      200: listEnvelope(EndpointSchema, 'Webhooks', { whole: true, rows: 'Every live webhook endpoint, oldest first' }),
    },
  }),
  async (c) => list(c, wholeList(await listEndpoints(c.var.tenant)), 'Webhooks'),
);

transcriptRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/api/meeting-tools/webhooks/delete/{id}',
    operationId: 'deleteMeetingToolWebhook',
    tags,
    summary: 'Delete a meeting-tool webhook (beyond the spec)',
    description: 'Its URL stops answering (404) at once; transcripts it delivered stay.',
    auth: 'bearer',
    roles: ['admin'],
    request: { params: idParam() },
    responses: { 200: envelope(DeletedId, 'Webhook deleted') },
  }),
  async (c) => {
    const { id } = c.req.valid('param');
    await deleteEndpoint(c.var.tenant, id);
    return ok(c, { id }, 'Webhook deleted');
  },
);

/** Reads the raw body before validation parses it, so the signature is checked over the bytes sent. */
const keepRawBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  await c.req.text();
  await next();
};

transcriptRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/v1/meeting-tools/{tool}/webhook/{token}',
    operationId: 'receiveMeetingToolTranscript',
    tags,
    summary: 'A meeting tool delivers a finished transcript (signed; no credential)',
    description:
      'The endpoint a meeting tool posts finished transcripts to. The body is signed with the endpoint’s secret as Standard Webhooks do: headers `webhook-id` (the delivery id), `webhook-timestamp` (unix seconds) and `webhook-signature` (`v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{raw body}`). A missing or wrong signature, or a timestamp more than 5 minutes from now: 401 and nothing stored. A delivery id received before (a replay, or the tool retrying) changes nothing: 200 with `duplicate: true`. The meeting is found by `meeting_id` or its `meeting_url` (404 otherwise); the transcript is parsed as on upload (422 naming `transcript`). An unknown or deleted endpoint: 404.',
    auth: 'public',
    unknownQuery: 'ignore',
    rateLimited: true,
    beforeAuth: [keepRawBody],
    request: { params: WebhookToolParams, body: jsonBody(TranscriptDeliveryBody) },
    responses: {
      200: envelope(DeliveryResultSchema, 'Delivery received'),
      401: {
        description:
          'The signature is missing or wrong, or the timestamp is outside the 5-minute window (error.code webhook_signature_missing, webhook_signature_invalid or webhook_timestamp_out_of_window)',
        content: { 'application/json': { schema: ErrorEnvelope } },
      },
    },
  }),
  async (c) => {
    const { tool, token } = c.req.valid('param');
    const delivery = c.req.valid('json');
    const tokenHash = await endpointTokenHash(token);
    let endpoint: CheckedEndpoint | null = null;
    let result: { meeting_id: number | null; duplicate: boolean } = { meeting_id: null, duplicate: false };
    await runAsTenant<CheckedEndpoint>(
      c,
      async () => {
        result = await receiveDelivery(
          c.var.tenant,
          c.env,
          endpoint as CheckedEndpoint,
          tool,
          {
            id: c.req.header('webhook-id'),
            timestamp: c.req.header('webhook-timestamp'),
            signature: c.req.header('webhook-signature'),
          },
          await c.req.text(),
          delivery,
        );
      },
      organizationOfEndpoint(tool, tokenHash),
      endpointOfToken(tool, tokenHash),
      (checked) => {
        if (!checked) throw new NotFound('Meeting tool webhook');
        endpoint = checked;
        // Credited to nobody: the tool delivered it (created_by stays null).
        return { ...actorContext({ kind: 'public', onBehalfOf: checked.created_by ?? 0 }), userId: null };
      },
    );
    return ok(c, result, result.duplicate ? 'Delivery already received' : 'Delivery received');
  },
);
