/**
 * Voice and calling through the routes, on the local simulator: numbers searched, bought (paid
 * from the wallet, 402 when short, 409 twice, refunded when the provider refuses) and assigned;
 * the wallet never negative under parallel requests; a browser token; an agent call that goes
 * queued → completed with a transcript, a recording link that downloads audio, a price, a feed
 * entry and an engagement signal. Then the Twilio and Vapi webhooks: a forged callback changes
 * nothing, a signed one moves the call once, a replay changes nothing twice.
 */
import { env } from 'cloudflare:workers';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { calls, intentSignals, voiceJobs, voiceLedger } from '../src/db/schema';
import { withOwnDatabase } from '../src/db/client';
import { readConfig } from '../src/env';
import { MAX_LEASE_RESENDS, sweepExpiredLeases } from '../src/jobs/lease-sweep';
import type { JobMessage } from '../src/jobs/messages';
import { REASONS as VOICE_REASONS } from '../src/modules/voice/voice-job';
import { localRecording } from '../src/providers/voice/local';
import { twilioSignature } from '../src/providers/voice/twilio-signature';
import { vapiSignature } from '../src/providers/voice/vapi';
import { call, expectFailure, fetchWorker, signupOrganization, type SignedUp, uniqueEmail } from './helpers/api';
import { createCompany, createContact } from './helpers/accounts';
import { feedOf, inOrganization, restoreLead, softDeleteLead } from './helpers/leads';
import { json, mockFetch } from './helpers/fetch-mock';
import { deliverJobs, requestRecordingJobs } from './helpers/mail';
import { operatorKey, operatorTopUp, statusWithOperatorKeyConfigured, tenantCredentials } from './helpers/operator';
import {
  buyLocalNumber,
  completedAgentCall,
  leadWithPhone,
  connectTwilioWithVapi,
  topUp,
  withJobsRun,
} from './helpers/voice';

let org: SignedUp;
let other: SignedUp;

beforeAll(async () => {
  [org, other] = await Promise.all([signupOrganization('Voice'), signupOrganization('Other voice')]);
});

const wallet = async (who: SignedUp) => (await call('GET', '/api/voice/wallet', { token: who.token })).body.data;

describe('numbers', () => {
  it('searches the simulator’s numbers by type, area code and contains, at most 50', async () => {
    const found = await call('GET', '/api/voice/available-numbers', {
      token: org.token,
      query: { areaCode: '415', contains: '010', limit: 5 },
    });
    expect(found.status).toBe(200);
    expect(found.body.data).toHaveLength(5);
    expect(found.body.data[0]).toEqual({
      phone_number: '+14155550100',
      friendly_name: '(415) 555-0100',
      type: 'local',
      locality: 'San Francisco',
      region: 'CA',
      iso_country: 'US',
      monthly_price: 1.15,
      currency: 'USD',
    });
    expect(found.body.total).toBe(5);
    const tollFree = await call('GET', '/api/voice/available-numbers', {
      token: org.token,
      query: { type: 'toll_free', limit: 2 },
    });
    expect(tollFree.body.data.map((entry: { phone_number: string }) => entry.phone_number)).toEqual([
      '+18005550100',
      '+18005550101',
    ]);
    expectFailure(
      await call('GET', '/api/voice/available-numbers', { token: org.token, query: { limit: 51 } }),
      400,
      'bad_request',
    );
    expectFailure(
      await call('GET', '/api/voice/available-numbers', { token: org.token, query: { type: 'fax' } }),
      400,
      'bad_request',
    );
    expectFailure(
      await call('GET', '/api/voice/available-numbers', { token: org.token, query: { areaCode: '41a' } }),
      400,
      'bad_request',
    );
  });

  it('refuses a purchase the wallet does not cover with 402, and buys nothing', async () => {
    const poor = await signupOrganization('Poor');
    const response = await requestRecordingJobs('POST', '/api/voice/purchase-number', {
      token: poor.token,
      body: { phoneNumber: '+14155550100' },
    });
    expect(response.status).toBe(402);
    expect(response.body.error).toMatchObject({ type: 'payment_required', code: 'insufficient_balance' });
    expect(response.body.error.details).toEqual({ balance: 0, required: 1.15, currency: 'USD' });
    expect(response.sent).toEqual([]);
    const mine = await call('GET', '/api/voice/my-numbers', { token: poor.token });
    expect(mine.body.data).toEqual([]);
  });

  it('an empty wallet’s 402 matches its declared schema, on a purchase and on an agent call', async () => {
    // `call` checks every answer against the route's declared response in the OpenAPI document.
    const poor = await signupOrganization('Poor contract');
    const bought = await call('POST', '/api/voice/purchase-number', {
      token: poor.token,
      body: { phoneNumber: '+14155550101' },
    });
    expectFailure(bought, 402, 'payment_required');
    expect(bought.body.error.details).toEqual({ balance: 0, required: 1.15, currency: 'USD' });
    const leadId = await leadWithPhone(poor, '+14155550142');
    const placed = await call('POST', '/api/call/agent/initiate', {
      token: poor.token,
      body: { system_prompt: 'Qualify the lead.', lead_id: leadId },
    });
    expectFailure(placed, 402, 'payment_required');
    expect(placed.body.error).toMatchObject({ code: 'insufficient_balance', details: { balance: 0, currency: 'USD' } });
  });

  it('buys a number: paid with its record, bought by the queued job, a second purchase 409', async () => {
    await topUp(org, 10);
    const paid = await requestRecordingJobs('POST', '/api/voice/purchase-number', {
      token: org.token,
      body: { phoneNumber: '+14155550101', friendlyName: 'Sales line' },
    });
    expect(paid.status).toBe(202);
    expect(paid.body.data).toMatchObject({
      phone_number: '+14155550101',
      status: 'pending',
      provider: 'local',
      monthly_price: 1.15,
    });
    expect(paid.sent).toEqual([{ kind: 'voice', orgId: org.orgId, jobId: expect.any(Number) }]);
    expect((await wallet(org)).balance).toBe(8.85);
    await withJobsRun('GET', '/api/health');
    const { deliverJobs } = await import('./helpers/mail');
    await deliverJobs(paid.sent);
    await deliverJobs(paid.sent); // a redelivery changes nothing
    const mine = await call('GET', '/api/voice/my-numbers', { token: org.token });
    expect(mine.body.data).toEqual([
      expect.objectContaining({
        id: paid.body.data.id,
        status: 'active',
        friendly_name: 'Sales line',
        assigned_user_ids: [],
      }),
    ]);
    const again = await call('POST', '/api/voice/purchase-number', {
      token: org.token,
      body: { phoneNumber: '+14155550101' },
    });
    expectFailure(again, 409, 'conflict');
    expect(again.body.error).toMatchObject({ code: 'number_owned', details: { phone_number: '+14155550101' } });
    expect((await wallet(org)).balance).toBe(8.85);
  });

  it('refunds and marks failed a number the provider refuses', async () => {
    const before = (await wallet(org)).balance;
    const response = await withJobsRun('POST', '/api/voice/purchase-number', {
      token: org.token,
      body: { phoneNumber: '+14155551234' },
    });
    expect(response.status).toBe(202);
    const mine = await call('GET', '/api/voice/my-numbers', { token: org.token, query: { search_value: '5551234' } });
    expect(mine.body.data[0]).toMatchObject({
      status: 'failed',
      failure_reason: expect.stringContaining('does not offer'),
    });
    expect((await wallet(org)).balance).toBe(before);
  });

  it('refuses what is not an E.164 phone number, naming phoneNumber', async () => {
    for (const phoneNumber of ['4155550100', '+1415', '+999999999999', 'call me']) {
      const response = await call('POST', '/api/voice/purchase-number', { token: org.token, body: { phoneNumber } });
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code).toBe('phoneNumber');
    }
  });

  it('assigns users to a number; another organization’s number or user is a 404', async () => {
    const numberId = await buyLocalNumber(org, '+14155550102');
    const assigned = await call('POST', '/api/voice/assign-number', {
      token: org.token,
      body: { number_id: numberId, user_id: org.userId },
    });
    expect(assigned.status).toBe(200);
    expect(assigned.body.data.assigned_user_ids).toEqual([org.userId]);
    expectFailure(
      await call('POST', '/api/voice/assign-number', {
        token: org.token,
        body: { number_id: numberId, user_ids: [other.userId] },
      }),
      404,
      'not_found',
    );
    expectFailure(
      await call('POST', '/api/voice/assign-number', {
        token: other.token,
        body: { number_id: numberId, user_id: other.userId },
      }),
      404,
      'not_found',
    );
    expectFailure(
      await call('POST', '/api/voice/assign-number', { token: org.token, body: { number_id: numberId } }),
      422,
      'validation_error',
    );
    const mine = await call('GET', '/api/voice/my-numbers', { token: org.token, query: { search_value: '5550102' } });
    expect(mine.body.data[0].assigned_user_ids).toEqual([org.userId]);
  });
});

