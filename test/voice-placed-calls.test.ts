/**
 * Agent calls Vapi placed although our job did not learn so in the usual way: Vapi's call id
 * already held by another call when the job records it, Vapi's end-of-call report arriving before
 * the job recorded the call, and the create answer lost on the queue's last attempt (asked at
 * once; given up when Vapi cannot be asked, then repaired by the report). Each keeps the call as
 * placed and settles its 0.50 hold once: released and the duration charged when the call ends.
 * Vapi is mocked only at `fetch`, with its documented wire format.
 */
import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { and, eq, sql } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import worker from '../src/index';
import { calls } from '../src/db/schema';
import { JOBS_MAX_RETRIES } from '../src/jobs/faults';
import type { JobMessage } from '../src/jobs/messages';
import { DEAD_LETTER_QUEUE } from '../src/jobs/runner';
import { callPriceCents } from '../src/modules/voice/pricing';
import { REASONS, voiceJobHandler } from '../src/modules/voice/voice-job';
import { vapiSignature } from '../src/providers/voice/vapi';
import { signupOrganization, type SignedUp } from './helpers/api';
import { json, mockFetch } from './helpers/fetch-mock';
import { inOrganization } from './helpers/leads';
import { deliverJobs, requestRecordingJobs } from './helpers/mail';
import {
  activeTwilioNumber,
  callRow,
  connectTwilioWithVapi,
  leadWithPhone,
  ledgerOf,
  setCall,
  topUp,
  voiceJobOf,
} from './helpers/voice';

const SECRET = 'vapi-webhook-secret-placed';
const LAST_ATTEMPT = JOBS_MAX_RETRIES + 1;

let org: SignedUp;
let leadId: number;

beforeAll(async () => {
  org = await signupOrganization('Placed calls');
  const connected = await connectTwilioWithVapi(org, {
    accountSid: `AC${'d'.repeat(32)}`,
    authToken: 'twilio-auth-token-placed',
    vapiPhoneNumberId: 'pn-placed',
    vapiWebhookSecret: SECRET,
  });
  expect(connected.status, connected.text).toBe(200);
  await topUp(org, 20);
  await activeTwilioNumber(org, connected.body.data.id, '+14155550188', `PN${'d'.repeat(32)}`);
  leadId = await leadWithPhone(org, '+14155550142');
});

afterEach(() => vi.restoreAllMocks());

/** An agent call queued through the route (0.50 held), its turn come; its job's message. */
async function queuedCall(): Promise<{ id: number; message: JobMessage }> {
  const response = await requestRecordingJobs('POST', '/api/call/agent/initiate', {
    token: org.token,
    body: { system_prompt: 'Book a demo of Acme CRM.', lead_id: leadId },
  });
  expect(response.status, response.text).toBe(202);
  const id = response.body.data.id as number;
  await setCall(org, id, { dialAfter: new Date(Date.now() - 1000) });
  expect(response.sent).toHaveLength(1);
  return { id, message: response.sent[0] };
}

/** A Vapi call as List Calls answers it: the transient assistant we sent carries our call id. */
const listedCall = (vapiId: string, callId: number) => ({
  id: vapiId,
  orgId: 'vapi-org',
  type: 'outboundPhoneCall',
  status: 'in-progress',
  createdAt: new Date().toISOString(),
  phoneNumberId: 'pn-placed',
  customer: { number: '+14155550142' },
  assistant: { metadata: { call_id: callId } },
});

/** Vapi's signed end-of-call report of a call that ran `seconds`, naming our call id in its assistant's metadata. */
async function postReport(vapiId: string, callId: number, seconds: number) {
  const body = JSON.stringify({
    message: {
      type: 'end-of-call-report',
      endedReason: 'customer-ended-call',
      call: {
        id: vapiId,
        type: 'outboundPhoneCall',
        phoneNumberId: 'pn-placed',
        customer: { number: '+14155550142' },
        assistant: { metadata: { call_id: callId } },
      },
      startedAt: new Date(Date.now() - seconds * 1000).toISOString(),
      endedAt: new Date().toISOString(),
      durationSeconds: seconds,
      artifact: { messages: [{ role: 'bot', message: 'Hi Grace, this is Acme.', secondsFromStart: 0.4 }] },
    },
  });
  const response = await requestRecordingJobs('POST', `/api/v1/voice/vapi/${org.orgId}`, {
    rawBody: body,
    headers: { 'content-type': 'application/json', 'x-vapi-signature': await vapiSignature(SECRET, body) },
  });
  expect(response.status, response.text).toBe(200);
  return response;
}

