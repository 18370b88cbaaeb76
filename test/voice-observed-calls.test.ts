/**
 * Calls we did not place, learnt from Twilio's signed status callbacks: a call to one of the
 * organization's numbers (Direction inbound) and a browser call placed with the voice token
 * (From client:<identity>). Each is recorded once per CallSid (a replay or a later status finds
 * the same row), with its user (the number's assignee or the token's identity) and the lead or
 * contact whose phone, as E.164, is the other side's; completed, it is charged per started minute
 * like any call, never below an empty wallet. A forged callback records nothing; a child leg or a
 * call to a number not ours is not recorded.
 */
import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { calls, phoneNumbers, voiceLedger } from '../src/db/schema';
import { twilioSignature } from '../src/providers/voice/twilio-signature';
import { call, expectFailure, signupOrganization, type SignedUp } from './helpers/api';
import { inOrganization } from './helpers/leads';
import { leadWithPhone, mockTwilioAccount, topUp } from './helpers/voice';

const AUTH_TOKEN = 'twilio-auth-token-observed-01';
const ACCOUNT = `AC${'d'.repeat(32)}`;
const OUR_NUMBER = '+14155550160';

let org: SignedUp;
let other: SignedUp;
let leadId: number;
let contactId: number;

async function connectTwilio(who: SignedUp) {
  const twilio = mockTwilioAccount();
  const connected = await call('POST', '/api/voice/connection', {
    token: who.token,
    body: { account_sid: ACCOUNT, auth_token: AUTH_TOKEN },
  });
  twilio.mockRestore();
  if (connected.status !== 200) throw new Error(`connect: ${connected.status} ${connected.text}`);
}

/** A live Twilio number of the organization (as a finished purchase leaves it). */
async function ownNumber(who: SignedUp, phone: string) {
  const [row] = await inOrganization(who.orgId, (tx) =>
    tx
      .insert(phoneNumbers)
      .values({
        organizationId: who.orgId,
        phoneNumber: phone,
        numberType: 'local',
        provider: 'twilio',
        providerSid: `PN${'1'.repeat(32)}`,
        status: 'active',
        monthlyPriceCents: 115,
      })
      .returning(),
  );
  return row.id;
}

async function twilioPost(who: SignedUp, params: Record<string, string>, key = AUTH_TOKEN) {
  const path = `/api/v1/voice/twilio/${who.orgId}`;
  const signature = await twilioSignature(key, `http://lead.test${path}`, Object.entries(params));
  return call('POST', path, {
    rawBody: new URLSearchParams(params).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
  });
}

const callsBySid = (who: SignedUp, sid: string) =>
  inOrganization(who.orgId, (tx) =>
    tx
      .select()
      .from(calls)
      .where(and(eq(calls.organizationId, who.orgId), eq(calls.providerCallId, sid))),
  );

const balance = async (who: SignedUp) =>
  (await call('GET', '/api/voice/wallet', { token: who.token })).body.data.balance as number;

beforeAll(async () => {
  [org, other] = await Promise.all([signupOrganization('Observed calls'), signupOrganization('Observed other')]);
  await connectTwilio(org);
  await topUp(org, 1);
  const numberId = await ownNumber(org, OUR_NUMBER);
  const assigned = await call('POST', '/api/voice/assign-number', {
    token: org.token,
    body: { number_id: numberId, user_id: org.userId },
  });
  expect(assigned.status).toBe(200);
  // Stored as people type them: matched by their E.164 form.
  leadId = await leadWithPhone(org, '(415) 555-0199', 'Inbound');
  await leadWithPhone(other, '+14155550199', 'Elsewhere');
  const company = await call('POST', '/api/company/add', { token: org.token, body: { company_name: 'Callee Inc' } });
  const contact = await call('POST', '/api/contact/add', {
    token: org.token,
    body: { name: 'Carla Callee', company_id: company.body.data.id, phone_number: '+1 628-555-0177' },
  });
  expect(contact.status, contact.text).toBe(201);
  contactId = contact.body.data.id;
});