describe('the wallet', () => {
  it('is derived from the ledger; the operator tops up the organization it names, bounded, credited to nobody', async () => {
    const fresh = await signupOrganization('Wallet');
    expect(await wallet(fresh)).toMatchObject({
      balance: 0,
      held: 0,
      currency: 'USD',
      call_price_per_minute: 0.05,
      agent_call_max_minutes: 10,
    });
    const topped = await operatorTopUp({ organization_id: fresh.orgId, amount: 12.34, note: 'Invoice 7' });
    expect(topped.status, topped.text).toBe(200);
    expect(topped.body.data).toMatchObject({ organization_id: fresh.orgId, balance: 12.34, currency: 'USD' });
    expect((await wallet(fresh)).balance).toBe(12.34);
    for (const amount of [0, -5, 10_001, 1.234, 'ten']) {
      const response = await operatorTopUp({ organization_id: fresh.orgId, amount });
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code).toBe('amount');
    }
    for (const organization_id of [undefined, 0, -1, 'x', 1.5]) {
      const response = await operatorTopUp({ organization_id, amount: 5 });
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code).toBe('organization_id');
    }
    expectFailure(await operatorTopUp({ organization_id: 999_999_999, amount: 5 }), 404, 'not_found');
    const rows = await inOrganization(fresh.orgId, (tx) =>
      tx.select().from(voiceLedger).where(eq(voiceLedger.organizationId, fresh.orgId)),
    );
    expect(rows.map((row) => [row.kind, row.amountCents, row.note, row.createdBy])).toEqual([
      ['top_up', 1234, 'Invoice 7', null],
    ]);
  });

  it('is never funded by the organization itself: every tenant credential gets 403 operator_only, for its own wallet or another’s', async () => {
    const self = await signupOrganization('Self-funding');
    const otherBalance = (await wallet(other)).balance;
    for (const { label, options } of await tenantCredentials(self)) {
      for (const target of [self, other]) {
        const refused = await call('POST', '/api/voice/wallet/top-up', {
          ...options,
          body: { organization_id: target.orgId, amount: 100 },
        });
        expectFailure(refused, 403, 'forbidden');
        expect(refused.body.error.code, label).toBe('operator_only');
      }
      // Refused before the body is read: an invalid body is a 403 too, not a 422.
      const empty = await call('POST', '/api/voice/wallet/top-up', { ...options, body: {} });
      expect(empty.status, label).toBe(403);
    }
    const anonymous = await call('POST', '/api/voice/wallet/top-up', {
      body: { organization_id: self.orgId, amount: 1 },
    });
    expectFailure(anonymous, 401, 'unauthorized');
    expect(anonymous.body.error.code).toBe('operator_key_missing');
    // The operator key works as a bearer credential too.
    const asBearer = await call('POST', '/api/voice/wallet/top-up', {
      headers: { authorization: `Bearer ${operatorKey()}` },
      body: { organization_id: self.orgId, amount: 1 },
    });
    expect(asBearer.status, asBearer.text).toBe(200);
    expect((await wallet(self)).balance).toBe(1);
    expect((await wallet(other)).balance).toBe(otherBalance);
    const ledger = await inOrganization(self.orgId, (tx) =>
      tx.select().from(voiceLedger).where(eq(voiceLedger.organizationId, self.orgId)),
    );
    expect(ledger).toHaveLength(1);
  });

  it('has no top-up route when the deployment has no OPERATOR_API_KEY (or a short one): 404', async () => {
    for (const configured of [undefined, '', 'too-short']) {
      const answer = await statusWithOperatorKeyConfigured(
        '/api/voice/wallet/top-up',
        { organization_id: org.orgId, amount: 5 },
        configured,
      );
      expect(answer.status).toBe(404);
      expect(answer.body).toMatchObject({ success: false, error: { type: 'not_found' } });
    }
  });

  it('never goes negative under parallel purchases and calls', async () => {
    const tight = await signupOrganization('Tight');
    await topUp(tight, 2.5);
    const leadId = await leadWithPhone(tight, '+14155550142');
    // Each agent call holds 0.50, each number 1.15: 2.50 covers at most a few of these.
    const requests = [
      ...Array.from({ length: 4 }, (_, n) =>
        requestRecordingJobs('POST', '/api/voice/purchase-number', {
          token: tight.token,
          body: { phoneNumber: `+1415555011${n}` },
        }),
      ),
      ...Array.from({ length: 4 }, () =>
        requestRecordingJobs('POST', '/api/call/agent/initiate', {
          token: tight.token,
          body: { system_prompt: 'Hi', lead_id: leadId },
        }),
      ),
    ];
    const answers = await Promise.all(requests);
    const statuses = answers.map((answer) => answer.status);
    expect(
      statuses.every((status) => status === 202 || status === 402),
      JSON.stringify(statuses),
    ).toBe(true);
    expect(statuses.filter((status) => status === 402).length).toBeGreaterThan(0);
    const spent = answers.reduce((sum, answer, index) => sum + (answer.status === 202 ? (index < 4 ? 115 : 50) : 0), 0);
    const after = await wallet(tight);
    expect(after.balance).toBeGreaterThanOrEqual(0);
    expect(Math.round(after.balance * 100)).toBe(250 - spent);
  });
});

