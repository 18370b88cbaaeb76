/**
 * The voice adapters against their documented wire formats, the network mocked at fetch: Twilio's
 * AvailablePhoneNumbers, IncomingPhoneNumbers, Calls, Recordings and Transcriptions requests
 * (URL, Basic auth, form body) with the documented answers replayed; the browser Access Token's
 * header and claims; X-Twilio-Signature with Twilio's own documented example; Vapi's POST /call,
 * its List Calls (GET /call) lookup of a call whose answer was lost, and its signed end-of-call report.
 */
import { decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProviderFailure } from '../src/providers/failures';
import { localNumbers, localRecording, localTranscript } from '../src/providers/voice/local';
import { twilioTelephony, twilioTranscriptionText } from '../src/providers/voice/twilio';
import { isValidTwilioSignature, twilioSignature, twilioSignedText } from '../src/providers/voice/twilio-signature';
import { twilioVoiceToken } from '../src/providers/voice/twilio-token';
import { isValidVapiSignature, parseVapiReport, vapiAgent, vapiSignature } from '../src/providers/voice/vapi';
import { json, mockFetch } from './helpers/fetch-mock';

const SID = 'ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX';
const credentials = { account_sid: SID, auth_token: 'your_auth_token' };
const basic = `Basic ${btoa(`${SID}:your_auth_token`)}`;
const ACCOUNT = `https://api.twilio.com/2010-04-01/Accounts/${SID}`;

afterEach(() => vi.restoreAllMocks());