describe('a call to one of our numbers', () => {
  const sid = `CA${'e'.repeat(31)}1`;
  const completed = {
    AccountSid: ACCOUNT,
    CallSid: sid,
    From: '+14155550199',
    To: OUR_NUMBER,
    Direction: 'inbound',
    CallStatus: 'completed',
    CallDuration: '75',
  };

  it('is recorded once, with the number’s user and the caller’s lead, and charged per started minute', async () => {
    const before = await balance(org);
    const first = await twilioPost(org, completed);
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({ handled: true });
    const replay = await twilioPost(org, completed);
    expect(replay.body.data).toEqual({ handled: true });
    const rows = await callsBySid(org, sid);
    expect(rows).toHaveLength(1);
    const listed = await call('GET', `/api/call/${rows[0].id}`, { token: org.token });
    expect(listed.body.data).toMatchObject({
      direction: 'inbound',
      kind: 'browser',
      provider: 'twilio',
      from_number: '+14155550199',
      to_number: OUR_NUMBER,
      user_id: org.userId,
      lead_id: leadId,
      contact_id: null,
      status: 'completed',
      duration_sec: 75,
      price: 0.1,
    });
    expect(Math.round((before - (await balance(org))) * 100)).toBe(10);
    const byLead = await call('GET', '/api/call/list', { token: org.token, query: { lead_id: leadId } });
    expect(byLead.body.data.map((row: { id: number }) => row.id)).toContain(rows[0].id);
  });

  it('a forged callback records nothing; a child leg or a number not ours is not recorded', async () => {
    const forgedSid = `CA${'f'.repeat(31)}2`;
    expectFailure(await twilioPost(org, { ...completed, CallSid: forgedSid }, 'guessed-token'), 403, 'forbidden');
    const notOurs = await twilioPost(org, { ...completed, CallSid: forgedSid, To: '+14155550161' });
    expect(notOurs.body.data).toEqual({ handled: false });
    const child = await twilioPost(org, { ...completed, CallSid: forgedSid, ParentCallSid: sid });
    expect(child.body.data).toEqual({ handled: false });
    const outboundApi = await twilioPost(org, { ...completed, CallSid: forgedSid, Direction: 'outbound-api' });
    expect(outboundApi.body.data).toEqual({ handled: false });
    expect(await callsBySid(org, forgedSid)).toEqual([]);
  });
});

describe('a browser call placed with the voice token', () => {
  const sid = `CA${'a'.repeat(31)}3`;
  const ringing = {
    AccountSid: ACCOUNT,
    CallSid: sid,
    From: '',
    To: '+16285550177',
    Direction: 'inbound',
    CallStatus: 'ringing',
    ApplicationSid: `AP${'0'.repeat(32)}`,
  };

  it('is recorded outbound for the token’s user, with the callee’s contact; later statuses move the same row', async () => {
    const params = { ...ringing, From: `client:user_${org.orgId}_${org.userId}` };
    expect((await twilioPost(org, params)).body.data).toEqual({ handled: true });
    expect((await twilioPost(org, params)).body.data).toEqual({ handled: true });
    const [row] = await callsBySid(org, sid);
    expect(row).toMatchObject({
      direction: 'outbound',
      kind: 'browser',
      userId: org.userId,
      contactId,
      leadId: null,
      fromNumber: OUR_NUMBER,
      toNumber: '+16285550177',
      status: 'ringing',
    });
    const before = await balance(org);
    const done = await twilioPost(org, { ...params, CallStatus: 'completed', CallDuration: '30' });
    expect(done.body.data).toEqual({ handled: true });
    const after = await callsBySid(org, sid);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ status: 'completed', durationSec: 30, priceCents: 5 });
    expect(Math.round((before - (await balance(org))) * 100)).toBe(5);
  });

  it('a token identity of another organization names no user', async () => {
    const foreignSid = `CA${'b'.repeat(31)}4`;
    const params = { ...ringing, CallSid: foreignSid, From: `client:user_${other.orgId}_${other.userId}` };
    expect((await twilioPost(org, params)).status).toBe(200);
    const [row] = await callsBySid(org, foreignSid);
    expect(row).toMatchObject({ userId: null, direction: 'outbound', contactId });
  });
});

describe('a call the wallet cannot cover', () => {
  it('is charged what the wallet holds, never below zero', async () => {
    const short = await signupOrganization('Observed short');
    await connectTwilio(short);
    await topUp(short, 0.05);
    await ownNumber(short, OUR_NUMBER);
    const sid = `CA${'c'.repeat(31)}5`;
    const response = await twilioPost(short, {
      AccountSid: ACCOUNT,
      CallSid: sid,
      From: '+14155550199',
      To: OUR_NUMBER,
      Direction: 'inbound',
      CallStatus: 'completed',
      CallDuration: '150',
    });
    expect(response.body.data).toEqual({ handled: true });
    const [row] = await callsBySid(short, sid);
    expect(row).toMatchObject({ status: 'completed', priceCents: 15, userId: null, leadId: null });
    expect(await balance(short)).toBe(0);
    const ledger = await inOrganization(short.orgId, (tx) =>
      tx.select().from(voiceLedger).where(eq(voiceLedger.callId, row.id)),
    );
    expect(ledger.map((entry) => [entry.kind, entry.amountCents])).toEqual([['call_charge', -5]]);
    expect(ledger[0].note).toContain('10 cents unpaid');
  });
});
