/**
 * Public voice routes, whose credential is a signature: Twilio's callbacks (X-Twilio-Signature),
 * Vapi's server messages (x-vapi-signature), and the short-lived recording links (signed token).
 * The organization is in the path only so its credentials can be found; without a valid
 * signature nothing is read or changed (403).
 */
import { z } from '@hono/zod-openapi';
import { findStoredFile, fileResponse } from '../files';
import { ok } from '../../core/http';
import { NotFound } from '../../core/errors';
import { binaryDownload, createRouter, defineRoute, envelope, ErrorEnvelope, idParam } from '../../core/routes';
import { withTenant } from '../../db/client';
import { trackingSecrets } from '../tracking';
import { RECORDING_CONTENT_TYPE } from '../../providers/voice/recording';
import { verifyRecordingToken } from './recording-link';
import { answerTwilioVoice } from './voice-answer';
import { twilioCallback, vapiCallback } from './webhooks';

export const voiceWebhookRoutes = createRouter();
const tags = ['Voice'];

const Received = z
  .object({
    handled: z.boolean().openapi({ description: 'Whether the message named one of our calls and was applied' }),
  })
  .openapi('VoiceWebhookReceipt', { description: 'What became of a provider webhook', example: { handled: true } });

const badSignature = {
  description:
    'The signature is missing or not valid, or the organization has no such connection (error.code invalid_signature): nothing changed',
  content: { 'application/json': { schema: ErrorEnvelope } },
};

const MAX_BODY = 64 * 1024;

async function rawBody(c: { req: { text(): Promise<string> } }): Promise<string> {
  // Through Hono's cached body: a middleware may have read it already.
  const text = await c.req.text();
  return text.length > MAX_BODY ? '' : text;
}

voiceWebhookRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/v1/voice/twilio/{org_id}',
    operationId: 'twilioVoiceCallback',
    tags,
    summary: 'Twilio’s call status and recording callbacks (signed)',
    description:
      'Where Twilio posts a call’s status changes (`StatusCallback`: CallSid, CallStatus, CallDuration) and its recording (`RecordingStatusCallback`: RecordingSid, RecordingUrl, RecordingStatus), form-encoded. `X-Twilio-Signature` must be the base64 HMAC-SHA1, under the account’s auth token, of this URL (as configured: the connection’s origin) followed by the sorted parameters; unsigned, badly signed, or for an organization without a Twilio connection: 403, nothing changed. Set it as the Status Callback of the organization’s numbers and of the TwiML App: a CallSid we did not place is recorded as a call once (a browser call, `From` `client:user_<org>_<user>`: outbound for that user; a call to one of the organization’s numbers, `Direction` inbound: for the number’s first assigned user), with the lead or contact whose phone is the other side’s number in E.164, and charged per started minute when it completes; a child leg (`ParentCallSid`) or a call to a number not the organization’s is not recorded (`handled: false`). Statuses only move forward and a call is charged once, so a replay changes nothing; a completed recording is copied into storage once.',
    auth: 'public',
    unknownQuery: 'ignore',
    request: { params: idParam('org_id') },
    responses: { 200: envelope(Received), 403: badSignature },
  }),
  async (c) => {
    const { org_id } = c.req.valid('param');
    const body = await rawBody(c);
    const result = await twilioCallback(
      c.var.database(),
      c.env,
      org_id,
      c.req.url,
      c.req.header('x-twilio-signature'),
      body,
    );
    return ok(c, result);
  },
);

const TWIML_EXAMPLE =
  '<?xml version="1.0" encoding="UTF-8"?><Response><Dial callerId="+14155550100" answerOnBridge="true"><Number statusCallback="https://api.example.com/api/v1/voice/twilio/1" statusCallbackMethod="POST" statusCallbackEvent="initiated ringing answered completed">+14155550142</Number></Dial></Response>';

voiceWebhookRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/v1/voice/twilio/{org_id}/voice',
    operationId: 'twilioVoiceUrl',
    tags,
    summary: 'Twilio’s Voice URL: the TwiML for browser calls and calls to our numbers (signed)',
    description:
      'Set it as the Voice URL (*A call comes in*, POST) of the organization’s TwiML App and numbers (numbers bought through the API get it). Twilio posts the call form-encoded, signed like the status callback (`X-Twilio-Signature` over this URL and the sorted parameters; unsigned, badly signed, or for an organization without a Twilio connection, the local simulator included: 403, nothing read or written). The answer is TwiML (`text/xml`). A browser call (`From` `client:user_<org>_<user>`, the voice token’s identity; `To` the number passed to `device.connect`): `<Dial callerId answerOnBridge="true"><Number>` the `To` in E.164, from the user’s own active number, else the organization’s first active one, with the status callback on the leg. A call to one of the organization’s numbers (`To`): `<Dial>` a `<Client>` for each user assigned to the number (same identity format), ringing together. A call that cannot go through still answers 200 with TwiML, `<Say>` why and `<Hangup/>` (Twilio plays its own error for a 4xx or 5xx): a `To` not a valid E.164 number (with its `+`), a caller not a user of the organization, no active number to call from or only a suspended one, an empty calling wallet, a number not ours or suspended, or a number with no assigned user (no voicemail). Nothing is written here: the status callbacks record the call.',
    auth: 'public',
    unknownQuery: 'ignore',
    request: { params: idParam('org_id') },
    responses: {
      200: {
        description: 'TwiML for Twilio: a `<Dial>`, or a `<Say>` of why the call cannot go through and `<Hangup/>`',
        content: {
          'text/xml': {
            schema: z.string().openapi({ description: 'A TwiML document', example: TWIML_EXAMPLE }),
            example: TWIML_EXAMPLE,
          },
        },
      },
      403: badSignature,
    },
  }),
  async (c) => {
    const { org_id } = c.req.valid('param');
    const body = await rawBody(c);
    const twiml = await answerTwilioVoice(
      c.var.database(),
      c.env,
      org_id,
      c.req.url,
      c.req.header('x-twilio-signature'),
      body,
    );
    return c.body(twiml, 200, { 'content-type': 'text/xml; charset=utf-8' });
  },
);

voiceWebhookRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/v1/voice/vapi/{org_id}',
    operationId: 'vapiServerMessage',
    tags,
    summary: 'Vapi’s server messages: the end-of-call report (signed)',
    description:
      'Vapi’s server URL. `x-vapi-signature` must be the hex HMAC-SHA256 of the raw body under the server credential’s secret (403 otherwise, nothing changed). An `end-of-call-report` ends its call (status from `endedReason`, `durationSeconds`, the transcript from `artifact.messages`), charges it once, and queues the copy of `artifact.recordingUrl`; other messages are acknowledged and ignored.',
    auth: 'public',
    unknownQuery: 'ignore',
    request: { params: idParam('org_id') },
    responses: { 200: envelope(Received), 403: badSignature },
  }),
  async (c) => {
    const { org_id } = c.req.valid('param');
    const body = await rawBody(c);
    return ok(c, await vapiCallback(c.var.database(), c.env, org_id, c.req.header('x-vapi-signature'), body));
  },
);

const TokenParam = z.object({
  token: z
    .string()
    .max(512)
    .openapi({ param: { name: 'token', in: 'path' }, description: 'The signed token of a recording link' }),
});

voiceWebhookRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/v1/call/recording/{token}',
    operationId: 'downloadCallRecording',
    tags,
    summary: 'Download a call’s recording through its short-lived link',
    description:
      'The WAV recording named by a link from GET /api/call/{id}/recording, while the link is valid (15 minutes). An expired, altered or unknown link: 404.',
    auth: 'public',
    unknownQuery: 'ignore',
    request: { params: TokenParam },
    responses: { 200: binaryDownload('The recording', ['audio/wav']) },
  }),
  async (c) => {
    const claims = await verifyRecordingToken(trackingSecrets(c.env), c.req.valid('param').token);
    if (!claims) throw new NotFound('Recording');
    const file = await withTenant(c.var.database(), claims.orgId, (tx) =>
      findStoredFile({ db: tx, orgId: claims.orgId }, claims.fileId),
    );
    // Served as the audio it was stored as (recordings stored before WAV was enforced included), never as another type.
    return fileResponse(c.env.FILES, { ...file, contentType: RECORDING_CONTENT_TYPE }, 'inline');
  },
);