describe('Twilio REST adapter', () => {
  it('searches AvailablePhoneNumbers/US/Local.json with AreaCode, Contains and PageSize, and reads the documented page', async () => {
    const seen = mockFetch([
      json(200, {
        available_phone_numbers: [
          {
            address_requirements: 'none',
            beta: false,
            capabilities: { mms: true, sms: false, voice: true },
            friendly_name: '(808) 925-1571',
            iso_country: 'US',
            lata: '834',
            latitude: '19.720000',
            locality: 'Hilo',
            longitude: '-155.090000',
            phone_number: '+18089251571',
            postal_code: '96720',
            rate_center: 'HILO',
            region: 'HI',
          },
        ],
        end: 1,
        first_page_uri:
          '/2010-04-01/Accounts/ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX/AvailablePhoneNumbers/US/Local.json?PageSize=50&Page=0',
        next_page_uri: null,
        page: 0,
        page_size: 50,
        previous_page_uri: null,
        start: 0,
        uri: '/2010-04-01/Accounts/ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX/AvailablePhoneNumbers/US/Local.json?PageSize=50',
      }),
    ]);
    const numbers = await twilioTelephony(credentials).searchNumbers({
      country: 'US',
      type: 'local',
      areaCode: '808',
      contains: '925',
      limit: 5,
    });
    expect(seen).toHaveLength(1);
    const url = new URL(seen[0].url);
    expect(`${url.origin}${url.pathname}`).toBe(`${ACCOUNT}/AvailablePhoneNumbers/US/Local.json`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      PageSize: '5',
      AreaCode: '808',
      Contains: '925',
      VoiceEnabled: 'true',
    });
    expect(seen[0].method).toBe('GET');
    expect(seen[0].authorization).toBe(basic);
    expect(numbers).toEqual([
      {
        phone_number: '+18089251571',
        friendly_name: '(808) 925-1571',
        type: 'local',
        locality: 'Hilo',
        region: 'HI',
        iso_country: 'US',
        monthly_price_cents: 115,
      },
    ]);
  });

  it('asks TollFree.json and Mobile.json for those types', async () => {
    const seen = mockFetch([json(200, { available_phone_numbers: [] })]);
    await twilioTelephony(credentials).searchNumbers({ country: 'US', type: 'toll_free', limit: 3 });
    await twilioTelephony(credentials).searchNumbers({ country: 'GB', type: 'mobile', limit: 3 });
    expect(new URL(seen[0].url).pathname).toMatch(/\/AvailablePhoneNumbers\/US\/TollFree\.json$/);
    expect(new URL(seen[1].url).pathname).toMatch(/\/AvailablePhoneNumbers\/GB\/Mobile\.json$/);
  });

  it('buys with a form-encoded POST to IncomingPhoneNumbers.json and keeps the PN SID', async () => {
    const seen = mockFetch([
      json(201, {
        account_sid: SID,
        friendly_name: 'Sales line',
        phone_number: '+14155550100',
        sid: 'PNXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX',
        status_callback: 'https://api.example.com/api/v1/voice/twilio/1',
        voice_url: null,
      }),
    ]);
    const bought = await twilioTelephony(credentials).purchaseNumber({
      phoneNumber: '+14155550100',
      friendlyName: 'Sales line',
      statusCallback: 'https://api.example.com/api/v1/voice/twilio/1',
      voiceUrl: null,
    });
    expect(bought).toEqual({ providerSid: 'PNXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX' });
    expect(seen[0]).toMatchObject({
      url: `${ACCOUNT}/IncomingPhoneNumbers.json`,
      method: 'POST',
      authorization: basic,
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(Object.fromEntries(new URLSearchParams(seen[0].body))).toEqual({
      PhoneNumber: '+14155550100',
      FriendlyName: 'Sales line',
      StatusCallback: 'https://api.example.com/api/v1/voice/twilio/1',
    });
  });

  it('dials with Calls.json: To, From, Twiml, StatusCallback, every StatusCallbackEvent, Record', async () => {
    const seen = mockFetch([
      json(201, {
        account_sid: SID,
        sid: 'CAXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX',
        status: 'queued',
        to: '+14155550142',
        from: '+14155550100',
        direction: 'outbound-api',
      }),
    ]);
    const placed = await twilioTelephony(credentials).placeCall({
      to: '+14155550142',
      from: '+14155550100',
      twiml: '<Response><Say>Hello</Say></Response>',
      statusCallback: 'https://api.example.com/api/v1/voice/twilio/1',
      record: true,
    });
    expect(placed).toEqual({ providerCallId: 'CAXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX', status: 'queued' });
    expect(seen[0].url).toBe(`${ACCOUNT}/Calls.json`);
    const form = new URLSearchParams(seen[0].body);
    expect(form.get('To')).toBe('+14155550142');
    expect(form.get('From')).toBe('+14155550100');
    expect(form.get('Twiml')).toBe('<Response><Say>Hello</Say></Response>');
    expect(form.get('StatusCallback')).toBe('https://api.example.com/api/v1/voice/twilio/1');
    expect(form.getAll('StatusCallbackEvent')).toEqual(['initiated', 'ringing', 'answered', 'completed']);
    expect(form.get('Record')).toBe('true');
    expect(form.get('Url')).toBeNull();
  });

  it('fetches a recording as .wav with Basic auth, and follows no URL outside the account', async () => {
    const seen = mockFetch([
      new Response(localRecording(), { status: 200, headers: { 'content-type': 'audio/x-wav' } }),
    ]);
    const media = await twilioTelephony(credentials).fetchRecording(
      `${ACCOUNT}/Recordings/REXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`,
    );
    expect(seen[0].url).toBe(`${ACCOUNT}/Recordings/REXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX.wav`);
    expect(seen[0].authorization).toBe(basic);
    expect(media.body.byteLength).toBe(localRecording().byteLength);
    await expect(twilioTelephony(credentials).fetchRecording('https://evil.example.com/rec')).rejects.toBeInstanceOf(
      ProviderFailure,
    );
    expect(seen).toHaveLength(1);
  });

  it('stores a recording only as WAV audio: audio/x-wav becomes audio/wav, HTML is refused', async () => {
    mockFetch([new Response(localRecording(), { status: 200, headers: { 'content-type': 'audio/x-wav' } })]);
    const media = await twilioTelephony(credentials).fetchRecording(
      `${ACCOUNT}/Recordings/REXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`,
    );
    expect(media.contentType).toBe('audio/wav');
    vi.restoreAllMocks();
    mockFetch([
      new Response('<html><script>alert(1)</script></html>', { status: 200, headers: { 'content-type': 'text/html' } }),
    ]);
    await expect(
      twilioTelephony(credentials).fetchRecording(`${ACCOUNT}/Recordings/REXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`),
    ).rejects.toMatchObject({ kind: 'rejected', provider: 'twilio' });
  });

  it('reads a completed transcription of a recording', async () => {
    const seen = mockFetch([
      json(200, {
        transcriptions: [
          {
            sid: 'TRXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX',
            status: 'completed',
            transcription_text: 'Hello, is this Grace?',
          },
        ],
      }),
    ]);
    expect(await twilioTranscriptionText(credentials, 'REXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX')).toBe(
      'Hello, is this Grace?',
    );
    expect(seen[0].url).toBe(`${ACCOUNT}/Recordings/REXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX/Transcriptions.json`);
  });

  it('turns Twilio errors into provider failures without their text', async () => {
    mockFetch([json(401, { code: 20003, message: 'Authenticate', status: 401 })]);
    const failure = await twilioTelephony(credentials)
      .searchNumbers({ country: 'US', type: 'local', limit: 1 })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ProviderFailure);
    expect((failure as ProviderFailure).kind).toBe('auth');
    expect((failure as ProviderFailure).reason).not.toContain('Authenticate');
    mockFetch([json(429, { code: 20429, message: 'Too Many Requests' })]);
    const throttled = await twilioTelephony(credentials)
      .placeCall({ to: '+1', from: '+1', statusCallback: 'x', record: false })
      .catch((error: unknown) => error);
    expect((throttled as ProviderFailure).kind).toBe('unavailable');
  });
});