/** The dead-letter queue's consumer, as the queue hands it a message it gave up on. */
async function deadLetter(message: JobMessage) {
  const batch = createMessageBatch<JobMessage>(DEAD_LETTER_QUEUE, [
    { id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body: message },
  ]);
  const ctx = createExecutionContext();
  await worker.queue(batch as MessageBatch<never>, env);
  await getQueueResult(batch, ctx);
}

const vapiOnly = { only: (url: string) => url.startsWith('https://api.vapi.ai/') };

describe('a call Vapi placed', () => {
  it('is not failed by a database fault that passes while the job records it: the delivery is retried', () => {
    // As drizzle wraps a connection the server terminated (57P01) under a statement.
    const dropped = new Error('Failed query: update "calls" …', {
      cause: Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
    });
    expect(voiceJobHandler.retry.permanentReason(dropped)).toBeNull();
    expect(voiceJobHandler.retry.permanentReason(new Error('a fault of ours'))).toMatch(/^The voice job failed: /);
  });

  it('whose Vapi id another call already holds stays placed: not failed, its hold kept, the job completed; a redelivery dials nothing; its report settles it once', async () => {
    const { id, message } = await queuedCall();
    // Another call of the organization already holds the id Vapi answers (the unique key's clash).
    await inOrganization(org.orgId, (tx) =>
      tx.insert(calls).values({
        organizationId: org.orgId,
        direction: 'outbound',
        kind: 'agent',
        fromNumber: '+14155550188',
        toNumber: '+14155550199',
        provider: 'vapi',
        providerCallId: 'vapi-held-elsewhere',
        status: 'completed',
      }),
    );
    const seen = mockFetch([json(201, { id: 'vapi-held-elsewhere', status: 'queued' })], vapiOnly);
    const delivered = await deliverJobs([message]);
    expect(delivered.retryMessages).toEqual([]);
    expect(seen.map((request) => request.method)).toEqual(['POST']);
    const placed = await callRow(org, id);
    expect({
      status: placed.status,
      failureReason: placed.failureReason,
      providerCallId: placed.providerCallId,
    }).toEqual({ status: 'queued', failureReason: null, providerCallId: null });
    expect(placed.startedAt).toBeInstanceOf(Date);
    expect((await voiceJobOf(org, id)).status).toBe('completed');
    expect(await ledgerOf(org, id)).toEqual([['call_hold', -50]]);
    // Redelivered (a duplicated message): the job has ended; nothing is dialled or changed.
    expect((await deliverJobs([message])).retryMessages).toEqual([]);
    expect(seen).toHaveLength(1);
    expect((await callRow(org, id)).status).toBe('queued');
    // Its report names our call: it ends this call (the one holding the hold), once.
    await postReport('vapi-held-elsewhere', id, 61);
    await postReport('vapi-held-elsewhere', id, 61);
    expect(await callRow(org, id)).toMatchObject({
      status: 'completed',
      durationSec: 61,
      priceCents: callPriceCents(61),
    });
    expect(await ledgerOf(org, id)).toEqual([
      ['call_charge', -callPriceCents(61)],
      ['call_hold', -50],
      ['call_release', 50],
    ]);
  });

  it('whose report arrives before the job recorded its Vapi id: the report claims the call by our id and settles it; the job’s retry then dials nothing', async () => {
    const { id, message } = await queuedCall();
    // Create Call answers 503: Vapi may have placed it, so the claim is kept and the queue retries.
    const seen = mockFetch([json(503, { message: 'Service Unavailable' })], vapiOnly);
    const failed = await deliverJobs([message]);
    expect(failed.retryMessages).toHaveLength(1);
    expect(await callRow(org, id)).toMatchObject({ status: 'queued', providerCallId: null });
    // It was placed: its report comes first, naming our call id in the assistant's metadata.
    await postReport('vapi-report-first', id, 42);
    const ended = await callRow(org, id);
    expect(ended).toMatchObject({
      status: 'completed',
      providerCallId: 'vapi-report-first',
      durationSec: 42,
      priceCents: callPriceCents(42),
      failureReason: null,
    });
    expect(await ledgerOf(org, id)).toEqual([
      ['call_charge', -callPriceCents(42)],
      ['call_hold', -50],
      ['call_release', 50],
    ]);
    // The queue's retry, once the claim's lease has passed: the call has ended, the job finishes.
    await inOrganization(org.orgId, (tx) =>
      tx
        .update(calls)
        .set({ startedAt: sql`now() - interval '121 seconds'` })
        .where(and(eq(calls.organizationId, org.orgId), eq(calls.id, id))),
    );
    const retried = await deliverJobs([message], 2);
    expect(retried.retryMessages).toEqual([]);
    expect(seen.map((request) => request.method)).toEqual(['POST']);
    expect((await voiceJobOf(org, id)).status).toBe('completed');
    expect(await callRow(org, id)).toMatchObject({ status: 'completed', providerCallId: 'vapi-report-first' });
  });

  it('whose create answer is lost on the queue’s last attempt is looked up at once in List Calls and kept, not given up', async () => {
    const { id, message } = await queuedCall();
    const seen = mockFetch(
      [
        (request) =>
          request.method === 'POST'
            ? json(503, { message: 'Service Unavailable' })
            : json(200, [listedCall('vapi-last-attempt', id)]),
      ],
      vapiOnly,
    );
    const delivered = await deliverJobs([message], LAST_ATTEMPT);
    // A retry now would dead-letter the job: the queue gives the call up.
    if (delivered.retryMessages.length > 0) await deadLetter(message);
    expect(delivered.retryMessages).toEqual([]);
    expect(seen.map((request) => request.method)).toEqual(['POST', 'GET']);
    const listed = new URL(seen[1].url);
    expect(Object.fromEntries(listed.searchParams)).toMatchObject({ phoneNumberId: 'pn-placed', limit: '100' });
    expect(await callRow(org, id)).toMatchObject({
      status: 'queued',
      providerCallId: 'vapi-last-attempt',
      failureReason: null,
    });
    expect((await voiceJobOf(org, id)).status).toBe('completed');
    // The hold stays until the call ends.
    expect(await ledgerOf(org, id)).toEqual([['call_hold', -50]]);
  });

  it('given up on when Vapi cannot be asked on the last attempt either; its report, arriving after, repairs the call and charges it once', async () => {
    const { id, message } = await queuedCall();
    const seen = mockFetch([json(503, { message: 'Service Unavailable' })], vapiOnly);
    const delivered = await deliverJobs([message], LAST_ATTEMPT);
    expect(delivered.retryMessages).toHaveLength(1);
    expect(seen.map((request) => request.method)).toEqual(['POST', 'GET']);
    await deadLetter(message);
    expect(await callRow(org, id)).toMatchObject({
      status: 'failed',
      failureReason: REASONS.gaveUp,
      providerCallId: null,
    });
    expect(await ledgerOf(org, id)).toEqual([
      ['call_hold', -50],
      ['call_release', 50],
    ]);
    // Vapi had placed it: its report names our call and repairs it.
    const report = await postReport('vapi-after-give-up', id, 65);
    // A completed call of 30 s or more is engagement: the lead is rescored, as for any completed call.
    expect(report.sent.map((sent) => sent.kind)).toEqual(['lead-scoring']);
    const repaired = await callRow(org, id);
    expect(repaired).toMatchObject({
      status: 'completed',
      providerCallId: 'vapi-after-give-up',
      failureReason: null,
      durationSec: 65,
      priceCents: callPriceCents(65),
      transcript: [{ speaker: 'agent', text: 'Hi Grace, this is Acme.', at_sec: 0 }],
    });
    // A replayed report changes nothing twice.
    await postReport('vapi-after-give-up', id, 65);
    expect(await ledgerOf(org, id)).toEqual([
      ['call_charge', -callPriceCents(65)],
      ['call_hold', -50],
      ['call_release', 50],
    ]);
    expect((await callRow(org, id)).updatedAt).toEqual(repaired.updatedAt);
  });
});