describe('calls', () => {
  let leadId: number;

  beforeAll(async () => {
    leadId = await leadWithPhone(org, '(415) 555-0142');
  });

  it('issues a local browser token of Twilio’s shape, within an hour', async () => {
    const response = await call('POST', '/api/call/voice-token', { token: org.token });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ provider: 'local', identity: `user_${org.orgId}_${org.userId}` });
    const [header, payload] = response.body.data.token
      .split('.')
      .slice(0, 2)
      .map((part: string) => JSON.parse(atob(part.replace(/-/g, '+').replace(/_/g, '/'))));
    expect(header).toMatchObject({ alg: 'HS256', cty: 'twilio-fpa;v=1' });
    expect(payload.exp - payload.iat).toBeLessThanOrEqual(3600);
    expect(payload.grants.identity).toBe(`user_${org.orgId}_${org.userId}`);
  });

  it('needs lead_id or contact_id, and a callable phone, naming the field', async () => {
    const none = await call('POST', '/api/call/agent/initiate', { token: org.token, body: { system_prompt: 'Hi' } });
    expectFailure(none, 422, 'validation_error');
    expect(none.body.error.code).toBe('lead_id');
    const noPhone = await leadWithPhone(org, null, 'Silent');
    const refused = await call('POST', '/api/call/agent/initiate', {
      token: org.token,
      body: { system_prompt: 'Hi', lead_id: noPhone },
    });
    expectFailure(refused, 422, 'validation_error');
    expect(refused.body.error.code).toBe('lead_id');
    expect(refused.body.error.message).toContain('phone_number');
    const theirs = await leadWithPhone(other, '+14155550143');
    expectFailure(
      await call('POST', '/api/call/agent/initiate', {
        token: org.token,
        body: { system_prompt: 'Hi', lead_id: theirs },
      }),
      404,
      'not_found',
    );
  });

  it('an agent call goes queued → completed with a transcript, a downloadable recording and a price', async () => {
    const before = await wallet(org);
    const queued = await requestRecordingJobs('POST', '/api/call/agent/initiate', {
      token: org.token,
      body: {
        system_prompt: 'Book a demo of Acme CRM.',
        lead_id: leadId,
        first_message: 'Hi Grace, Acme here.',
        language: 'en-US',
      },
    });
    expect(queued.status).toBe(202);
    expect(queued.body.data).toMatchObject({
      status: 'queued',
      direction: 'outbound',
      kind: 'agent',
      to_number: '+14155550142',
      from_number: '+14155550102',
      lead_id: leadId,
      price: null,
      has_recording: false,
    });
    const id = queued.body.data.id;
    expect((await wallet(org)).held).toBe(0.5);
    expectFailure(await call('GET', `/api/call/${id}/transcript`, { token: org.token }), 404, 'not_found');
    expectFailure(await call('GET', `/api/call/${id}/recording`, { token: org.token }), 404, 'not_found');

    const { deliverJobs } = await import('./helpers/mail');
    await deliverJobs(queued.sent);
    const done = await call('GET', `/api/call/${id}`, { token: org.token });
    expect(done.body.data).toMatchObject({
      status: 'completed',
      duration_sec: 45,
      price: 0.05,
      has_recording: true,
      provider: 'local',
    });
    expect(done.body.data.answered_at).not.toBeNull();
    expect(done.body.data.ended_at).not.toBeNull();

    const transcript = await call('GET', `/api/call/${id}/transcript`, { token: org.token });
    expect(transcript.body.data.turns[0]).toEqual({ speaker: 'agent', text: 'Hi Grace, Acme here.', at_sec: 0 });
    expect(JSON.stringify(transcript.body.data.turns)).toContain('Book a demo of Acme CRM.');

    const link = await call('GET', `/api/call/${id}/recording`, { token: org.token });
    expect(link.body.data.content_type).toBe('audio/wav');
    const audio = await fetchWorker(new Request(new URL(link.body.data.url, 'http://lead.test')));
    expect(audio.status).toBe(200);
    expect(audio.headers.get('content-type')).toBe('audio/wav');
    const bytes = new Uint8Array(await audio.arrayBuffer());
    expect(new TextDecoder().decode(bytes.slice(0, 4))).toBe('RIFF');
    const forged = `${link.body.data.url.slice(0, -3)}AAA`;
    expect((await fetchWorker(new Request(new URL(forged, 'http://lead.test')))).status).toBe(404);

    const after = await wallet(org);
    expect(after.held).toBe(0);
    expect(Math.round((before.balance - after.balance) * 100)).toBe(5);
    const feed = await feedOf(org, 'lead', leadId);
    expect(feed.some((entry: { action: string }) => entry.action === 'call_completed')).toBe(true);
    const signals = await inOrganization(org.orgId, (tx) =>
      tx
        .select()
        .from(intentSignals)
        .where(and(eq(intentSignals.organizationId, org.orgId), eq(intentSignals.leadId, leadId))),
    );
    expect(signals).toEqual([
      expect.objectContaining({ signalType: 'manual', source: 'call', dedupeKey: `call:${id}` }),
    ]);

    // A redelivered job changes nothing.
    await deliverJobs(queued.sent);
    expect((await wallet(org)).balance).toBe(after.balance);
  });

  it('lists calls by lead and status; another organization’s call is a 404', async () => {
    const id = await completedAgentCall(org, leadId);
    const listed = await call('GET', '/api/call/list', {
      token: org.token,
      query: { lead_id: leadId, status: 'completed,failed' },
    });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((row: { id: number }) => row.id)).toContain(id);
    const none = await call('GET', '/api/call/list', { token: org.token, query: { status: 'busy' } });
    expect(none.body.data).toEqual([]);
    expectFailure(
      await call('GET', '/api/call/list', { token: org.token, query: { status: 'done' } }),
      400,
      'bad_request',
    );
    for (const path of [`/api/call/${id}`, `/api/call/${id}/transcript`, `/api/call/${id}/recording`]) {
      expectFailure(await call('GET', path, { token: other.token }), 404, 'not_found');
    }
  });
});