describe('the browser voice token (Twilio Access Token)', () => {
  it('is HS256 with cty twilio-fpa;v=1, iss the API key, sub the account, identity and voice grants, at most an hour', async () => {
    const now = Date.UTC(2026, 0, 15, 9, 30);
    const secret = 'api-key-secret-0123456789';
    const { token, expiresAt } = await twilioVoiceToken({
      accountSid: SID,
      apiKeySid: 'SKXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX',
      apiKeySecret: secret,
      applicationSid: 'APXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX',
      identity: 'user_1_3',
      ttlSeconds: 86_400,
      now,
    });
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'JWT', cty: 'twilio-fpa;v=1' });
    const claims = decodeJwt(token);
    const iat = now / 1000;
    expect(claims).toEqual({
      jti: `SKXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX-${iat}`,
      iss: 'SKXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX',
      sub: SID,
      iat,
      nbf: iat,
      exp: iat + 3_600,
      grants: {
        identity: 'user_1_3',
        voice: { incoming: { allow: true }, outgoing: { application_sid: 'APXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX' } },
      },
    });
    expect(expiresAt.getTime()).toBe(now + 3_600_000);
    await expect(
      jwtVerify(token, new TextEncoder().encode(secret), { currentDate: new Date(now + 1000) }),
    ).resolves.toBeTruthy();
  });
});

describe('X-Twilio-Signature', () => {
  // Twilio's worked example (twilio.com/docs/usage/security#validating-requests), in both versions of the page.
  const url = 'https://mycompany.com/myapp.php?foo=1&bar=2';
  const params = (caller: string): [string, string][] => [
    ['CallSid', 'CA1234567890ABCDE'],
    ['Caller', caller],
    ['Digits', '1234'],
    ['From', caller],
    ['To', '+18005551212'],
  ];

  it('matches the documented signatures', async () => {
    expect(await twilioSignature('12345', url, params('+12349013030'))).toBe('0/KCTR6DLpKmkAf8muzZqo1nDgQ=');
    expect(await twilioSignature('12345', url, params('+14158675310'))).toBe('GvWf1cFY/Q7PnoempGyD5oXAezc=');
  });

  it('signs the URL then each parameter sorted by name, as name + value', () => {
    expect(
      twilioSignedText('https://x.example/hook', [
        ['b', '2'],
        ['a', '1'],
      ]),
    ).toBe('https://x.example/hooka1b2');
  });

  it('refuses a missing, altered or differently keyed signature', async () => {
    const good = '0/KCTR6DLpKmkAf8muzZqo1nDgQ=';
    expect(await isValidTwilioSignature('12345', good, url, params('+12349013030'))).toBe(true);
    expect(await isValidTwilioSignature('12345', undefined, url, params('+12349013030'))).toBe(false);
    expect(await isValidTwilioSignature('12346', good, url, params('+12349013030'))).toBe(false);
    expect(await isValidTwilioSignature('12345', good, url, params('+12349013031'))).toBe(false);
    expect(await isValidTwilioSignature('12345', good, `${url}&baz=3`, params('+12349013030'))).toBe(false);
  });
});

