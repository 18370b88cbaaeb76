/**
 * Vapi, the hosted AI voice agent (https://docs.vapi.ai): `POST https://api.vapi.ai/call` with a
 * bearer private API key places an outbound phone call from a phone number imported into Vapi
 * (`phoneNumberId`) to `customer.number`, with a transient assistant carrying the system prompt
 * (`model.messages`), the first message, the voice and the transcriber's language; `server.url`
 * is where Vapi posts its `end-of-call-report`, signed with the server credential's HMAC-SHA256
 * of the raw body (hex) in `x-vapi-signature`. The report brings the transcript
 * (`artifact.messages`) and the recording (`artifact.recordingUrl`).
 */
import type { CallStatus, TranscriptTurn } from '../../db/schema';
import { expectOk, providerFetch } from '../failures';
import { constantTimeEqual } from './twilio-signature';
import type { AgentCall, AgentPlatform, CallOutcome, PlacedCall } from './interface';

export const VAPI_API = 'https://api.vapi.ai';

export interface VapiCredentials {
  api_key: string;
  /** The id of the caller number imported into Vapi. */
  phone_number_id: string;
  /** The HMAC secret of the server credential that signs Vapi's webhooks. */
  webhook_secret: string;
}

/** Voice when none is asked for (Vapi's own voices need no provider account). */
export const DEFAULT_VAPI_VOICE = { provider: 'vapi', voiceId: 'Elliot' } as const;

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
  outcome: CallOutcome;
}

const ENDED: Record<string, CallStatus> = {
  'customer-busy': 'busy',
  'customer-did-not-answer': 'no-answer',
  'customer-did-not-give-microphone-permission': 'failed',
  'twilio-failed-to-connect-call': 'failed',
};

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
  return {
    type: 'end-of-call-report',
    providerCallId: call.id,
    outcome: {
      status: ENDED[String(message.endedReason)] ?? 'completed',
      durationSec: Number.isFinite(duration) ? Math.max(0, Math.round(duration)) : 0,
      answeredAt: startedAt && !Number.isNaN(startedAt.getTime()) ? startedAt : null,
      endedAt: Number.isNaN(endedAt.getTime()) ? new Date() : endedAt,
      transcript: turns.length > 0 ? turns : null,
      recordingUrl: typeof recordingUrl === 'string' && /^https:\/\//.test(recordingUrl) ? recordingUrl : null,
    },
  };
}
