/**
 * The local telephony simulator: offline and deterministic, the default under `npm start` and in
 * the tests, so every voice route works without an account. It offers the same numbers for the
 * same search (555-01xx, the range reserved for fiction, in the asked area code), "buys" any of
 * them, and "places" calls that the voice job then moves queued → ringing → in-progress →
 * completed within seconds, with a transcript built from what the call was for, a short WAV
 * recording and a price. Everything it makes is marked `provider: "local"`.
 */
import type { AgentSettings, NumberType, TranscriptTurn } from '../../db/schema';
import { ProviderFailure } from '../failures';
import type { AvailableNumber, NumberSearch, TelephonyProvider } from './interface';
import { MONTHLY_NUMBER_CENTS } from './twilio';
import { RECORDING_CONTENT_TYPE } from './recording';

const AREA_BY_TYPE: Record<NumberType, string> = { local: '415', mobile: '628', toll_free: '800' };
const LOCALITY: Record<string, [string, string]> = { '415': ['San Francisco', 'CA'], '628': ['San Francisco', 'CA'] };

function formatted(number: string): string {
  return `(${number.slice(2, 5)}) ${number.slice(5, 8)}-${number.slice(8)}`;
}

/** The numbers the simulator offers: +1 <area> 555 01xx, 100 of them per area code, in order. */
export function localNumbers(search: NumberSearch): AvailableNumber[] {
  const area = search.areaCode ?? AREA_BY_TYPE[search.type];
  const all = Array.from({ length: 100 }, (_, n) => `+1${area}55501${String(n).padStart(2, '0')}`);
  const digits = search.contains?.replace(/\D/g, '') ?? '';
  return all
    .filter((number) => number.slice(2).includes(digits))
    .slice(0, search.limit)
    .map((number) => ({
      phone_number: number,
      friendly_name: formatted(number),
      type: search.type,
      locality: LOCALITY[area]?.[0] ?? null,
      region: LOCALITY[area]?.[1] ?? null,
      iso_country: 'US',
      monthly_price_cents: MONTHLY_NUMBER_CENTS[search.type],
    }));
}

export function localTelephony(): TelephonyProvider {
  return {
    name: 'local',
    async searchNumbers(search) {
      return search.country === 'US' ? localNumbers(search) : [];
    },
    async purchaseNumber(purchase) {
      // A number the simulator never offers fails as a provider refusal would: the purchase is refunded.
      if (!/^\+1\d{3}55501\d{2}$/.test(purchase.phoneNumber)) {
        throw new ProviderFailure('rejected', 'local', 400, 'the local simulator does not offer this number');
      }
      return { providerSid: `PNlocal${purchase.phoneNumber.slice(1)}` };
    },
    async placeCall() {
      return { providerCallId: `CAlocal${crypto.randomUUID().replace(/-/g, '')}`, status: 'queued' };
    },
    async fetchRecording() {
      return { body: localRecording().buffer as ArrayBuffer, contentType: RECORDING_CONTENT_TYPE };
    },
  };
}

/** Seconds each simulated turn lasts: the transcript's length sets the call's duration. */
export const LOCAL_TURN_SECONDS = 9;

/** The simulated conversation: for an agent call, built from its first message and system prompt. */
export function localTranscript(agent: AgentSettings | null, customerName: string | null): TranscriptTurn[] {
  const who = customerName ?? 'there';
  const opening = agent?.first_message ?? `Hi ${who}, thanks for taking my call.`;
  const purpose = agent?.system_prompt.replace(/\s+/g, ' ').trim().slice(0, 160) ?? 'following up on your enquiry';
  const lines: [TranscriptTurn['speaker'], string][] = [
    ['agent', opening],
    ['customer', 'Hello, yes, I have a minute. What is this about?'],
    ['agent', `I am calling about this: ${purpose}`],
    ['customer', 'That sounds relevant. Can you send me the details by email?'],
    ['agent', 'Of course, I will send them today. Thank you for your time.'],
  ];
  return lines.map(([speaker, text], index) => ({ speaker, text, at_sec: index * LOCAL_TURN_SECONDS }));
}

/** A short recording: one second of a 440 Hz tone, 8 kHz 16-bit mono PCM in a WAV container. */
export function localRecording(seconds = 1): Uint8Array {
  const rate = 8_000;
  const samples = rate * seconds;
  const bytes = new Uint8Array(44 + samples * 2);
  const view = new DataView(bytes.buffer);
  const text = (at: number, value: string) => {
    for (let i = 0; i < value.length; i++) view.setUint8(at + i, value.charCodeAt(i));
  };
  text(0, 'RIFF');
  view.setUint32(4, 36 + samples * 2, true);
  text(8, 'WAVE');
  text(12, 'fmt ');
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, 1, true);
  view.setUint32(24, rate, true);
  view.setUint32(28, rate * 2, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  text(36, 'data');
  view.setUint32(40, samples * 2, true);
  for (let i = 0; i < samples; i++)
    view.setInt16(44 + i * 2, Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 8_000), true);
  return bytes;
}
