/**
 * A campaign of agent calls through Vapi, under our own pacing (calls per second): a call waiting
 * for its dialling turn is deferred to it without spending the queue's retries, so a campaign
 * larger than the retries allow still places every call, once, at or after its turn; and a
 * duplicated message never dials twice. Time is simulated: the queue here delivers each message
 * when it is due, and passing time moves the organization's stored times back by as much.
 */
import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import worker from '../src/index';
import { calls, voiceJobs, voiceLedger } from '../src/db/schema';
import type { JobMessage } from '../src/jobs/messages';
import { DEAD_LETTER_QUEUE } from '../src/jobs/runner';
import { REASONS } from '../src/modules/voice/voice-job';
import { signupOrganization, type SignedUp } from './helpers/api';
import { json, mockFetch } from './helpers/fetch-mock';
import { inOrganization } from './helpers/leads';
import { deliverJobs, requestRecordingJobs } from './helpers/mail';
import { activeTwilioNumber, connectTwilioWithVapi, leadWithPhone, topUp } from './helpers/voice';

let org: SignedUp;
let leadId: number;

beforeAll(async () => {
  org = await signupOrganization('Campaign');
  const connected = await connectTwilioWithVapi(org, {
    accountSid: `AC${'c'.repeat(32)}`,
    authToken: 'twilio-auth-token-campaign',
    vapiPhoneNumberId: 'pn-campaign',
    vapiWebhookSecret: 'vapi-webhook-secret-campaign',
  });
  expect(connected.status, connected.text).toBe(200);
  await topUp(org, 50);
  // The organization's Twilio number, bought before (the number the calls are made from).
  await activeTwilioNumber(org, connected.body.data.id, '+14155550177', `PN${'c'.repeat(32)}`);
  leadId = await leadWithPhone(org, '+14155550142');
});

afterEach(() => vi.restoreAllMocks());

let vapiIds = 0;
/** Vapi's Create Call answered with a fresh call id each time (vapi-campaign-N); the requests as Vapi saw them. */
function mockVapi() {
  return mockFetch([() => json(201, { id: `vapi-campaign-${++vapiIds}`, status: 'queued' })], {
    only: (url) => url.startsWith('https://api.vapi.ai/'),
  });
}

async function initiate(): Promise<{ id: number; sent: JobMessage[] }> {
  const response = await requestRecordingJobs('POST', '/api/call/agent/initiate', {
    token: org.token,
    body: { system_prompt: 'Book a demo of Acme CRM.', lead_id: leadId },
  });
  expect(response.status, response.text).toBe(202);
  return { id: response.body.data.id, sent: response.sent };
}

/** Time passes for the organization's calls and voice jobs: their stored times move back by `seconds`. */
async function passTime(seconds: number) {
  const by = sql`make_interval(secs => ${seconds})`;
  await inOrganization(org.orgId, async (tx) => {
    await tx.execute(sql`update calls set dial_after = dial_after - ${by}, started_at = started_at - ${by}
      where organization_id = ${org.orgId}`);
    await tx.execute(sql`update voice_jobs set created_at = created_at - ${by},
      lease_expires_at = lease_expires_at - ${by}, lease_resent_at = lease_resent_at - ${by}
      where organization_id = ${org.orgId}`);
  });
}