describe('Vapi agent', () => {
  const vapi = { api_key: 'vapi-private-key', phone_number_id: 'pn-123', webhook_secret: 'whsec-0123456789abcdef' };

  it('POSTs /call with the number, the customer and a transient assistant carrying prompt, first message, voice, language', async () => {
    const seen = mockFetch([json(201, { id: 'call-abc', status: 'queued', type: 'outboundPhoneCall' })]);
    const placed = await vapiAgent(vapi).startCall({
      to: '+14155550142',
      agent: { system_prompt: 'Qualify the lead.', first_message: 'Hi Grace!', voice_id: 'Elliot', language: 'en-US' },
      serverUrl: 'https://api.example.com/api/v1/voice/vapi/1',
      callId: 7,
    });
    expect(placed).toEqual({ providerCallId: 'call-abc', status: 'queued' });
    expect(seen[0]).toMatchObject({
      url: 'https://api.vapi.ai/call',
      method: 'POST',
      authorization: 'Bearer vapi-private-key',
      contentType: 'application/json',
    });
    expect(JSON.parse(seen[0].body)).toEqual({
      phoneNumberId: 'pn-123',
      customer: { number: '+14155550142' },
      assistant: {
        firstMessage: 'Hi Grace!',
        model: { provider: 'openai', model: 'gpt-4o', messages: [{ role: 'system', content: 'Qualify the lead.' }] },
        voice: { provider: 'vapi', voiceId: 'Elliot' },
        transcriber: { provider: 'deepgram', model: 'nova-2', language: 'en-US' },
        server: { url: 'https://api.example.com/api/v1/voice/vapi/1' },
        metadata: { call_id: 7 },
      },
    });
  });

  /** A call as List Calls answers it (the fields a lookup reads, among others Vapi sends). */
  const listed = (id: string, number: string, metadata?: Record<string, unknown>) => ({
    id,
    orgId: 'org-1',
    type: 'outboundPhoneCall',
    status: 'queued',
    createdAt: '2026-12-01T06:00:01.000Z',
    updatedAt: '2026-12-01T06:00:01.000Z',
    phoneNumberId: 'pn-123',
    customer: { number },
    assistant: { firstMessage: 'Hi', ...(metadata ? { metadata } : {}) },
  });
  const lookup = { callId: 7, to: '+14155550142', since: new Date('2026-12-01T06:00:00.000Z') };

  it('finds a call it placed with GET /call by phoneNumberId and createdAtGe, by the call id in its metadata and the number', async () => {
    const seen = mockFetch([
      json(200, [
        listed('call-other-lead', '+14155550199', { call_id: 6 }),
        listed('call-same-lead-earlier', '+14155550142', { call_id: 5 }),
        listed('call-ours', '+14155550142', { call_id: 7 }),
      ]),
    ]);
    expect(await vapiAgent(vapi).findCall?.(lookup)).toBe('call-ours');
    expect(seen).toHaveLength(1);
    const url = new URL(seen[0].url);
    expect(`${url.origin}${url.pathname}`).toBe('https://api.vapi.ai/call');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      phoneNumberId: 'pn-123',
      createdAtGe: '2026-12-01T06:00:00.000Z',
      limit: '100',
    });
    expect(seen[0]).toMatchObject({ method: 'GET', authorization: 'Bearer vapi-private-key' });
  });

  it('answers null only when the list surely holds no call of ours, and cannot tell otherwise', async () => {
    mockFetch([json(200, [listed('call-other', '+14155550199', { call_id: 6 })])]);
    expect(await vapiAgent(vapi).findCall?.(lookup)).toBeNull();
    vi.restoreAllMocks();
    mockFetch([json(200, [])]);
    expect(await vapiAgent(vapi).findCall?.(lookup)).toBeNull();
    vi.restoreAllMocks();
    const cannotTell = { kind: 'rejected', provider: 'vapi' };
    // A full page: older calls of the window may be missing from it.
    mockFetch([
      json(
        200,
        Array.from({ length: 100 }, (_, i) => listed(`call-${i}`, '+14155550199', { call_id: 6 })),
      ),
    ]);
    await expect(vapiAgent(vapi).findCall?.(lookup)).rejects.toMatchObject(cannotTell);
    vi.restoreAllMocks();
    // A call to the same number without our metadata may be ours.
    mockFetch([json(200, [listed('call-bare', '+14155550142')])]);
    await expect(vapiAgent(vapi).findCall?.(lookup)).rejects.toMatchObject(cannotTell);
    vi.restoreAllMocks();
    mockFetch([json(200, { calls: [] })]);
    await expect(vapiAgent(vapi).findCall?.(lookup)).rejects.toMatchObject(cannotTell);
    vi.restoreAllMocks();
    // Vapi down: unavailable (retried), not an answer.
    mockFetch([json(503, { message: 'Service Unavailable' })]);
    await expect(vapiAgent(vapi).findCall?.(lookup)).rejects.toMatchObject({ kind: 'unavailable', status: 503 });
  });

  it('verifies x-vapi-signature (hex HMAC-SHA256 of the raw body) and reads the end-of-call report', async () => {
    const body = JSON.stringify({
      message: {
        type: 'end-of-call-report',
        endedReason: 'customer-ended-call',
        call: { id: 'call-abc', type: 'outboundPhoneCall', assistant: { metadata: { call_id: 4711 } } },
        startedAt: '2026-01-15T09:30:00.000Z',
        endedAt: '2026-01-15T09:31:05.000Z',
        durationSeconds: 65,
        cost: 0.12,
        artifact: {
          recordingUrl: 'https://storage.vapi.ai/call-abc-mono.wav',
          transcript: 'AI: Hi Grace!\nUser: Hello.',
          messages: [
            { role: 'system', message: 'Qualify the lead.', time: 1, secondsFromStart: 0 },
            { role: 'bot', message: 'Hi Grace!', time: 2, secondsFromStart: 0.4 },
            { role: 'user', message: 'Hello.', time: 3, secondsFromStart: 2.6 },
          ],
        },
      },
    });
    const signature = await vapiSignature(vapi.webhook_secret, body);
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    expect(await isValidVapiSignature(vapi.webhook_secret, signature, body)).toBe(true);
    expect(await isValidVapiSignature(vapi.webhook_secret, signature, `${body} `)).toBe(false);
    expect(await isValidVapiSignature('another-secret-0123', signature, body)).toBe(false);
    expect(await isValidVapiSignature(vapi.webhook_secret, undefined, body)).toBe(false);
    const report = parseVapiReport(JSON.parse(body));
    expect(report).toEqual({
      type: 'end-of-call-report',
      providerCallId: 'call-abc',
      callId: 4711,
      outcome: {
        status: 'completed',
        durationSec: 65,
        answeredAt: new Date('2026-01-15T09:30:00.000Z'),
        endedAt: new Date('2026-01-15T09:31:05.000Z'),
        transcript: [
          { speaker: 'agent', text: 'Hi Grace!', at_sec: 0 },
          { speaker: 'customer', text: 'Hello.', at_sec: 3 },
        ],
        recordingUrl: 'https://storage.vapi.ai/call-abc-mono.wav',
      },
    });
    expect(parseVapiReport({ message: { type: 'status-update', status: 'in-progress' } })).toBeNull();
    // Our id from the active assistant when the call object has none; nothing that is not a positive id.
    const callIdOf = (message: Record<string, unknown>) =>
      parseVapiReport({ message: { type: 'end-of-call-report', call: { id: 'call-abc' }, ...message } })?.callId;
    expect(callIdOf({ assistant: { metadata: { call_id: 4711 } } })).toBe(4711);
    expect(callIdOf({ assistant: { metadata: { call_id: '4711' } } })).toBe(4711);
    expect(callIdOf({})).toBeNull();
    expect(callIdOf({ assistant: { metadata: { call_id: 'x' } } })).toBeNull();
    expect(callIdOf({ assistant: { metadata: { call_id: -3 } } })).toBeNull();
  });

  it('reads a call that Vapi could not run (an error ended reason, nothing said) as failed, naming the reason', () => {
    const report = (endedReason: string, more: Record<string, unknown> = {}) =>
      parseVapiReport({
        message: {
          type: 'end-of-call-report',
          endedReason,
          call: { id: 'call-err' },
          endedAt: '2026-01-15T09:30:02.000Z',
          artifact: { messages: [] },
          ...more,
        },
      })?.outcome;
    for (const reason of [
      'pipeline-error-openai-llm-failed',
      'call.start.error-get-assistant',
      'assistant-request-failed',
      'assistant-not-found',
      'vonage-rejected',
      'twilio-failed-to-connect-call',
    ]) {
      expect(report(reason), reason).toMatchObject({
        status: 'failed',
        durationSec: 0,
        failureReason: `Vapi ended the call: ${reason}`,
      });
    }
    expect(report('manually-canceled')).toMatchObject({ status: 'canceled', durationSec: 0 });
    // An error after a conversation: the call ran (and is charged) for its time.
    expect(report('pipeline-error-openai-llm-failed', { durationSeconds: 40 })).toMatchObject({
      status: 'completed',
      durationSec: 40,
    });
    expect(report('customer-ended-call', { durationSeconds: 40 })?.status).toBe('completed');
    // A reason that is not a plain code is not repeated.
    expect(report('pipeline-error-<script>')).toMatchObject({
      status: 'failed',
      failureReason: 'Vapi ended the call: an error',
    });
  });
});

