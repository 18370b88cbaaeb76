/**
 * Our Voice URL (POST /api/v1/voice/twilio/{org_id}/voice): the TwiML Twilio asks for when a
 * browser places a call with the voice token (From client:user_<org>_<user>) and when someone
 * calls one of the organization's numbers. Signed like the status callback: unsigned, forged,
 * signed for another organization, or for an organization without a Twilio connection is a 403
 * and writes nothing. Past the signature every answer is a 200 with TwiML, also a refusal
 * (<Say> why, <Hangup/>). Numbers bought through Twilio get this URL as their VoiceUrl.
 */
import { and, eq, sql } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it, type MockInstance, vi } from 'vitest';
import { calls, phoneNumbers, voiceJobs } from '../src/db/schema';
import { twimlDialClients, twimlDialNumber } from '../src/providers/voice/twiml';
import { twilioSignature } from '../src/providers/voice/twilio-signature';
import { call, expectFailure, signupOrganization, uniqueEmail, type SignedUp } from './helpers/api';
import { inOrganization } from './helpers/leads';
import { deliverJobs, requestRecordingJobs } from './helpers/mail';
import { mockTwilioAccount, topUp, withJobsRun } from './helpers/voice';

const ACCOUNT = `AC${'7'.repeat(32)}`;
const TOKEN_A = 'twilio-auth-token-twiml-a';
const TOKEN_B = 'twilio-auth-token-twiml-b';
const FIRST = '+14155550170';
const REPS = '+14155550171';
const LONELY = '+14155550172';
const OTHER_NUMBER = '+14155550173';

let org: SignedUp;
let other: SignedUp;
let local: SignedUp;
let repId: number;
let connection: Record<string, unknown>;

async function connectTwilio(who: SignedUp, authToken: string) {
  const twilio = mockTwilioAccount();
  const connected = await call('POST', '/api/voice/connection', {
    token: who.token,
    body: { account_sid: ACCOUNT, auth_token: authToken },
  });
  twilio.mockRestore();
  if (connected.status !== 200) throw new Error(`connect: ${connected.status} ${connected.text}`);
  return connected.body.data;
}

/** A number of the organization as a finished Twilio purchase leaves it, with its users. */
async function ownNumber(who: SignedUp, phone: string, userIds: number[], status = 'active') {
  const [row] = await inOrganization(who.orgId, (tx) =>
    tx
      .insert(phoneNumbers)
      .values({
        organizationId: who.orgId,
        phoneNumber: phone,
        numberType: 'local',
        provider: 'twilio',
        providerSid: `PN${phone.slice(-4).padStart(32, '0')}`,
        status: status as 'active',
        monthlyPriceCents: 115,
      })
      .returning(),
  );
  if (userIds.length > 0) {
    const assigned = await call('POST', '/api/voice/assign-number', {
      token: who.token,
      body: { number_id: row.id, user_ids: userIds },
    });
    expect(assigned.status, assigned.text).toBe(200);
  }
  return row.id;
}

async function addUser(who: SignedUp): Promise<number> {
  const added = await call('POST', '/api/user/add', {
    token: who.token,
    body: {
      first_name: 'Rep',
      last_name: 'Ray',
      email: uniqueEmail('rep'),
      phone_no: '+15550100',
      password: 'password123',
    },
  });
  expect(added.status, added.text).toBe(201);
  return added.body.data.id;
}

/** Twilio's request to an organization's Voice URL, signed with `key` over the URL and the form. */
async function voicePost(orgId: number, params: Record<string, string>, key: string | null = TOKEN_A) {
  const path = `/api/v1/voice/twilio/${orgId}/voice`;
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (key)
    headers['x-twilio-signature'] = await twilioSignature(key, `http://lead.test${path}`, Object.entries(params));
  return call('POST', path, { rawBody: new URLSearchParams(params).toString(), headers });
}

const browserCall = (who: SignedUp, userId: number, to: string) => ({
  AccountSid: ACCOUNT,
  CallSid: `CA${crypto.randomUUID().replace(/-/g, '')}`,
  From: `client:user_${who.orgId}_${userId}`,
  To: to,
  Direction: 'inbound',
  CallStatus: 'ringing',
});

const inboundCall = (to: string) => ({
  AccountSid: ACCOUNT,
  CallSid: `CA${crypto.randomUUID().replace(/-/g, '')}`,
  From: '+14155550199',
  To: to,
  Direction: 'inbound',
  CallStatus: 'ringing',
});

