/**
 * Vapi, the hosted AI voice agent (https://docs.vapi.ai): `POST https://api.vapi.ai/call` with a
 * bearer private API key places an outbound phone call from a phone number imported into Vapi
 * (`phoneNumberId`) to `customer.number`, with a transient assistant carrying the system prompt
 * (`model.messages`), the first message, the voice and the transcriber's language; `server.url`
 * is where Vapi posts its `end-of-call-report`, signed with the server credential's HMAC-SHA256
 * of the raw body (hex) in `x-vapi-signature`. The report brings the transcript
 * (`artifact.messages`) and the recording (`artifact.recordingUrl`).
 *
 * Recordings: Vapi's own storage (`https://storage.vapi.ai/…`) and a custom bucket (S3, GCS) give
 * links that download without a credential; a private (HIPAA) recording is read through the API,
 * `GET https://api.vapi.ai/call/{id}/mono-recording` with the private key, which answers a 302 to
 * a short-lived signed URL (docs.vapi.ai/security-and-privacy/retrieve-call-artifacts). The key
 * is therefore sent to `api.vapi.ai` alone (https, that exact host); the redirect and every other
 * https URL are fetched without it.
 *
 * A lost answer to `POST /call` (a 5xx, no answer): Vapi documents no idempotency key for Create
 * Call, but its List Calls (`GET /call`, a JSON array of calls, filtered by `phoneNumberId` and
 * `createdAtGe`, at most `limit`) shows every call it created, each with the transient assistant
 * we sent (`assistant.metadata.call_id`, our id) and the `customer.number` dialled. `findCall`
 * looks ours up there; it answers null only when the list surely holds every call of the window
 * (fewer than `limit`) and none to that number carries our id, and says it cannot tell when a call
 * to that number carries no metadata, or two carry ours.
 */
import type { CallStatus, TranscriptTurn } from '../../db/schema';
import { expectOk, failureOf, ProviderFailure, providerFetch } from '../failures';
import { constantTimeEqual } from './twilio-signature';
import type { AgentCall, AgentPlatform, CallLookup, CallOutcome, PlacedCall } from './interface';
import { recordingMedia, type RecordingMedia } from './recording';

export const VAPI_API = 'https://api.vapi.ai';
/** The only host that is sent the private API key. */
const VAPI_API_HOST = 'api.vapi.ai';

/** An https URL, or null (anything else is never fetched). */
function httpsUrl(url: string): URL | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' && !parsed.username && !parsed.password ? parsed : null;
  } catch {
    return null;
  }
}

const isVapiApi = (url: URL) => url.hostname === VAPI_API_HOST && url.port === '';

/** A recording at a link that needs no credential (a pre-signed or public storage URL). */
async function downloadRecording(url: URL): Promise<RecordingMedia> {
  const response = await providerFetch('vapi', url.href, { headers: { accept: 'audio/wav' } });
  if (!response.ok) {
    const failure = await failureOf('vapi', response, 'recording');
    // No credential of ours was sent: a refusal is the link's (expired, private), not the account's.
    if (failure.kind === 'auth')
      throw new ProviderFailure(
        'rejected',
        'vapi',
        failure.status,
        'the recording link was refused; it was not copied',
      );
    throw failure;
  }
  return recordingMedia('vapi', response);
}

export interface VapiCredentials {
  api_key: string;
  /** The id of the caller number imported into Vapi. */
  phone_number_id: string;
  /** The HMAC secret of the server credential that signs Vapi's webhooks. */
  webhook_secret: string;
}

/** Voice when none is asked for (Vapi's own voices need no provider account). */
export const DEFAULT_VAPI_VOICE = { provider: 'vapi', voiceId: 'Elliot' } as const;

/** The calls List Calls answers at most per lookup (Vapi's default). A full page cannot tell that a call is absent. */
export const FIND_CALL_LIMIT = 100;

interface ListedCall {
  id?: unknown;
  customer?: { number?: unknown } | null;
  assistant?: { metadata?: Record<string, unknown> | null } | null;
}

const cannotTell = (why: string) =>
  new ProviderFailure('rejected', 'vapi', null, `vapi could not tell whether the call was placed (${why})`);