describe('Vapi recordings', () => {
  const vapi = { api_key: 'vapi-private-key', phone_number_id: 'pn-123', webhook_secret: 'whsec-0123456789abcdef' };
  const wav = () => new Response(localRecording(), { status: 200, headers: { 'content-type': 'audio/wav' } });

  it('sends the private key only to api.vapi.ai, and follows its redirect without it', async () => {
    const seen = mockFetch([
      new Response(null, { status: 302, headers: { location: 'https://signed.storage.example/rec.wav?sig=abc' } }),
      wav(),
    ]);
    const media = await vapiAgent(vapi).fetchRecording('https://api.vapi.ai/call/call-abc/mono-recording');
    expect(seen.map((request) => [request.url, request.authorization])).toEqual([
      ['https://api.vapi.ai/call/call-abc/mono-recording', 'Bearer vapi-private-key'],
      ['https://signed.storage.example/rec.wav?sig=abc', null],
    ]);
    expect(media).toEqual({ body: expect.any(ArrayBuffer), contentType: 'audio/wav' });
  });

  it('fetches a recording on any other host without a credential, and never an http URL', async () => {
    const seen = mockFetch([wav()]);
    for (const url of [
      'https://storage.vapi.ai/call-abc-mono.wav',
      'https://collector.attacker.example/rec.wav',
      'https://api.vapi.ai.attacker.example/rec.wav',
      'https://api.vapi.ai:8443/rec.wav',
    ]) {
      expect((await vapiAgent(vapi).fetchRecording(url)).contentType).toBe('audio/wav');
    }
    expect(seen.map((request) => request.authorization)).toEqual([null, null, null, null]);
    expect(seen.some((request) => JSON.stringify([...request.headers]).includes('vapi-private-key'))).toBe(false);
    await expect(vapiAgent(vapi).fetchRecording('http://api.vapi.ai/call/x/mono-recording')).rejects.toMatchObject({
      kind: 'rejected',
    });
    expect(seen).toHaveLength(4);
  });

  it('refuses an answer that is not WAV audio; a generic binary type is taken when the bytes are WAV', async () => {
    mockFetch([new Response('<html></html>', { status: 200, headers: { 'content-type': 'text/html' } })]);
    await expect(vapiAgent(vapi).fetchRecording('https://storage.vapi.ai/rec.wav')).rejects.toMatchObject({
      kind: 'rejected',
      provider: 'vapi',
    });
    vi.restoreAllMocks();
    mockFetch([new Response('<html></html>', { status: 200, headers: { 'content-type': 'audio/wav' } })]);
    await expect(vapiAgent(vapi).fetchRecording('https://storage.vapi.ai/rec.wav')).rejects.toMatchObject({
      kind: 'rejected',
    });
    vi.restoreAllMocks();
    mockFetch([new Response(localRecording(), { status: 200, headers: { 'content-type': 'binary/octet-stream' } })]);
    expect((await vapiAgent(vapi).fetchRecording('https://bucket.s3.amazonaws.com/rec.wav')).contentType).toBe(
      'audio/wav',
    );
  });
});