const say = (message: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><Response><Say>${message}</Say><Hangup/></Response>`;

function expectTwiml(response: Awaited<ReturnType<typeof call>>, twiml: string) {
  expect(response.status, response.text).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/xml/);
  expect(response.text).toBe(twiml);
}

const callCount = async (who: SignedUp) =>
  (
    await inOrganization(who.orgId, (tx) =>
      tx
        .select({ n: sql<number>`count(*)::int` })
        .from(calls)
        .where(and(eq(calls.organizationId, who.orgId))),
    )
  )[0].n;

beforeAll(async () => {
  [org, other, local] = await Promise.all([
    signupOrganization('TwiML'),
    signupOrganization('TwiML other'),
    signupOrganization('TwiML local'),
  ]);
  // One at a time: each mocks and restores fetch.
  connection = await connectTwilio(org, TOKEN_A);
  await connectTwilio(other, TOKEN_B);
  await topUp(org, 5);
  repId = await addUser(org);
  await ownNumber(org, FIRST, []);
  await ownNumber(org, REPS, [org.userId, repId]);
  await ownNumber(org, LONELY, []);
});

describe('a browser call (the TwiML App’s Voice URL)', () => {
  const statusCallback = () => `http://lead.test/api/v1/voice/twilio/${org.orgId}`;

  it('dials To in E.164 from the caller’s own number, with our status callback on the leg', async () => {
    const response = await voicePost(org.orgId, browserCall(org, org.userId, '+1 (628) 555-0142'));
    expectTwiml(
      response,
      '<?xml version="1.0" encoding="UTF-8"?><Response>' +
        `<Dial callerId="${REPS}" answerOnBridge="true">` +
        `<Number statusCallback="${statusCallback()}" statusCallbackMethod="POST" statusCallbackEvent="initiated ringing answered completed">+16285550142</Number>` +
        '</Dial></Response>',
    );
  });

  it('calls from the organization’s first active number when the caller has none of their own', async () => {
    const loner = await addUser(org);
    const response = await voicePost(org.orgId, browserCall(org, loner, '+16285550142'));
    expect(response.text).toContain(`<Dial callerId="${FIRST}" answerOnBridge="true">`);
  });

  it('answers a To that is not an E.164 number with a 200 TwiML <Say> and <Hangup/>, not a 4xx', async () => {
    const message =
      'The number you dialled is not a valid phone number in international format. Please check it and call again.';
    for (const to of ['', '6285550142', '+1628<Say>hi</Say>', 'client:someone', '+999']) {
      expectTwiml(await voicePost(org.orgId, browserCall(org, org.userId, to)), say(message));
    }
  });

  it('refuses an identity of another organization or no user', async () => {
    const message = 'This caller is not a user of the organization.';
    expectTwiml(await voicePost(org.orgId, browserCall(other, other.userId, '+16285550142')), say(message));
    expectTwiml(await voicePost(org.orgId, browserCall(org, 999_999_999, '+16285550142')), say(message));
  });

  it('says why when the organization has only a suspended number, then when its wallet is empty', async () => {
    const numberId = await ownNumber(other, OTHER_NUMBER, [other.userId], 'suspended');
    const request = browserCall(other, other.userId, '+16285550142');
    expectTwiml(
      await voicePost(other.orgId, request, TOKEN_B),
      say('The organization’s phone number is suspended for an unpaid rental. Top up the calling wallet.'),
    );
    await inOrganization(other.orgId, (tx) =>
      tx.update(phoneNumbers).set({ status: 'active' }).where(eq(phoneNumbers.id, numberId)),
    );
    expectTwiml(
      await voicePost(other.orgId, request, TOKEN_B),
      say('The calling wallet has no balance left. Top it up to place calls.'),
    );
  });

  it('says so when the organization has no number at all', async () => {
    const bare = await signupOrganization('TwiML bare');
    await connectTwilio(bare, TOKEN_A);
    expectTwiml(
      await voicePost(bare.orgId, browserCall(bare, bare.userId, '+16285550142')),
      say('The organization has no phone number to call from.'),
    );
  });
});

describe('a call to one of our numbers', () => {
  it('rings the browsers of the number’s assigned users', async () => {
    const leg = `statusCallback="http://lead.test/api/v1/voice/twilio/${org.orgId}" statusCallbackMethod="POST" statusCallbackEvent="initiated ringing answered completed"`;
    const [first, second] = [org.userId, repId].sort((a, b) => a - b);
    expectTwiml(
      await voicePost(org.orgId, inboundCall(REPS)),
      '<?xml version="1.0" encoding="UTF-8"?><Response><Dial answerOnBridge="true">' +
        `<Client ${leg}>user_${org.orgId}_${first}</Client><Client ${leg}>user_${org.orgId}_${second}</Client>` +
        '</Dial></Response>',
    );
  });

  it('says nobody can take it when the number has no assigned user, and is not in service when not ours', async () => {
    expectTwiml(
      await voicePost(org.orgId, inboundCall(LONELY)),
      say('Nobody can take your call right now. Please call again later.'),
    );
    expectTwiml(await voicePost(org.orgId, inboundCall(OTHER_NUMBER)), say('This number is not in service.'));
  });
});

