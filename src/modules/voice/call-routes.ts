/**
 * Call routes (spec "Voice and calling"): the browser's calling token, AI agent calls, the call
 * list, one call, its recording link and its transcript. Another organization's call, lead or
 * contact is a 404.
 */
import { accepted, handleMethodNotAllowed, list, ok } from '../../core/http';
import { createRouter, defineRoute, envelope, ErrorEnvelope, idParam, jsonBody, listEnvelope } from '../../core/routes';
import { findStoredFile } from '../files';
import { trackingSecrets } from '../tracking';
import { voiceToken } from './account';
import { initiateAgentCall } from './agent-calls';
import { callList, callTranscript, findCall, listCalls, presentCall } from './calls';
import { recordingLink } from './recording-link';
import { agentCallConflict, insufficientBalance, voiceProviderUnavailable, voiceTokenConflict } from './responses';
import { AgentCallBody, CallSchema, RecordingLinkSchema, TranscriptSchema, VoiceTokenSchema } from './schemas';
import { NotFound } from '../../core/errors';

export const callRoutes = createRouter();
const tags = ['Voice'];

callRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/call/voice-token',
    operationId: 'createVoiceToken',
    tags,
    summary: 'A calling token for the browser (@twilio/voice-sdk)',
    description:
      'A Twilio Access Token (JWT, HS256, header `cty: twilio-fpa;v=1`) for the caller: `grants.identity` names them, `grants.voice` lets the browser place calls through the connected TwiML App and receive calls. It expires within an hour; ask for a new one before then (the SDK’s `tokenWillExpire` event). Without a connected account the token has the same shape, is marked `provider: local` and is accepted by no Twilio service.',
    auth: 'bearer',
    transaction: false,
    responses: { 200: envelope(VoiceTokenSchema), 409: voiceTokenConflict, 503: voiceProviderUnavailable },
  }),
  async (c) => ok(c, await voiceToken(c.var.tenant, c.env)),
);

callRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/call/agent/initiate',
    operationId: 'initiateAgentCall',
    tags,
    summary: 'Have an AI voice agent call a lead or contact',
    description:
      '`system_prompt` and `lead_id` or `contact_id` (one, not both; 422 otherwise), optional `first_message`, `voice_id`, `language`. The lead’s or contact’s phone is normalised to E.164 (a national number is read as US); none, or not a phone number: 422 naming the id field. The wallet holds the price of the longest agent call (10 minutes at the per-minute price; 402 `insufficient_balance` when short, nothing placed) and the call answers 202 `queued`. Calls are dialled in turn at the provider’s rate (1 per second per account); a call whose turn would be more than about 24 hours away (the organization’s queue that long) is refused with 429 `call_queue_full`, `Retry-After` and `error.details.earliest_at`, nothing held or queued. When the call ends its real duration is charged (per started minute) and the hold released; its transcript and recording follow. With the local simulator the call completes within seconds.',
    auth: 'bearer',
    request: { body: jsonBody(AgentCallBody) },
    responses: {
      202: envelope(CallSchema, 'Call queued'),
      402: insufficientBalance,
      409: agentCallConflict,
      503: voiceProviderUnavailable,
    },
  }),
  async (c) => accepted(c, await initiateAgentCall(c.var.tenant, c.env, c.req.valid('json')), 'Call queued'),
);

callRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/call/list',
    operationId: 'listCalls',
    tags,
    summary: 'Calls of the organization',
    description:
      'Calls with the standard list parameters; filters `lead_id`, `contact_id`, `company_id`, `status` (comma-separated CallStatus values). `search_value` matches the numbers. The calls of a deleted lead or contact (with no live lead or contact on them) are left out, from the rows and the `total`, until the record is restored.',
    auth: 'bearer',
    request: { query: callList.query },
    responses: { 200: listEnvelope(CallSchema) },
  }),
  async (c) => list(c, await listCalls(c.var.tenant, c.req.valid('query'))),
);

// GET /api/call/voice-token would otherwise reach GET /api/call/{id} and answer 400 for its id:
// the path is served, by POST only.
callRoutes.all('/api/call/voice-token', (c) => handleMethodNotAllowed(c, ['POST']));

callRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/call/{id}',
    operationId: 'viewCall',
    tags,
    summary: 'One call',
    description:
      'One call of the organization with its status, times, duration, transcript and price. 404 while the call’s lead or contact is deleted (and no live one is on it), until the record is restored.',
    auth: 'bearer',
    request: { params: idParam() },
    responses: {
      200: envelope(CallSchema),
      405: {
        description: 'GET /api/call/voice-token: that path takes POST only (Allow: POST)',
        content: { 'application/json': { schema: ErrorEnvelope } },
      },
    },
  }),
  async (c) => ok(c, presentCall(await findCall(c.var.tenant, c.req.valid('param').id))),
);

callRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/call/{id}/recording',
    operationId: 'callRecordingLink',
    tags,
    summary: 'A short-lived link to the call’s recording',
    description:
      'A link (valid 15 minutes, no credentials needed: fit for an `<audio>` element) that downloads the call’s WAV recording, which is copied into our storage from the provider once it is ready. 404 while there is none, and while the call’s lead or contact is deleted (its recording goes with it: the link, a link issued before and the stored file’s id all answer 404 until the record is restored).',
    auth: 'bearer',
    request: { params: idParam() },
    responses: { 200: envelope(RecordingLinkSchema) },
  }),
  async (c) => {
    const tenant = c.var.tenant;
    const call = await findCall(tenant, c.req.valid('param').id);
    if (!call.recordingFileId) throw new NotFound(`Recording of call ${call.id}`);
    // The file's own rule (files/storage.ts findStoredFile): the recording of a deleted lead's or
    // contact's call is a 404 with it, as the link itself would be.
    await findStoredFile(tenant, call.recordingFileId);
    const link = await recordingLink(trackingSecrets(c.env), {
      orgId: tenant.orgId,
      callId: call.id,
      fileId: call.recordingFileId,
    });
    return ok(c, { url: link.url, expires_at: link.expiresAt.toISOString(), content_type: 'audio/wav' });
  },
);

callRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/call/{id}/transcript',
    operationId: 'callTranscript',
    tags,
    summary: 'The call’s transcript (speaker turns)',
    description:
      'The transcript as speaker turns (agent, customer, user) with seconds from the start. 404 while there is none, and while the call’s lead or contact is deleted, as the call is.',
    auth: 'bearer',
    request: { params: idParam() },
    responses: { 200: envelope(TranscriptSchema) },
  }),
  async (c) => ok(c, await callTranscript(c.var.tenant, c.req.valid('param').id)),
);
