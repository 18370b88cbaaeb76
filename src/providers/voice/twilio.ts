/**
 * Twilio's REST API (https://api.twilio.com/2010-04-01/Accounts/{AccountSid}/…) over fetch: the
 * `twilio` npm package needs Node's http and does not run on Workers. HTTP Basic auth with the
 * account SID and auth token; request bodies are form-encoded; answers are JSON (the `.json`
 * suffix). AvailablePhoneNumbers searches, IncomingPhoneNumbers buys, Calls dials, and a
 * recording's media is its Recordings URL with `.wav`.
 */
import type { CallStatus, NumberType } from '../../db/schema';
import { expectOk, providerFetch, ProviderFailure } from '../failures';
import type { AvailableNumber, NumberSearch, OutboundCall, PlacedCall, TelephonyProvider } from './interface';
import { recordingMedia } from './recording';

export const TWILIO_API = 'https://api.twilio.com/2010-04-01';

export interface TwilioCredentials {
  account_sid: string;
  auth_token: string;
  /** An API key (SK…) and its secret: they sign the browser voice token. */
  api_key_sid?: string;
  api_key_secret?: string;
  /** The TwiML App (AP…) the browser's outgoing calls run. */
  twiml_app_sid?: string;
}

const TYPE_PATH: Record<NumberType, string> = { local: 'Local', mobile: 'Mobile', toll_free: 'TollFree' };

/** The monthly rental the wallet is charged, by type (cents of USD; Twilio's US list prices, rounded up). */
export const MONTHLY_NUMBER_CENTS: Record<NumberType, number> = { local: 115, mobile: 115, toll_free: 215 };

interface TwilioAvailableNumber {
  friendly_name: string;
  phone_number: string;
  locality: string | null;
  region: string | null;
  iso_country: string;
}

interface TwilioCall {
  sid: string;
  status: CallStatus;
}

const basic = (credentials: TwilioCredentials) =>
  `Basic ${btoa(`${credentials.account_sid}:${credentials.auth_token}`)}`;

export function twilioTelephony(credentials: TwilioCredentials): TelephonyProvider {
  const account = `${TWILIO_API}/Accounts/${encodeURIComponent(credentials.account_sid)}`;
  const headers = { authorization: basic(credentials), accept: 'application/json' };
  const post = async (path: string, form: Record<string, string | string[] | undefined>, what: string) => {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(form)) {
      if (value === undefined) continue;
      for (const item of Array.isArray(value) ? value : [value]) body.append(name, item);
    }
    const response = await providerFetch('twilio', `${account}/${path}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    return (await expectOk('twilio', response, what)).json();
  };
  return {
    name: 'twilio',
    async searchNumbers(search: NumberSearch): Promise<AvailableNumber[]> {
      const query = new URLSearchParams({ PageSize: String(search.limit) });
      if (search.areaCode) query.set('AreaCode', search.areaCode);
      if (search.contains) query.set('Contains', search.contains);
      if (search.type === 'local') query.set('VoiceEnabled', 'true');
      const url = `${account}/AvailablePhoneNumbers/${encodeURIComponent(search.country)}/${TYPE_PATH[search.type]}.json?${query}`;
      const response = await expectOk('twilio', await providerFetch('twilio', url, { headers }), 'number search');
      const page = (await response.json()) as { available_phone_numbers?: TwilioAvailableNumber[] };
      return (page.available_phone_numbers ?? []).slice(0, search.limit).map((entry) => ({
        phone_number: entry.phone_number,
        friendly_name: entry.friendly_name,
        type: search.type,
        locality: entry.locality ?? null,
        region: entry.region ?? null,
        iso_country: entry.iso_country,
        monthly_price_cents: MONTHLY_NUMBER_CENTS[search.type],
      }));
    },
    async purchaseNumber(purchase) {
      const bought = (await post(
        'IncomingPhoneNumbers.json',
        {
          PhoneNumber: purchase.phoneNumber,
          FriendlyName: purchase.friendlyName ?? undefined,
          VoiceUrl: purchase.voiceUrl ?? undefined,
          StatusCallback: purchase.statusCallback ?? undefined,
        },
        'number purchase',
      )) as { sid?: string };
      if (!bought.sid) throw new ProviderFailure('rejected', 'twilio', 200, 'twilio answered a purchase without a SID');
      return { providerSid: bought.sid };
    },
    async placeCall(call: OutboundCall): Promise<PlacedCall> {
      const placed = (await post(
        'Calls.json',
        {
          To: call.to,
          From: call.from,
          Url: call.url,
          Twiml: call.url ? undefined : call.twiml,
          StatusCallback: call.statusCallback,
          StatusCallbackMethod: 'POST',
          StatusCallbackEvent: ['initiated', 'ringing', 'answered', 'completed'],
          Record: call.record ? 'true' : undefined,
          RecordingStatusCallback: call.record ? call.statusCallback : undefined,
        },
        'call',
      )) as TwilioCall;
      return { providerCallId: placed.sid, status: placed.status };
    },
    async fetchRecording(url: string) {
      // Recording media lives under api.twilio.com only; a URL elsewhere is not followed with our credentials.
      if (!url.startsWith(`${account}/Recordings/`)) {
        throw new ProviderFailure('rejected', 'twilio', null, 'the recording is not at a Twilio recording URL');
      }
      const media = url.endsWith('.wav') ? url : `${url.replace(/\.json$/, '')}.wav`;
      const response = await expectOk('twilio', await providerFetch('twilio', media, { headers }), 'recording');
      return recordingMedia('twilio', response);
    },
  };
}

/** A transcription of a recording (Twilio's Transcriptions resource), as plain text; null when none. */
export async function twilioTranscriptionText(credentials: TwilioCredentials, recordingSid: string) {
  const url = `${TWILIO_API}/Accounts/${encodeURIComponent(credentials.account_sid)}/Recordings/${encodeURIComponent(recordingSid)}/Transcriptions.json`;
  const response = await expectOk(
    'twilio',
    await providerFetch('twilio', url, { headers: { authorization: basic(credentials), accept: 'application/json' } }),
    'transcription',
  );
  const page = (await response.json()) as { transcriptions?: { status: string; transcription_text: string | null }[] };
  const done = (page.transcriptions ?? []).find((entry) => entry.status === 'completed' && entry.transcription_text);
  return done?.transcription_text ?? null;
}

/**
 * Checks an account SID and auth token with Twilio's cheapest documented read, the Account
 * resource (GET /2010-04-01/Accounts/{AccountSid}.json, Basic auth). Answers the account's status
 * (`active`, `suspended`, `closed`); a refusal or an outage is thrown as a ProviderFailure.
 */
export async function verifyTwilioAccount(credentials: TwilioCredentials): Promise<{ status: string }> {
  const url = `${TWILIO_API}/Accounts/${encodeURIComponent(credentials.account_sid)}.json`;
  const response = await expectOk(
    'twilio',
    await providerFetch('twilio', url, { headers: { authorization: basic(credentials), accept: 'application/json' } }),
    'account',
  );
  const account = (await response.json().catch(() => ({}))) as { status?: unknown };
  return { status: typeof account.status === 'string' ? account.status : 'active' };
}