describe('the signature', () => {
  it('refuses unsigned and forged requests with 403 and writes nothing', async () => {
    const before = await callCount(org);
    expectFailure(await voicePost(org.orgId, inboundCall(REPS), null), 403, 'forbidden');
    expectFailure(await voicePost(org.orgId, inboundCall(REPS), 'guessed-token'), 403, 'forbidden');
    expect((await voicePost(org.orgId, inboundCall(REPS), 'guessed-token')).body.error.code).toBe('invalid_signature');
    expect(await callCount(org)).toBe(before);
  });

  it('refuses a request for another organization signed with this one’s auth token (tenant)', async () => {
    const response = await voicePost(other.orgId, browserCall(other, other.userId, '+16285550142'), TOKEN_A);
    expectFailure(response, 403, 'forbidden');
    expect(response.text).not.toContain('<Response>');
  });

  it('refuses an organization without a Twilio connection (the local simulator): nothing can sign for it', async () => {
    const response = await voicePost(local.orgId, browserCall(local, local.userId, '+16285550142'), TOKEN_A);
    expectFailure(response, 403, 'forbidden');
    expect(response.body.error.code).toBe('invalid_signature');
  });
});

describe('numbers bought through Twilio', () => {
  let fetchSpy: MockInstance | undefined;
  afterEach(() => fetchSpy?.mockRestore());

  it('get our Voice URL and status callback; the connection names both', async () => {
    expect(connection).toMatchObject({
      status_callback_url: `http://lead.test/api/v1/voice/twilio/${org.orgId}`,
      voice_url: `http://lead.test/api/v1/voice/twilio/${org.orgId}/voice`,
    });
    const forms: URLSearchParams[] = [];
    const real = globalThis.fetch;
    fetchSpy = vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url.endsWith('/IncomingPhoneNumbers.json')) {
        forms.push(new URLSearchParams(String(init?.body)));
        return Response.json({ sid: `PN${'9'.repeat(32)}`, phone_number: '+14155550174' }, { status: 201 });
      }
      return real(input, init);
    });
    const bought = await withJobsRun('POST', '/api/voice/purchase-number', {
      token: org.token,
      body: { phoneNumber: '+14155550174' },
    });
    expect(bought.status, bought.text).toBe(202);
    expect(forms).toHaveLength(1);
    expect(forms[0].get('VoiceUrl')).toBe(`http://lead.test/api/v1/voice/twilio/${org.orgId}/voice`);
    expect(forms[0].get('StatusCallback')).toBe(`http://lead.test/api/v1/voice/twilio/${org.orgId}`);
  });
});

describe('a number purchase Twilio throttles', () => {
  afterEach(() => vi.restoreAllMocks());

  it('is snoozed for Twilio’s Retry-After (no queue retry spent), with Twilio’s reason on the job, not an internal error', async () => {
    const real = globalThis.fetch;
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url.endsWith('/IncomingPhoneNumbers.json'))
        return Response.json(
          { code: 20429, message: 'Too Many Requests' },
          { status: 429, headers: { 'retry-after': '120' } },
        );
      return real(input, init);
    });
    const bought = await requestRecordingJobs('POST', '/api/voice/purchase-number', {
      token: org.token,
      body: { phoneNumber: '+14155550175' },
    });
    expect(bought.status, bought.text).toBe(202);
    const messages = bought.sent.filter((message) => message.kind === 'voice');
    const result = await deliverJobs(messages);
    expect(result.retryMessages).toEqual([]);
    expect(result.sent).toEqual([{ body: messages[0], delaySeconds: 120 }]);
    const [job] = await inOrganization(org.orgId, (tx) =>
      tx.select().from(voiceJobs).where(eq(voiceJobs.phoneNumberId, bought.body.data.id)),
    );
    expect(job.status).toBe('running');
    expect(job.error).toContain('twilio is unavailable (429');
  });
});

describe('the TwiML builder', () => {
  it('escapes every value it puts into XML', () => {
    const twiml = twimlDialNumber({ callerId: '"+1"&', number: "<b>'", statusCallback: 'https://x.test/?a=1&b=2' });
    expect(twiml).toContain('callerId="&quot;+1&quot;&amp;"');
    expect(twiml).toContain('statusCallback="https://x.test/?a=1&amp;b=2"');
    expect(twiml).toContain('>&lt;b&gt;&apos;</Number>');
    expect(twimlDialClients({ identities: ['a</Client><Hangup/>'], statusCallback: 'u' })).toContain(
      '>a&lt;/Client&gt;&lt;Hangup/&gt;</Client>',
    );
  });
});