/** The dead-letter queue's consumer, as the queue hands it the messages it gave up on. */
async function deadLetter(messages: JobMessage[]) {
  if (messages.length === 0) return;
  const batch = createMessageBatch<JobMessage>(
    DEAD_LETTER_QUEUE,
    messages.map((body) => ({ id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch as MessageBatch<never>, env);
  await getQueueResult(batch, ctx);
}

/**
 * The jobs queue with `maxRetries`: each message delivered when due (those due together in
 * parallel, as concurrent consumers take them), a retry redelivered after its delay with one more
 * attempt until the budget is spent (then dead-lettered), a message the delivery sent delivered
 * after its delay as a fresh one. Runs until nothing is left; answers what it dead-lettered.
 */
async function runQueue(initial: JobMessage[], maxRetries: number) {
  let clock = 0;
  let pending = initial.map((body) => ({ body, attempts: 1, due: 0 }));
  const deadLettered: JobMessage[] = [];
  for (let round = 0; pending.length > 0; round++) {
    if (round > 200) throw new Error('the queue never drained');
    const next = Math.min(...pending.map((message) => message.due));
    if (next > clock) {
      await passTime(next - clock);
      clock = next;
    }
    const due = pending.filter((message) => message.due <= clock);
    pending = pending.filter((message) => message.due > clock);
    const results = await Promise.all(due.map((message) => deliverJobs([message.body], message.attempts)));
    results.forEach((result, index) => {
      const message = due[index];
      for (const sent of result.sent)
        pending.push({ body: sent.body, attempts: 1, due: clock + (sent.delaySeconds ?? 0) });
      if (result.retryMessages.length === 0) return;
      if (message.attempts > maxRetries) deadLettered.push(message.body);
      else
        pending.push({ body: message.body, attempts: message.attempts + 1, due: clock + (result.retryDelays[0] ?? 0) });
    });
  }
  await deadLetter(deadLettered);
  return deadLettered;
}

const callsOf = (ids: number[]) =>
  inOrganization(org.orgId, (tx) =>
    tx
      .select()
      .from(calls)
      .where(and(eq(calls.organizationId, org.orgId), inArray(calls.id, ids))),
  );
const jobsOf = (ids: number[]) =>
  inOrganization(org.orgId, (tx) =>
    tx
      .select()
      .from(voiceJobs)
      .where(and(eq(voiceJobs.organizationId, org.orgId), inArray(voiceJobs.callId, ids))),
  );

/** Calls in the campaign: at one a second, the last one's turn is 29 s after the first's. */
const CAMPAIGN = 30;

describe('a campaign under our own pacing', () => {
  it('places every call of a campaign longer than the queue’s retries, each once and at its turn; duplicated messages dial nothing twice', async () => {
    const seen = mockVapi();
    const queued: { id: number; sent: JobMessage[] }[] = [];
    for (let i = 0; i < CAMPAIGN; i++) queued.push(await initiate());
    const ids = queued.map((entry) => entry.id);
    const turns = (await callsOf(ids)).map((row) => row.dialAfter.getTime()).sort((a, b) => a - b);
    // One call a second: the last waits 29 turns, far more than the queue's 2 retries.
    expect(turns[turns.length - 1] - turns[0]).toBeGreaterThanOrEqual((CAMPAIGN - 1) * 1000);
    const messages = queued.flatMap((entry) => entry.sent);
    expect(messages).toHaveLength(CAMPAIGN);
    // At least once: the queue hands every message over twice.
    const deadLettered = await runQueue([...messages, ...messages], 2);

    expect(deadLettered).toEqual([]);
    const jobs = await jobsOf(ids);
    expect(jobs.map((job) => [job.status, job.error])).toEqual(ids.map(() => ['completed', null]));
    // Waiting for a turn is no throttle: nothing of the 24 h throttle budget was stamped.
    expect(jobs.map((job) => job.throttledSince)).toEqual(ids.map(() => null));
    const rows = await callsOf(ids);
    expect(rows.map((row) => [row.status, row.failureReason])).toEqual(ids.map(() => ['queued', null]));
    // Each call placed once: one Create Call per call, and each call holds its own Vapi id.
    expect(seen).toHaveLength(CAMPAIGN);
    expect(seen.map((request) => request.json.assistant.metadata.call_id).sort()).toEqual([...ids].sort());
    expect(new Set(rows.map((row) => row.providerCallId)).size).toBe(CAMPAIGN);
    expect(rows.every((row) => row.providerCallId?.startsWith('vapi-campaign-'))).toBe(true);
    // Never before its turn.
    for (const row of rows) expect(row.startedAt?.getTime()).toBeGreaterThanOrEqual(row.dialAfter.getTime() - 50);
  }, 120_000);

  it('a message delivered twice at once when the turn has come places the call once and keeps Vapi’s call id', async () => {
    const seen = mockVapi();
    const { id, sent } = await initiate();
    await inOrganization(org.orgId, (tx) =>
      tx
        .update(calls)
        .set({ dialAfter: new Date(Date.now() - 1000) })
        .where(and(eq(calls.organizationId, org.orgId), eq(calls.id, id))),
    );
    const [first, second] = await Promise.all([deliverJobs(sent), deliverJobs(sent)]);
    expect([...first.retryMessages, ...second.retryMessages]).toEqual([]);
    expect(seen).toHaveLength(1);
    const [row] = await callsOf([id]);
    expect({ status: row.status, providerCallId: row.providerCallId, failureReason: row.failureReason }).toEqual({
      status: 'queued',
      providerCallId: `vapi-campaign-${vapiIds}`,
      failureReason: null,
    });
    const [job] = await jobsOf([id]);
    expect(job.status).toBe('completed');
    // A third copy, later, changes nothing either.
    await deliverJobs(sent);
    expect(seen).toHaveLength(1);
  });

  it('a call whose turn is not within 24 hours of being queued fails with a reason that says so, its hold released', async () => {
    const seen = mockVapi();
    const { id, sent } = await initiate();
    await inOrganization(org.orgId, (tx) =>
      tx
        .update(calls)
        .set({ dialAfter: sql`now() + interval '24 hours' + interval '1 minute'` })
        .where(and(eq(calls.organizationId, org.orgId), eq(calls.id, id))),
    );
    const delivered = await deliverJobs(sent);
    expect(delivered.retryMessages).toEqual([]);
    expect(delivered.sent).toEqual([]);
    expect(seen).toEqual([]);
    const [job] = await jobsOf([id]);
    expect({ status: job.status, error: job.error }).toEqual({ status: 'failed', error: REASONS.turnNeverCame });
    const [row] = await callsOf([id]);
    expect({ status: row.status, failureReason: row.failureReason }).toEqual({
      status: 'failed',
      failureReason: REASONS.turnNeverCame,
    });
    const ledger = await inOrganization(org.orgId, (tx) =>
      tx
        .select()
        .from(voiceLedger)
        .where(and(eq(voiceLedger.organizationId, org.orgId), eq(voiceLedger.callId, id))),
    );
    expect(ledger.map((entry) => [entry.kind, entry.amountCents]).sort()).toEqual([
      ['call_hold', -50],
      ['call_release', 50],
    ]);
  });
});