describe('call recordings by their file id, and of a deleted lead’s or contact’s call', () => {
  it('downloads a recording by its stored file id too, as the audio/wav its link serves', async () => {
    await topUp(org, 1);
    const id = await completedAgentCall(org, await leadWithPhone(org, '+14155550142', 'Heard'));
    const [row] = await inOrganization(org.orgId, (tx) => tx.select().from(calls).where(eq(calls.id, id)));
    // `call` checks the answer against the route's declared content types.
    const byFileId = await call('GET', `/api/storage-file/download/${row.recordingFileId}`, { token: org.token });
    expect(byFileId.status).toBe(200);
    expect(byFileId.headers.get('content-type')).toBe('audio/wav');
    expect(byFileId.text.slice(0, 4)).toBe('RIFF');
    expectFailure(
      await call('GET', `/api/storage-file/download/${row.recordingFileId}`, { token: other.token }),
      404,
      'not_found',
    );
  });

  it('a deleted lead’s call recording is 404 on every path (the link, a link issued before, the file id) until the lead is restored', async () => {
    await topUp(org, 1);
    const lead = await leadWithPhone(org, '+14155550142', 'Deleted');
    const id = await completedAgentCall(org, lead);
    const [row] = await inOrganization(org.orgId, (tx) => tx.select().from(calls).where(eq(calls.id, id)));
    expect(row.recordingFileId).not.toBeNull();
    const byFileId = `/api/storage-file/download/${row.recordingFileId}`;
    const issued = await call('GET', `/api/call/${id}/recording`, { token: org.token });
    expect(issued.status, issued.text).toBe(200);
    const download = (url: string) => fetchWorker(new Request(new URL(url, 'http://lead.test')));
    expect((await download(issued.body.data.url)).status).toBe(200);
    expect((await call('GET', byFileId, { token: org.token })).status).toBe(200);

    await softDeleteLead(org, lead);
    expectFailure(await call('GET', `/api/call/${id}/recording`, { token: org.token }), 404, 'not_found');
    // A link handed out before the lead was deleted no longer plays it.
    expect((await download(issued.body.data.url)).status).toBe(404);
    expectFailure(await call('GET', byFileId, { token: org.token }), 404, 'not_found');

    await restoreLead(org, lead);
    const again = await call('GET', `/api/call/${id}/recording`, { token: org.token });
    expect(again.status, again.text).toBe(200);
    const audio = await download(again.body.data.url);
    expect(audio.status).toBe(200);
    expect(new TextDecoder().decode(new Uint8Array(await audio.arrayBuffer()).slice(0, 4))).toBe('RIFF');
    expect((await call('GET', byFileId, { token: org.token })).status).toBe(200);
  });

  it('a deleted contact’s call recording is 404 too', async () => {
    await topUp(org, 1);
    const contactId = await createContact(org, {
      company_id: await createCompany(org),
      email: uniqueEmail('ada'),
      phone_number: '+14155550142',
    });
    const placed = await withJobsRun('POST', '/api/call/agent/initiate', {
      token: org.token,
      body: { system_prompt: 'Book a demo.', contact_id: contactId },
    });
    expect(placed.status, placed.text).toBe(202);
    const id = placed.body.data.id;
    expect((await call('GET', `/api/call/${id}/recording`, { token: org.token })).status).toBe(200);
    const deleted = await call('DELETE', `/api/contact/delete/${contactId}`, { token: org.token });
    expect(deleted.status, deleted.text).toBe(200);
    expectFailure(await call('GET', `/api/call/${id}/recording`, { token: org.token }), 404, 'not_found');
  });
});