describe('the local simulator', () => {
  it('offers the same numbers for the same search, filtered by contains', () => {
    const first = localNumbers({ country: 'US', type: 'local', areaCode: '415', limit: 3 });
    expect(first.map((entry) => entry.phone_number)).toEqual(['+14155550100', '+14155550101', '+14155550102']);
    expect(localNumbers({ country: 'US', type: 'local', areaCode: '415', limit: 3 })).toEqual(first);
    expect(
      localNumbers({ country: 'US', type: 'toll_free', contains: '0142', limit: 5 }).map((n) => n.phone_number),
    ).toEqual(['+18005550142']);
  });

  it('builds the agent’s transcript from its first message and system prompt, and a WAV recording', () => {
    const turns = localTranscript(
      {
        system_prompt: 'Book a demo of Acme CRM.',
        first_message: 'Hi Grace, Acme here.',
        voice_id: null,
        language: null,
      },
      'Grace',
    );
    expect(turns[0]).toEqual({ speaker: 'agent', text: 'Hi Grace, Acme here.', at_sec: 0 });
    expect(turns.some((turn) => turn.text.includes('Book a demo of Acme CRM.'))).toBe(true);
    const wav = localRecording();
    expect(new TextDecoder().decode(wav.slice(0, 4))).toBe('RIFF');
    expect(new TextDecoder().decode(wav.slice(8, 12))).toBe('WAVE');
  });
});