export function vapiAgent(credentials: VapiCredentials): AgentPlatform {
  return {
    name: 'vapi',
    async startCall(call: AgentCall): Promise<PlacedCall> {
      const body = {
        phoneNumberId: credentials.phone_number_id,
        customer: { number: call.to },
        assistant: {
          firstMessage: call.agent.first_message ?? undefined,
          model: {
            provider: 'openai',
            model: 'gpt-4o',
            messages: [{ role: 'system', content: call.agent.system_prompt }],
          },
          voice: call.agent.voice_id ? { provider: 'vapi', voiceId: call.agent.voice_id } : DEFAULT_VAPI_VOICE,
          transcriber: { provider: 'deepgram', model: 'nova-2', language: call.agent.language ?? 'en' },
          server: { url: call.serverUrl },
          metadata: { call_id: call.callId },
        },
      };
      const response = await providerFetch('vapi', `${VAPI_API}/call`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${credentials.api_key}`,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: JSON.stringify(body),
      });
      const placed = (await (await expectOk('vapi', response, 'agent call')).json()) as { id: string; status?: string };
      return { providerCallId: placed.id, status: 'queued' };
    },

    async findCall(call: CallLookup): Promise<string | null> {
      const url = new URL(`${VAPI_API}/call`);
      url.searchParams.set('phoneNumberId', credentials.phone_number_id);
      url.searchParams.set('createdAtGe', call.since.toISOString());
      url.searchParams.set('limit', String(FIND_CALL_LIMIT));
      const response = await providerFetch('vapi', url.href, {
        headers: { authorization: `Bearer ${credentials.api_key}`, accept: 'application/json' },
      });
      const listed = (await (await expectOk('vapi', response, 'call list')).json().catch(() => null)) as unknown;
      if (!Array.isArray(listed)) throw cannotTell('the call list was not a list');
      const toNumber = (listed as ListedCall[]).filter((entry) => entry?.customer?.number === call.to);
      const ours = toNumber.filter((entry) => String(entry.assistant?.metadata?.call_id) === String(call.callId));
      if (ours.length > 1) throw cannotTell('more than one call carries its id');
      if (ours.length === 1) {
        if (typeof ours[0].id !== 'string') throw cannotTell('the call has no id');
        return ours[0].id;
      }
      if (listed.length >= FIND_CALL_LIMIT) throw cannotTell('too many calls since it was dialled');
      if (toNumber.some((entry) => entry.assistant?.metadata?.call_id === undefined))
        throw cannotTell('a call to the same number carries no id');
      return null;
    },

    async fetchRecording(url: string): Promise<RecordingMedia> {
      const target = httpsUrl(url);
      if (!target) throw new ProviderFailure('rejected', 'vapi', null, 'the recording is not at an https URL');
      if (!isVapiApi(target)) return downloadRecording(target);
      // Vapi's API answers the recording, or a redirect to its signed URL, which is followed without the key.
      const response = await providerFetch('vapi', target.href, {
        headers: { authorization: `Bearer ${credentials.api_key}`, accept: 'audio/wav' },
        redirect: 'manual',
      });
      if (response.status >= 300 && response.status < 400) {
        await response.body?.cancel().catch(() => undefined);
        const location = response.headers.get('location');
        const next = location ? httpsUrl(new URL(location, target).href) : null;
        if (!next)
          throw new ProviderFailure(
            'rejected',
            'vapi',
            response.status,
            'the recording redirect is not to an https URL',
          );
        return downloadRecording(next);
      }
      return recordingMedia('vapi', await expectOk('vapi', response, 'recording'));
    },
  };
}

export async function vapiSignature(secret: string, rawBody: string): Promise<string> {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(rawBody)));
  return [...mac].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

export async function isValidVapiSignature(secret: string, signature: string | undefined, rawBody: string) {
  if (!signature || !/^[0-9a-f]{64}$/i.test(signature)) return false;
  return constantTimeEqual(await vapiSignature(secret, rawBody), signature.toLowerCase());
}

interface VapiMessage {
  role?: string;
  message?: string;
  secondsFromStart?: number;
}

export interface VapiReport {
  type: 'end-of-call-report';
  providerCallId: string;
  /**
   * Our call id, from the metadata of the transient assistant startCall sent (the report's
   * `call.assistant`, else its active `assistant`); null when it carries none. It names the call
   * whose Vapi id we never learnt (the create answer lost, the job given up on).
   */
  callId: number | null;
  outcome: CallOutcome;
}

/** Our call id in a server message's assistant metadata (as startCall set it), or null. */
function ourCallId(message: Record<string, unknown>): number | null {
  type WithMetadata = { assistant?: { metadata?: Record<string, unknown> | null } | null } | null | undefined;
  const raw =
    (message.call as WithMetadata)?.assistant?.metadata?.call_id ??
    (message as WithMetadata)?.assistant?.metadata?.call_id;
  const id = typeof raw === 'string' && /^\d{1,15}$/.test(raw) ? Number(raw) : raw;
  return typeof id === 'number' && Number.isSafeInteger(id) && id > 0 ? id : null;
}

const ENDED: Record<string, CallStatus> = {
  'customer-busy': 'busy',
  'customer-did-not-answer': 'no-answer',
  'customer-did-not-give-microphone-permission': 'failed',
  'twilio-failed-to-connect-call': 'failed',
  'manually-canceled': 'canceled',
};

/**
 * Vapi's ended reasons of a call it could not run: its errors (`assistant-error`,
 * `pipeline-error-…`, `call.start.error-…`, `call.in-progress.error-…`, `db-error`), failures
 * (`assistant-request-failed`, `…-failed`), a carrier's refusal (`vonage-rejected`) and an
 * assistant it could not find or join. With nothing said (no duration), such a call failed; after
 * a conversation it ran, and is completed (and charged) for its time.
 */
const ERROR_REASON =
  /(^|[-.])(error|failed|rejected)([-.]|$)|^assistant-(not-found|not-valid|not-provided|join-timed-out)$|^no-server-available$/;
/** Only a plain code is repeated in the call's failure reason. */
const PLAIN_REASON = /^[a-z0-9][a-z0-9.-]{0,99}$/;

/** The end-of-call report in our terms; null for any other server message (ignored). */
export function parseVapiReport(payload: unknown): VapiReport | null {
  const message = (payload as { message?: Record<string, unknown> } | null)?.message;
  if (message?.type !== 'end-of-call-report') return null;
  const call = message.call as { id?: unknown } | undefined;
  if (typeof call?.id !== 'string') return null;
  const artifact = (message.artifact ?? {}) as { messages?: VapiMessage[]; recordingUrl?: unknown };
  const turns: TranscriptTurn[] = (artifact.messages ?? [])
    .filter((entry) => (entry.role === 'bot' || entry.role === 'assistant' || entry.role === 'user') && entry.message)
    .map((entry) => ({
      speaker: entry.role === 'user' ? 'customer' : 'agent',
      text: String(entry.message),
      at_sec: Math.max(0, Math.round(Number(entry.secondsFromStart ?? 0))),
    }));
  const endedAt = typeof message.endedAt === 'string' ? new Date(message.endedAt) : new Date();
  const startedAt = typeof message.startedAt === 'string' ? new Date(message.startedAt) : null;
  const duration = Number(
    message.durationSeconds ?? (startedAt ? (endedAt.getTime() - startedAt.getTime()) / 1000 : 0),
  );
  const recordingUrl = artifact.recordingUrl ?? message.recordingUrl;
  const durationSec = Number.isFinite(duration) ? Math.max(0, Math.round(duration)) : 0;
  const reason = typeof message.endedReason === 'string' ? message.endedReason : '';
  const status = ENDED[reason] ?? (durationSec === 0 && ERROR_REASON.test(reason) ? 'failed' : 'completed');
  return {
    type: 'end-of-call-report',
    providerCallId: call.id,
    callId: ourCallId(message),
    outcome: {
      status,
      ...(status === 'failed'
        ? { failureReason: `Vapi ended the call: ${PLAIN_REASON.test(reason) ? reason : 'an error'}` }
        : {}),
      durationSec,
      answeredAt: startedAt && !Number.isNaN(startedAt.getTime()) ? startedAt : null,
      endedAt: Number.isNaN(endedAt.getTime()) ? new Date() : endedAt,
      transcript: turns.length > 0 ? turns : null,
      recordingUrl: typeof recordingUrl === 'string' && /^https:\/\//.test(recordingUrl) ? recordingUrl : null,
    },
  };
}