describe('provider webhooks', () => {
  const authToken = 'twilio-auth-token-0123456789';
  const secret = 'vapi-webhook-secret-0123456789';
  let twilioOrg: SignedUp;
  let callId: number;
  let voiceConnectionId: number;

  beforeAll(async () => {
    twilioOrg = await signupOrganization('Twilio');
    const connected = await connectTwilioWithVapi(twilioOrg, {
      accountSid: `AC${'a'.repeat(32)}`,
      authToken,
      vapiPhoneNumberId: 'pn-1',
      vapiWebhookSecret: secret,
    });
    expect(connected.status).toBe(200);
    expect(connected.body.data).toMatchObject({ provider: 'twilio', agent_calling: true, browser_calling: false });
    voiceConnectionId = connected.body.data.id;
    expect(connected.text).not.toContain(authToken);
    await topUp(twilioOrg, 5);
    const [row] = await inOrganization(twilioOrg.orgId, (tx) =>
      tx
        .insert(calls)
        .values({
          organizationId: twilioOrg.orgId,
          userId: twilioOrg.userId,
          direction: 'outbound',
          kind: 'agent',
          fromNumber: '+14155550100',
          toNumber: '+14155550142',
          provider: 'vapi',
          providerCallId: 'CA00000000000000000000000000000001',
          status: 'queued',
        })
        .returning(),
    );
    callId = row.id;
  });

  const statusOf = async () =>
    (await inOrganization(twilioOrg.orgId, (tx) => tx.select().from(calls).where(eq(calls.id, callId))))[0];

  async function twilioPost(params: Record<string, string>, signature?: string) {
    const path = `/api/v1/voice/twilio/${twilioOrg.orgId}`;
    const body = new URLSearchParams(params).toString();
    const sign = signature ?? (await twilioSignature(authToken, `http://lead.test${path}`, Object.entries(params)));
    return call('POST', path, {
      rawBody: body,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': sign },
    });
  }

  it('a forged or unsigned status callback is a 403 and changes nothing', async () => {
    const params = { CallSid: 'CA00000000000000000000000000000001', CallStatus: 'completed', CallDuration: '300' };
    const before = await statusOf();
    expectFailure(await twilioPost(params, 'bm90IGEgc2lnbmF0dXJl'), 403, 'forbidden');
    expectFailure(
      await call('POST', `/api/v1/voice/twilio/${twilioOrg.orgId}`, {
        rawBody: new URLSearchParams(params).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      403,
      'forbidden',
    );
    // Signed with another key.
    const path = `/api/v1/voice/twilio/${twilioOrg.orgId}`;
    expectFailure(
      await twilioPost(params, await twilioSignature('guessed', `http://lead.test${path}`, Object.entries(params))),
      403,
      'forbidden',
    );
    // Another organization without a Twilio connection.
    expectFailure(
      await call('POST', `/api/v1/voice/twilio/${org.orgId}`, {
        rawBody: 'CallSid=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': 'x' },
      }),
      403,
      'forbidden',
    );
    expect(await statusOf()).toEqual(before);
  });

  it('a signed status callback moves the call forward once; a replay changes nothing twice', async () => {
    expect((await twilioPost({ CallSid: 'CA00000000000000000000000000000001', CallStatus: 'ringing' })).status).toBe(
      200,
    );
    expect((await statusOf()).status).toBe('ringing');
    const ended = { CallSid: 'CA00000000000000000000000000000001', CallStatus: 'completed', CallDuration: '61' };
    expect((await twilioPost(ended)).body.data).toEqual({ handled: true });
    const done = await statusOf();
    expect(done).toMatchObject({ status: 'completed', durationSec: 61, priceCents: 10 });
    expect((await twilioPost(ended)).status).toBe(200);
    expect(
      (await twilioPost({ CallSid: 'CA00000000000000000000000000000001', CallStatus: 'in-progress' })).status,
    ).toBe(200);
    expect(await statusOf()).toEqual(done);
    const ledger = await inOrganization(twilioOrg.orgId, (tx) =>
      tx.select().from(voiceLedger).where(eq(voiceLedger.callId, callId)),
    );
    expect(ledger.map((row) => [row.kind, row.amountCents])).toEqual([['call_charge', -10]]);
  });

  /** An outbound agent call placed through Vapi, as the call routes record it. */
  async function insertVapiCall(providerCallId: string | null, more: Partial<typeof calls.$inferInsert> = {}) {
    const [row] = await inOrganization(twilioOrg.orgId, (tx) =>
      tx
        .insert(calls)
        .values({
          organizationId: twilioOrg.orgId,
          direction: 'outbound',
          kind: 'agent',
          fromNumber: '+14155550100',
          toNumber: '+14155550142',
          provider: 'vapi',
          providerCallId,
          ...more,
        })
        .returning(),
    );
    return row;
  }

  it('Vapi’s end-of-call report is taken only when signed, and once', async () => {
    const row = await insertVapiCall('vapi-call-1');
    const body = JSON.stringify({
      message: {
        type: 'end-of-call-report',
        endedReason: 'customer-ended-call',
        call: { id: 'vapi-call-1' },
        durationSeconds: 42,
        artifact: {
          messages: [{ role: 'bot', message: 'Hello from Acme', secondsFromStart: 0 }],
          recordingUrl: 'https://storage.vapi.ai/vapi-call-1.wav',
        },
      },
    });
    const path = `/api/v1/voice/vapi/${twilioOrg.orgId}`;
    const post = (signature: string) =>
      requestRecordingJobs('POST', path, {
        rawBody: body,
        headers: { 'content-type': 'application/json', 'x-vapi-signature': signature },
      });
    expectFailure(await post('0'.repeat(64)), 403, 'forbidden');
    const signature = await vapiSignature(secret, body);
    const taken = await post(signature);
    expect(taken.status).toBe(200);
    expect(taken.sent).toEqual([{ kind: 'voice', orgId: twilioOrg.orgId, jobId: expect.any(Number) }]);
    const replay = await post(signature);
    expect(replay.sent).toEqual([]);
    const [ended] = await inOrganization(twilioOrg.orgId, (tx) => tx.select().from(calls).where(eq(calls.id, row.id)));
    expect(ended).toMatchObject({
      status: 'completed',
      durationSec: 42,
      transcript: [{ speaker: 'agent', text: 'Hello from Acme', at_sec: 0 }],
    });
  });

  it('a Vapi call that never ran (an error ended reason) ends failed with the reason, charged nothing and not completed on the lead', async () => {
    const row = await insertVapiCall('vapi-call-error', { userId: twilioOrg.userId, status: 'queued' });
    const body = JSON.stringify({
      message: {
        type: 'end-of-call-report',
        endedReason: 'call.start.error-vapi-number-outbound-daily-limit',
        call: { id: 'vapi-call-error' },
        artifact: { messages: [] },
      },
    });
    const taken = await requestRecordingJobs('POST', `/api/v1/voice/vapi/${twilioOrg.orgId}`, {
      rawBody: body,
      headers: { 'content-type': 'application/json', 'x-vapi-signature': await vapiSignature(secret, body) },
    });
    expect(taken.status, taken.text).toBe(200);
    const [ended] = await inOrganization(twilioOrg.orgId, (tx) => tx.select().from(calls).where(eq(calls.id, row.id)));
    expect(ended).toMatchObject({
      status: 'failed',
      durationSec: 0,
      priceCents: 0,
      failureReason: 'Vapi ended the call: call.start.error-vapi-number-outbound-daily-limit',
    });
  });

  /** A queued Vapi agent call and its place_call job's message. */
  async function vapiCallJob() {
    const row = await insertVapiCall(null, {
      userId: twilioOrg.userId,
      status: 'queued',
      connectionId: voiceConnectionId,
      agent: { system_prompt: 'Book a demo.', first_message: null, voice_id: null, language: null },
    });
    const [job] = await inOrganization(twilioOrg.orgId, (tx) =>
      tx
        .insert(voiceJobs)
        .values({ organizationId: twilioOrg.orgId, action: 'place_call', callId: row.id })
        .returning({ id: voiceJobs.id }),
    );
    const message: JobMessage = { kind: 'voice', orgId: twilioOrg.orgId, jobId: job.id };
    const callRow = async () =>
      (await inOrganization(twilioOrg.orgId, (tx) => tx.select().from(calls).where(eq(calls.id, row.id))))[0];
    const jobRow = async () =>
      (await inOrganization(twilioOrg.orgId, (tx) => tx.select().from(voiceJobs).where(eq(voiceJobs.id, job.id))))[0];
    return { message, callRow, jobRow };
  }

  const tooManyRequests = () =>
    new Response(JSON.stringify({ message: 'Too Many Requests' }), {
      status: 429,
      headers: { 'content-type': 'application/json', 'retry-after': '20' },
    });

  it('a Vapi 429 on placing a call snoozes the job for its Retry-After (no queue retry spent), 7 times in a row; the next delivery places it', async () => {
    const { message, callRow, jobRow } = await vapiCallJob();
    const seen = mockFetch(
      [
        ...Array.from({ length: 7 }, tooManyRequests),
        new Response(JSON.stringify({ id: 'vapi-call-after-429', status: 'queued' }), {
          status: 201,
          headers: { 'content-type': 'application/json' },
        }),
      ],
      { only: (url) => url.startsWith('https://api.vapi.ai/'), exhausted: 'throw' },
    );
    // The message's sixth delivery: a queue retry now would dead-letter the job (max_retries 5).
    let delivered = await deliverJobs([message], 6);
    for (let throttle = 1; throttle <= 7; throttle++) {
      expect(seen).toHaveLength(throttle);
      expect(delivered.retryMessages).toEqual([]);
      expect(delivered.explicitAcks).toHaveLength(1);
      expect(delivered.sent).toEqual([{ body: message, delaySeconds: 20 }]);
      // Nothing was placed: the call still waits for its dial, free to be dialled by the next delivery.
      expect(await callRow()).toMatchObject({
        status: 'queued',
        startedAt: null,
        providerCallId: null,
        failureReason: null,
      });
      expect(await jobRow()).toMatchObject({ status: 'running', throttledSince: expect.any(Date) });
      delivered = await deliverJobs([delivered.sent[0].body]);
    }
    expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual(
      Array.from({ length: 8 }, () => 'POST https://api.vapi.ai/call'),
    );
    expect(delivered.explicitAcks).toHaveLength(1);
    expect(delivered.sent).toEqual([]);
    expect(await callRow()).toMatchObject({ status: 'queued', providerCallId: 'vapi-call-after-429' });
    expect((await jobRow()).status).toBe('completed');
    vi.restoreAllMocks();
  });

  it('a call Vapi keeps throttling for 24 hours fails with a reason that says so, its hold released', async () => {
    const { message, callRow, jobRow } = await vapiCallJob();
    mockFetch([tooManyRequests], { only: (url) => url.startsWith('https://api.vapi.ai/') });
    try {
      const snoozed = await deliverJobs([message]);
      expect(snoozed.sent).toEqual([{ body: message, delaySeconds: 20 }]);
      await inOrganization(twilioOrg.orgId, (tx) =>
        tx
          .update(voiceJobs)
          .set({ throttledSince: sql`now() - interval '24 hours' + interval '10 seconds'` })
          .where(eq(voiceJobs.id, message.jobId)),
      );
      const last = await deliverJobs([message]);
      expect(last.explicitAcks).toHaveLength(1);
      expect(last.retryMessages).toEqual([]);
      expect(last.sent).toEqual([]);
    } finally {
      vi.restoreAllMocks();
    }
    const reason =
      'vapi kept rate limiting this job for 24 hours without letting it go on, so it was stopped (last answer: vapi is unavailable (429 on agent call); try again later).';
    const ended = await jobRow();
    expect({ status: ended.status, error: ended.error }).toEqual({ status: 'failed', error: reason });
    expect(await callRow()).toMatchObject({ status: 'failed', failureReason: reason, reservedCents: 0 });
  });

  /**
   * A Vapi call whose Create Call answered 503 (it may have been placed): the delivery keeps the
   * dial claim and is retried; a retry while the claim is fresh waits it out (deferred, no retry
   * spent); once it has passed, the job asks List Calls (`lookup`) and answers with what it did.
   */
  async function vapiCallAfter503(lookup: (callId: number) => Response, redial?: () => Response) {
    const { message, callRow, jobRow } = await vapiCallJob();
    const callId = (await callRow()).id;
    const seen = mockFetch(
      [
        (request) => {
          if (request.method === 'GET') return lookup(callId);
          const posts = seen.filter((entry) => entry.method === 'POST').length;
          if (posts === 1) return json(503, { message: 'Service Unavailable' });
          if (!redial) throw new Error('dialled twice');
          return redial();
        },
      ],
      { only: (url) => url.startsWith('https://api.vapi.ai/') },
    );
    const failed = await deliverJobs([message]);
    expect(failed.retryMessages).toHaveLength(1);
    expect(failed.sent).toEqual([]);
    const claimed = await callRow();
    expect(claimed).toMatchObject({ status: 'queued', providerCallId: null, failureReason: null });
    expect(claimed.startedAt).toBeInstanceOf(Date);
    // The queue's retry comes while the claim is fresh: deferred until it has passed, nothing asked.
    const early = await deliverJobs([message], 2);
    expect(early.retryMessages).toEqual([]);
    expect(early.sent).toHaveLength(1);
    expect(early.sent[0].delaySeconds).toBeGreaterThan(60);
    expect(seen).toHaveLength(1);
    // The claim's lease (120 s) has passed.
    await inOrganization(twilioOrg.orgId, (tx) =>
      tx.update(calls).set({ startedAt: sql`now() - interval '121 seconds'` }).where(eq(calls.id, claimed.id)),
    );
    const startedAt = (await callRow()).startedAt as Date;
    const last = await deliverJobs([early.sent[0].body]);
    expect(last.retryMessages).toEqual([]);
    expect(last.sent).toEqual([]);
    const get = seen.find((entry) => entry.method === 'GET');
    expect(get && Object.fromEntries(new URL(get.url).searchParams)).toEqual({
      phoneNumberId: 'pn-1',
      createdAtGe: new Date(startedAt.getTime() - 5 * 60_000).toISOString(),
      limit: '100',
    });
    return { seen, call: await callRow(), job: await jobRow() };
  }

  const listedCall = (id: string, callId: number) => ({
    id,
    orgId: 'vapi-org',
    type: 'outboundPhoneCall',
    status: 'in-progress',
    createdAt: new Date().toISOString(),
    updatedAt: new Date().toISOString(),
    phoneNumberId: 'pn-1',
    customer: { number: '+14155550142' },
    assistant: { metadata: { call_id: callId } },
  });

  it('a Vapi 5xx on placing a call is retried; Vapi’s list shows it placed the call after all: recorded, never dialled twice', async () => {
    const { seen, call, job } = await vapiCallAfter503((callId) =>
      json(200, [listedCall('vapi-another-call', callId + 1000), listedCall('vapi-placed-despite-503', callId)]),
    );
    expect(seen.map((request) => request.method)).toEqual(['POST', 'GET']);
    expect(call).toMatchObject({ status: 'queued', providerCallId: 'vapi-placed-despite-503', failureReason: null });
    expect(job.status).toBe('completed');
    vi.restoreAllMocks();
  });

  it('a Vapi 5xx on placing a call is retried; Vapi’s list shows no such call: dialled again, once', async () => {
    const { seen, call, job } = await vapiCallAfter503(
      () => json(200, []),
      () => json(201, { id: 'vapi-call-after-503', status: 'queued' }),
    );
    expect(seen.map((request) => request.method)).toEqual(['POST', 'GET', 'POST']);
    expect(call).toMatchObject({ status: 'queued', providerCallId: 'vapi-call-after-503', failureReason: null });
    expect(job.status).toBe('completed');
    vi.restoreAllMocks();
  });

  /** A Vapi call ended by a signed report naming `recordingUrl`; its recording job delivered against `answer`. */
  async function vapiRecording(providerCallId: string, recordingUrl: string, answer: () => Response) {
    const row = await insertVapiCall(providerCallId, {
      userId: twilioOrg.userId,
      status: 'queued',
      connectionId: voiceConnectionId,
    });
    const body = JSON.stringify({
      message: {
        type: 'end-of-call-report',
        endedReason: 'customer-ended-call',
        call: { id: providerCallId },
        durationSeconds: 12,
        artifact: { messages: [], recordingUrl },
      },
    });
    const taken = await requestRecordingJobs('POST', `/api/v1/voice/vapi/${twilioOrg.orgId}`, {
      rawBody: body,
      headers: { 'content-type': 'application/json', 'x-vapi-signature': await vapiSignature(secret, body) },
    });
    expect(taken.status, taken.text).toBe(200);
    const host = new URL(recordingUrl).host;
    const seen = mockFetch([answer], { only: (url) => new URL(url).host === host });
    try {
      await deliverJobs(taken.sent);
      // A redelivery copies nothing twice and fetches nothing again.
      await deliverJobs(taken.sent);
    } finally {
      vi.restoreAllMocks();
    }
    const [job] = await inOrganization(twilioOrg.orgId, (tx) =>
      tx.select().from(voiceJobs).where(eq(voiceJobs.callId, row.id)),
    );
    return { id: row.id as number, seen, job };
  }

  it('copies a recording named by a report without sending the Vapi key to its host, and serves it as audio/wav', async () => {
    const wav = () => new Response(localRecording(), { status: 200, headers: { 'content-type': 'audio/x-wav' } });
    const { id, seen, job } = await vapiRecording(
      'vapi-call-elsewhere',
      'https://collector.attacker.example/rec.wav',
      wav,
    );
    expect(seen.map((request) => [request.url, request.authorization])).toEqual([
      ['https://collector.attacker.example/rec.wav', null],
    ]);
    expect(JSON.stringify([...seen[0].headers])).not.toContain('vapi-key');
    expect(job.status).toBe('completed');
    const link = await call('GET', `/api/call/${id}/recording`, { token: twilioOrg.token });
    expect(link.status, link.text).toBe(200);
    const audio = await fetchWorker(new Request(new URL(link.body.data.url, 'http://lead.test')));
    expect([audio.status, audio.headers.get('content-type'), audio.headers.get('x-content-type-options')]).toEqual([
      200,
      'audio/wav',
      'nosniff',
    ]);
  });

  it('sends the Vapi key to api.vapi.ai, Vapi’s own API', async () => {
    const wav = () => new Response(localRecording(), { status: 200, headers: { 'content-type': 'audio/wav' } });
    const { seen, job } = await vapiRecording(
      'vapi-call-private',
      'https://api.vapi.ai/call/vapi-call-private/mono-recording',
      wav,
    );
    expect(seen.map((request) => request.authorization)).toEqual(['Bearer vapi-key']);
    expect(job.status).toBe('completed');
  });

  it('refuses a recording that is not WAV audio: the job fails, nothing is stored or served', async () => {
    const html = () =>
      new Response('<html><script>alert(document.domain)</script></html>', {
        status: 200,
        headers: { 'content-type': 'text/html' },
      });
    const { id, seen, job } = await vapiRecording('vapi-call-html', 'https://files.example.net/rec', html);
    expect(seen).toHaveLength(1);
    expect(job).toMatchObject({ status: 'failed', error: expect.stringContaining('not WAV audio') });
    const [row] = await inOrganization(twilioOrg.orgId, (tx) => tx.select().from(calls).where(eq(calls.id, id)));
    expect(row.recordingFileId).toBeNull();
    expectFailure(await call('GET', `/api/call/${id}/recording`, { token: twilioOrg.token }), 404, 'not_found');
  });
});

describe('voice jobs that keep stopping', () => {
  it('the lease sweep fails them together: each number failed and refunded, each call failed and its hold released', async () => {
    await topUp(org, 10);
    const before = await wallet(org);
    const numbers = await Promise.all(
      ['+14155550171', '+14155550172'].map((phoneNumber) =>
        requestRecordingJobs('POST', '/api/voice/purchase-number', { token: org.token, body: { phoneNumber } }),
      ),
    );
    const leadId = await leadWithPhone(org, '(415) 555-0173');
    const placed = await requestRecordingJobs('POST', '/api/call/agent/initiate', {
      token: org.token,
      body: { system_prompt: 'Book a demo.', lead_id: leadId, first_message: 'Hi.', language: 'en-US' },
    });
    for (const response of [...numbers, placed]) expect(response.status, response.text).toBe(202);
    expect((await wallet(org)).held).toBeGreaterThan(before.held);
    const jobIds = [...numbers, placed].map((response) => (response.sent[0] as { jobId: number }).jobId);
    // Claimed, stopped after every re-send, the lease run out: the next sweep fails all three at once.
    await inOrganization(org.orgId, (tx) =>
      tx
        .update(voiceJobs)
        .set({ status: 'running', leaseResends: MAX_LEASE_RESENDS, leaseExpiresAt: sql`now() - interval '1 second'` })
        .where(inArray(voiceJobs.id, jobIds)),
    );
    const noQueue = { sendBatch: async () => {} } as unknown as Queue<JobMessage>;
    await withOwnDatabase(readConfig(env), (db) => sweepExpiredLeases(db, noQueue));

    const mine = await call('GET', '/api/voice/my-numbers', { token: org.token, query: { limit: 100 } });
    for (const response of numbers) {
      expect(mine.body.data.find((number: { id: number }) => number.id === response.body.data.id)).toMatchObject({
        status: 'failed',
        failure_reason: VOICE_REASONS.gaveUp,
      });
    }
    const [failedCall] = await inOrganization(org.orgId, (tx) =>
      tx.select().from(calls).where(eq(calls.id, placed.body.data.id)),
    );
    expect(failedCall).toMatchObject({
      status: 'failed',
      failureReason: VOICE_REASONS.gaveUp,
      durationSec: 0,
      priceCents: 0,
    });
    expect(failedCall.endedAt).toEqual(expect.any(Date));
    // Both purchases refunded and the call's hold released, once each.
    expect(await wallet(org)).toMatchObject({ balance: before.balance, held: before.held });
    const releases = await inOrganization(org.orgId, (tx) =>
      tx.select().from(voiceLedger).where(eq(voiceLedger.callId, placed.body.data.id)),
    );
    expect(releases.map((row) => row.kind).sort()).toEqual(['call_hold', 'call_release']);
  });
});
