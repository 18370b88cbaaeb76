/**
 * Outbound webhooks: endpoint management (admins only, the secret shown once and stored sealed,
 * event names and targets checked), events written in the transaction of the change, delivery
 * through the jobs queue signed per Standard Webhooks (verified here with the `standardwebhooks`
 * package, as a receiver would), one send per attempt however often a message is redelivered,
 * Svix's retry schedule, disabling after five days of failures with the admins told, the
 * delivery log, and replay with the same webhook-id. The receiver is a mocked `fetch`.
 */
import { createScheduledController } from 'cloudflare:test';
import { and, eq, sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { EVENT_TYPES } from '../src/core/event-types';
import { notifications, users, webhookDeliveries, webhookEndpoints } from '../src/db/schema';
import worker from '../src/index';
import { MAX_LEASE_RESENDS } from '../src/jobs/lease-sweep';
import type { JobMessage } from '../src/jobs/messages';
import { MAX_ATTEMPTS, RETRY_DELAYS_SECONDS, WEBHOOK_DEADLINE_SECONDS } from '../src/modules/webhooks/delivery-job';
import { recordEndpointFailure } from '../src/modules/webhooks/endpoint-health';
import { addMember, call, expectFailure, memberToken, signupOrganization, type SignedUp } from './helpers/api';
import { deliverJobs } from './cross-tenant/fixtures/jobs';
import { inOrganization } from './helpers/leads';
import { callRecording, recordingQueue } from './helpers/webhooks';

const RECEIVER = 'https://hooks.example.test';

interface Received {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** A receiver at RECEIVER answering `answer`; every other request goes out as before. */
function mockReceiver(answer: () => Response) {
  const received: Received[] = [];
  const original = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const request = new Request(input as RequestInfo, init);
    if (!request.url.startsWith(RECEIVER)) return original(input as RequestInfo, init);
    received.push({ url: request.url, headers: Object.fromEntries(request.headers), body: await request.text() });
    return answer();
  });
  return received;
}

afterEach(() => {
  vi.restoreAllMocks();
});

async function addEndpoint(owner: SignedUp, body: Record<string, unknown>) {
  const response = await call('POST', '/api/webhooks', {
    token: owner.token,
    body: { url: `${RECEIVER}/in`, ...body },
  });
  expect(response.status, response.text).toBe(201);
  return response.body.data as { id: number; secret: string };
}

function deliveryRow(owner: SignedUp, id: number) {
  return inOrganization(owner.orgId, async (tx) => {
    const [row] = await tx
      .select({
        status: webhookDeliveries.status,
        attempts: webhookDeliveries.attempts,
        messageId: webhookDeliveries.messageId,
        error: webhookDeliveries.error,
        dueIn: sql<number>`extract(epoch from ${webhookDeliveries.nextAttemptAt} - now())::float8`,
      })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, id));
    return row;
  });
}

/** Makes the delivery's next attempt due now (the schedule's waits are the clock's, not the test's). */
function makeDue(owner: SignedUp, id: number) {
  return inOrganization(owner.orgId, (tx) =>
    tx.update(webhookDeliveries).set({ nextAttemptAt: sql`now()` }).where(eq(webhookDeliveries.id, id)),
  );
}

/** The notices of type 7 (a webhook endpoint disabled) that the token's user has. */
async function disabledNotices(token: string) {
  const notices = await call('GET', '/api/notification/list', { token, query: { limit: 100 } });
  expect(notices.status, notices.text).toBe(200);
  return notices.body.data.filter((row: { type_id: number }) => row.type_id === 7);
}

let owner: SignedUp;
let intruder: SignedUp;

beforeAll(async () => {
  owner = await signupOrganization('Hooks');
  intruder = await signupOrganization('Hooks intruder');
});

describe('webhook endpoints', () => {
  it('are created with a whsec_ secret shown once and stored sealed, listed and viewed without it', async () => {
    const created = await addEndpoint(owner, { events: ['lead.created', 'deal.won'], description: 'CRM sync' });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(created).toMatchObject({ url: `${RECEIVER}/in`, events: ['lead.created', 'deal.won'], enabled: true });

    const viewed = await call('GET', `/api/webhooks/${created.id}`, { token: owner.token });
    expect(viewed.status).toBe(200);
    expect(viewed.body.data).not.toHaveProperty('secret');
    expect(viewed.text).not.toContain(created.secret);
    const listed = await call('GET', '/api/webhooks', { token: owner.token, query: { limit: 100 } });
    expect(listed.body.data.map((row: { id: number }) => row.id)).toContain(created.id);
    expect(listed.text).not.toContain(created.secret);

    const [stored] = await inOrganization(owner.orgId, (tx) =>
      tx
        .select({ sealed: webhookEndpoints.secretSealed })
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.id, created.id)),
    );
    expect(stored.sealed).not.toContain(created.secret.slice('whsec_'.length));
  });

  it('keep a create retried with its Idempotency-Key to one endpoint, its replayed secret stored sealed', async () => {
    const send = () =>
      call('POST', '/api/webhooks', {
        token: owner.token,
        headers: { 'idempotency-key': 'hook-create-1' },
        body: { url: `${RECEIVER}/retried`, events: ['lead.created'] },
      });
    const first = await send();
    expect(first.status, first.text).toBe(201);
    const secret = first.body.data.secret as string;
    // The client lost the answer and retries: the same endpoint and secret, created once.
    const retried = await send();
    expect(retried.status, retried.text).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.body.data).toMatchObject({ id: first.body.data.id, secret });
    // The stored answer is a secret at rest like the endpoint's own: sealed, never in clear text.
    const rows = await inOrganization(owner.orgId, (tx) =>
      tx.execute<{ body: string }>(sql`select body from idempotency_keys where key = 'hook-create-1'`),
    );
    expect(rows.rows).toHaveLength(1);
    expect(rows.rows[0].body).not.toContain(secret.slice('whsec_'.length));
  });

  it('answer a retried create whose stored answer no configured key opens with 409 idempotency_replay_unavailable, not a 500', async () => {
    const send = () =>
      call('POST', '/api/webhooks', {
        token: owner.token,
        headers: { 'idempotency-key': 'hook-create-rotated' },
        body: { url: `${RECEIVER}/rotated`, events: ['lead.created'] },
      });
    const first = await send();
    expect(first.status, first.text).toBe(201);
    // As if sealed under a key since removed from CREDENTIALS_KEY and CREDENTIALS_KEYS_PREVIOUS.
    await inOrganization(owner.orgId, (tx) =>
      tx.execute(
        sql`update idempotency_keys set body = 'v1.00000000000000ff.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA'
          where key = 'hook-create-rotated'`,
      ),
    );
    const retried = await send();
    expectFailure(retried, 409, 'conflict');
    expect(retried.body.error.code).toBe('idempotency_replay_unavailable');
  });

  it('refuse an unknown event name with a 422 listing the event names', async () => {
    const response = await call('POST', '/api/webhooks', {
      token: owner.token,
      body: { url: `${RECEIVER}/in`, events: ['lead.created', 'lead.exploded'] },
    });
    expectFailure(response, 422, 'validation_error');
    expect(response.body.error.code).toBe('events.1');
    for (const name of EVENT_TYPES) expect(response.body.error.message).toContain(name);
  });

  it.each([
    ['http://hooks.example.test/in', 'must be an https URL'],
    ['https://169.254.169.254/latest/meta-data', 'must not point at a linkLocal address'],
    ['https://localhost/in', 'must not point at localhost'],
    ['https://10.0.0.5/in', 'must not point at a private address'],
    ['https://hooks.example.test:8080/in', 'must use the standard port (443) unless the server allows another'],
  ])('refuse the target %s (server-side request forgery)', async (url, problem) => {
    const response = await call('POST', '/api/webhooks', {
      token: owner.token,
      body: { url, events: ['lead.created'] },
    });
    expectFailure(response, 422, 'validation_error');
    expect(response.body.error.details).toEqual([{ field: 'url', message: problem }]);
  });

  it('are changed, rotated (a new secret, once) and deleted; another organization’s are a 404', async () => {
    const created = await addEndpoint(owner, { events: ['lead.created'] });
    const patched = await call('PATCH', `/api/webhooks/${created.id}`, {
      token: owner.token,
      body: { events: ['deal.lost'], enabled: false, url: 'https://other.example.test/x' },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.data).toMatchObject({
      events: ['deal.lost'],
      enabled: false,
      url: 'https://other.example.test/x',
    });
    const badPatch = await call('PATCH', `/api/webhooks/${created.id}`, {
      token: owner.token,
      body: { url: 'https://127.0.0.1/x' },
    });
    expectFailure(badPatch, 422, 'validation_error');

    const rotated = await call('POST', `/api/webhooks/${created.id}/rotate-secret`, { token: owner.token });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.secret).not.toBe(created.secret);

    for (const [method, path] of [
      ['GET', `/api/webhooks/${created.id}`],
      ['PATCH', `/api/webhooks/${created.id}`],
      ['POST', `/api/webhooks/${created.id}/rotate-secret`],
      ['GET', `/api/webhooks/${created.id}/attempts`],
      ['DELETE', `/api/webhooks/${created.id}`],
    ]) {
      const response = await call(method, path, {
        token: intruder.token,
        body: method === 'PATCH' ? { enabled: true } : undefined,
      });
      expectFailure(response, 404, 'not_found');
    }

    const deleted = await call('DELETE', `/api/webhooks/${created.id}`, { token: owner.token });
    expect(deleted.status).toBe(200);
    expectFailure(await call('GET', `/api/webhooks/${created.id}`, { token: owner.token }), 404, 'not_found');
  });
});

describe('webhook delivery', () => {
  it('sends each event signed (verified with standardwebhooks), once per attempt however often the message is redelivered', async () => {
    const org = await signupOrganization('Hooks delivery');
    const endpoint = await addEndpoint(org, { events: ['lead.created', 'lead.assigned'] });
    const unsubscribed = await addEndpoint(org, { events: ['deal.won'] });
    const disabled = await addEndpoint(org, { events: ['lead.created'], enabled: false });

    const lead = await callRecording(org, 'POST', '/api/lead/add', {
      first_name: 'Hook',
      last_name: 'Receiver',
      email: 'hook.receiver@example.com',
      assigned_to: org.userId,
    });
    expect(lead.status).toBe(201);
    const messages = lead.sent.filter((message) => message.kind === 'webhook-delivery');
    expect(messages).toHaveLength(2);

    const received = mockReceiver(() => new Response('thanks', { status: 200 }));
    await deliverJobs(messages, 1, recordingQueue().bindings);
    await deliverJobs(messages, 2, recordingQueue().bindings);
    expect(received).toHaveLength(2);

    const verifier = new Webhook(endpoint.secret);
    const payloads = received.map((request) => {
      expect(request.url).toBe(`${RECEIVER}/in`);
      expect(request.headers['webhook-signature']).toMatch(/^v1,/);
      return verifier.verify(request.body, request.headers) as {
        type: string;
        timestamp: string;
        data: Record<string, unknown>;
      };
    });
    const byType = Object.fromEntries(payloads.map((payload) => [payload.type, payload]));
    expect(Object.keys(byType).sort()).toEqual(['lead.assigned', 'lead.created']);
    expect(byType['lead.created'].data).toMatchObject({
      lead_id: lead.body.data.id,
      first_name: 'Hook',
      last_name: 'Receiver',
      email: 'hook.receiver@example.com',
      assigned_to: org.userId,
    });
    expect(byType['lead.assigned'].data).toMatchObject({
      lead_id: lead.body.data.id,
      assigned_to: org.userId,
      assigned_by: org.userId,
    });
    expect(Date.parse(byType['lead.created'].timestamp)).not.toBeNaN();

    const log = await call('GET', `/api/webhooks/${endpoint.id}/attempts`, { token: org.token, query: { limit: 100 } });
    expect(log.status, log.text).toBe(200);
    expect(log.body.data).toHaveLength(2);
    for (const attempt of log.body.data) {
      expect(attempt).toMatchObject({ attempt: 1, status_code: 200, response_body: 'thanks', error: null });
      expect(received.map((request) => request.headers['webhook-id'])).toContain(attempt.message_id);
    }
    for (const other of [unsubscribed, disabled]) {
      const none = await call('GET', `/api/webhooks/${other.id}/attempts`, { token: org.token });
      expect(none.body.data).toEqual([]);
    }
  });

  it('retries a failing receiver on Svix’s schedule, then fails the delivery, and disables the endpoint after 5 days of failures with the admins told', async () => {
    const org = await signupOrganization('Hooks failing');
    const secondAdmin = await memberToken(org, 'admin');
    const rep = await memberToken(org, 'sales_rep');
    // An admin deactivated before the endpoint is disabled: not told (no one reads it).
    const formerAdmin = await addMember(org, { role: 'admin' });
    await inOrganization(org.orgId, (tx) =>
      tx.update(users).set({ stateId: 0 }).where(eq(users.id, formerAdmin.userId)),
    );
    const endpoint = await addEndpoint(org, { events: ['lead.created'] });
    const received = mockReceiver(() => new Response('x'.repeat(3000), { status: 503 }));

    const lead = await callRecording(org, 'POST', '/api/lead/add', { first_name: 'Fail', last_name: 'Often' });
    const [message] = lead.sent.filter((sent) => sent.kind === 'webhook-delivery');
    expect(message).toBeDefined();

    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const queue = recordingQueue();
      await deliverJobs([message], attempt, queue.bindings);
      expect(received).toHaveLength(attempt);
      const row = await deliveryRow(org, message.jobId);
      expect(row.attempts).toBe(attempt);
      if (attempt < MAX_ATTEMPTS) {
        const delay = RETRY_DELAYS_SECONDS[attempt - 1];
        expect(row.status).toBe('queued');
        expect(row.dueIn).toBeGreaterThan(delay - 30);
        expect(row.dueIn).toBeLessThanOrEqual(delay);
        // The next attempt's message leaves with the schedule's delay.
        expect(queue.sent).toEqual([{ body: message, delaySeconds: delay }]);
        // A redelivery before it is due sends nothing.
        await deliverJobs([message], attempt + 1, queue.bindings);
        expect(received).toHaveLength(attempt);
        await makeDue(org, message.jobId);
      } else {
        expect(row.status).toBe('failed');
        expect(row.error).toContain(`all ${MAX_ATTEMPTS} attempts failed`);
        expect(queue.sent).toEqual([]);
      }
    }
    // The same webhook-id on every attempt.
    expect(new Set(received.map((request) => request.headers['webhook-id'])).size).toBe(1);

    const log = await call('GET', `/api/webhooks/${endpoint.id}/attempts`, { token: org.token, query: { limit: 100 } });
    expect(log.body.data).toHaveLength(MAX_ATTEMPTS);
    for (const attempt of log.body.data) {
      expect(attempt.status_code).toBe(503);
      expect(attempt.response_body).toHaveLength(1024);
      expect(attempt.latency_ms).toBeGreaterThanOrEqual(0);
      expect(attempt.error).toBe('the receiver answered 503');
    }
    const failing = await call('GET', `/api/webhooks/${endpoint.id}`, { token: org.token });
    expect(failing.body.data.enabled).toBe(true);
    expect(failing.body.data.failing_since).not.toBeNull();

    // Five days of failures: the next failed attempt disables the endpoint and tells the admins.
    await inOrganization(org.orgId, (tx) =>
      tx
        .update(webhookEndpoints)
        .set({ failingSince: sql`now() - interval '5 days 1 minute'` })
        .where(eq(webhookEndpoints.id, endpoint.id)),
    );
    const second = await callRecording(org, 'POST', '/api/lead/add', { first_name: 'Last', last_name: 'Straw' });
    const third = await callRecording(org, 'POST', '/api/lead/add', { first_name: 'Never', last_name: 'Sent' });
    const [lastStraw] = second.sent;
    const [neverSent] = third.sent;
    await deliverJobs([lastStraw], 1, recordingQueue().bindings);
    const disabled = await call('GET', `/api/webhooks/${endpoint.id}`, { token: org.token });
    expect(disabled.body.data).toMatchObject({ enabled: false, disabled_reason: 'Every delivery failed for 5 days' });
    expect((await deliveryRow(org, neverSent.jobId)).status).toBe('cancelled');
    await deliverJobs([neverSent], 1, recordingQueue().bindings);
    expect(received).toHaveLength(MAX_ATTEMPTS + 1);

    // Every admin is told, once; the other roles are not.
    for (const token of [org.token, secondAdmin]) {
      const [notice, ...more] = await disabledNotices(token);
      expect(notice).toMatchObject({ title: `Webhook endpoint disabled: ${RECEIVER}/in` });
      expect(notice.data).toMatchObject({ webhook_id: endpoint.id });
      expect(more).toEqual([]);
    }
    expect(await disabledNotices(rep)).toEqual([]);
    const formerAdminNotices = await inOrganization(org.orgId, (tx) =>
      tx
        .select({ id: notifications.id })
        .from(notifications)
        .where(and(eq(notifications.userId, formerAdmin.userId), eq(notifications.typeId, 7))),
    );
    expect(formerAdminNotices).toEqual([]);

    // Once: a failure recorded after the endpoint is disabled (an attempt that was already under
    // way) notifies nobody again.
    expect(await inOrganization(org.orgId, (tx) => recordEndpointFailure(tx, org.orgId, endpoint.id))).toBe(false);
    expect(await disabledNotices(org.token)).toHaveLength(1);

    // A replay of a disabled endpoint's delivery is refused until it is enabled again.
    const refused = await call('POST', `/api/webhooks/deliveries/${lastStraw.jobId}/replay`, { token: org.token });
    expectFailure(refused, 409, 'conflict');
    expect(refused.body.error.code).toBe('webhook_disabled');
    const enabled = await call('PATCH', `/api/webhooks/${endpoint.id}`, { token: org.token, body: { enabled: true } });
    expect(enabled.body.data).toMatchObject({ enabled: true, failing_since: null, disabled_reason: null });
  });

  it('replays one delivery with the same webhook-id and payload; another organization’s delivery is a 404', async () => {
    const org = await signupOrganization('Hooks replay');
    const endpoint = await addEndpoint(org, { events: ['lead.created'] });
    const received = mockReceiver(() => new Response(null, { status: 204 }));
    const lead = await callRecording(org, 'POST', '/api/lead/add', { first_name: 'Play', last_name: 'Again' });
    const [message] = lead.sent;
    await deliverJobs([message], 1, recordingQueue().bindings);
    expect((await deliveryRow(org, message.jobId)).status).toBe('completed');

    expectFailure(
      await call('POST', `/api/webhooks/deliveries/${message.jobId}/replay`, { token: intruder.token }),
      404,
      'not_found',
    );
    const replay = await callRecording(org, 'POST', `/api/webhooks/deliveries/${message.jobId}/replay`);
    expect(replay.status).toBe(202);
    expect(replay.body.data).toMatchObject({ replay_of: message.jobId, status: 'queued' });
    expect(replay.sent).toEqual([{ kind: 'webhook-delivery', orgId: org.orgId, jobId: replay.body.data.id }]);
    await deliverJobs(replay.sent, 1, recordingQueue().bindings);

    expect(received).toHaveLength(2);
    expect(received[1].headers['webhook-id']).toBe(received[0].headers['webhook-id']);
    expect(replay.body.data.message_id).toBe(received[0].headers['webhook-id']);
    expect(received[1].body).toBe(received[0].body);
    new Webhook(endpoint.secret).verify(received[1].body, received[1].headers);
  });

  it('attempts again a delivery whose attempt stopped mid-way, once the lease sweep re-sends it', async () => {
    const org = await signupOrganization('Hooks stopped');
    await addEndpoint(org, { events: ['lead.created'] });
    const lead = await callRecording(org, 'POST', '/api/lead/add', { first_name: 'Stopped', last_name: 'Midway' });
    const [message] = lead.sent.filter((sent) => sent.kind === 'webhook-delivery');
    // An attempt claimed the delivery, then its isolate went away before it recorded anything.
    await inOrganization(org.orgId, (tx) =>
      tx
        .update(webhookDeliveries)
        .set({ status: 'running', attempts: 1, leaseExpiresAt: sql`now() - interval '1 second'` })
        .where(eq(webhookDeliveries.id, message.jobId)),
    );
    const received = mockReceiver(() => new Response('ok'));
    const cron = recordingQueue();
    await worker.scheduled(createScheduledController({ cron: '* * * * *' }), cron.bindings);
    const resent = cron.sent.map((sent) => sent.body).filter((body) => body.orgId === org.orgId);
    expect(resent).toEqual([message]);

    await deliverJobs(resent, 1, recordingQueue().bindings);
    expect(received).toHaveLength(1);
    expect(await deliveryRow(org, message.jobId)).toMatchObject({ status: 'completed', attempts: 2 });
  });

  it('drops an attempt whose endpoint is deleted while it runs: nothing recorded, no error logged', async () => {
    const org = await signupOrganization('Hooks deleted midway');
    const endpoint = await addEndpoint(org, { events: ['lead.created'] });
    const lead = await callRecording(org, 'POST', '/api/lead/add', { first_name: 'Deleted', last_name: 'Midway' });
    const [message] = lead.sent.filter((sent) => sent.kind === 'webhook-delivery');
    const original = globalThis.fetch;
    let received = 0;
    // The admin deletes the endpoint while its receiver is being called.
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const request = new Request(input as RequestInfo, init);
      if (!request.url.startsWith(RECEIVER)) return original(input as RequestInfo, init);
      received++;
      const deleted = await call('DELETE', `/api/webhooks/${endpoint.id}`, { token: org.token });
      expect(deleted.status, deleted.text).toBe(200);
      return new Response('ok');
    });
    const errors = vi.spyOn(console, 'error');
    const queue = recordingQueue();
    const result = await deliverJobs([message], 1, queue.bindings);
    expect(received).toBe(1);
    expect(errors.mock.calls.map((args) => String(args[0]))).toEqual([]);
    // Acknowledged, not retried: the delivery went with its endpoint.
    expect(result.explicitAcks).toHaveLength(1);
    expect(result.retryMessages).toEqual([]);
    expect(queue.sent).toEqual([]);
    expect(await deliveryRow(org, message.jobId)).toBeUndefined();
  });

  it('does not fail a delivery whose first message waits in a backed-up queue; the message and its re-sends send once', async () => {
    const org = await signupOrganization('Hooks backlog');
    await addEndpoint(org, { events: ['lead.created'] });
    const lead = await callRecording(org, 'POST', '/api/lead/add', { first_name: 'Waiting', last_name: 'Inline' });
    const [message] = lead.sent.filter((sent) => sent.kind === 'webhook-delivery');
    const resent: JobMessage[] = [];
    // The message waits in the queue: far more lease expiries than the stall budget.
    for (let expiry = 1; expiry <= MAX_LEASE_RESENDS + 2; expiry++) {
      await inOrganization(org.orgId, (tx) =>
        tx
          .update(webhookDeliveries)
          .set({ leaseExpiresAt: sql`now() - interval '1 second'` })
          .where(eq(webhookDeliveries.id, message.jobId)),
      );
      const cron = recordingQueue();
      await worker.scheduled(createScheduledController({ cron: '* * * * *' }), cron.bindings);
      resent.push(...cron.sent.map((sent) => sent.body).filter((body) => body.orgId === org.orgId));
      expect(await deliveryRow(org, message.jobId)).toMatchObject({ status: 'queued', attempts: 0, error: null });
    }
    expect(resent).toEqual(Array(MAX_LEASE_RESENDS + 2).fill(message));

    const received = mockReceiver(() => new Response('ok'));
    await deliverJobs([message, ...resent], 1, recordingQueue().bindings);
    expect(received).toHaveLength(1);
    expect(await deliveryRow(org, message.jobId)).toMatchObject({ status: 'completed', attempts: 1 });
  });

  it('fails a delivery never picked up within its retry window, saying so', async () => {
    const org = await signupOrganization('Hooks never');
    await addEndpoint(org, { events: ['lead.created'] });
    const lead = await callRecording(org, 'POST', '/api/lead/add', { first_name: 'Never', last_name: 'Picked' });
    const [message] = lead.sent.filter((sent) => sent.kind === 'webhook-delivery');
    const past = sql`now() - make_interval(secs => ${WEBHOOK_DEADLINE_SECONDS + 60})`;
    await inOrganization(org.orgId, (tx) =>
      tx
        .update(webhookDeliveries)
        .set({ createdAt: past, nextAttemptAt: past, leaseExpiresAt: sql`now() - interval '1 second'` })
        .where(eq(webhookDeliveries.id, message.jobId)),
    );
    const cron = recordingQueue();
    await worker.scheduled(createScheduledController({ cron: '* * * * *' }), cron.bindings);
    expect(cron.sent.filter((sent) => sent.body.orgId === org.orgId)).toEqual([]);
    const row = await deliveryRow(org, message.jobId);
    expect(row).toMatchObject({ status: 'failed', attempts: 0 });
    expect(row.error).toMatch(/never picked up/);
    const received = mockReceiver(() => new Response('ok'));
    await deliverJobs([message], 1, recordingQueue().bindings);
    expect(received).toHaveLength(0);
  });

  it('waits for a missing CREDENTIALS_KEY without using up attempts, sends once it is set, and fails with that reason after the retry window', async () => {
    const org = await signupOrganization('Hooks no key');
    await addEndpoint(org, { events: ['lead.created'] });
    const received = mockReceiver(() => new Response('ok'));
    const lead = await callRecording(org, 'POST', '/api/lead/add', { first_name: 'No', last_name: 'Key' });
    const [message] = lead.sent.filter((sent) => sent.kind === 'webhook-delivery');

    // The queue's deliveries up to its last retry: none is retried towards the dead-letter queue.
    for (const attempt of [1, 6]) {
      const keyless = recordingQueue();
      const result = await deliverJobs([message], attempt, { ...keyless.bindings, CREDENTIALS_KEY: undefined });
      expect(result.retryMessages).toEqual([]);
      expect(result.explicitAcks).toHaveLength(1);
      expect(keyless.sent).toEqual([{ body: message, delaySeconds: expect.any(Number) }]);
      expect(keyless.sent[0].delaySeconds).toBeGreaterThanOrEqual(60);
      const row = await deliveryRow(org, message.jobId);
      expect(row).toMatchObject({ status: 'queued', attempts: 0 });
      expect(row.error).toContain('CREDENTIALS_KEY');
      expect(row.dueIn).toBeGreaterThan(30);
      await makeDue(org, message.jobId);
    }
    expect(received).toHaveLength(0);
    // The operator sets the key: the next message sends the first attempt.
    await deliverJobs([message], 1, recordingQueue().bindings);
    expect(received).toHaveLength(1);
    expect(await deliveryRow(org, message.jobId)).toMatchObject({ status: 'completed', attempts: 1, error: null });

    // Still no key once the delivery's retry window has passed: it fails, saying why.
    const late = await callRecording(org, 'POST', '/api/lead/add', { first_name: 'Too', last_name: 'Late' });
    const [lateMessage] = late.sent.filter((sent) => sent.kind === 'webhook-delivery');
    await inOrganization(org.orgId, (tx) =>
      tx
        .update(webhookDeliveries)
        .set({ createdAt: sql`now() - make_interval(secs => ${WEBHOOK_DEADLINE_SECONDS + 60})` })
        .where(eq(webhookDeliveries.id, lateMessage.jobId)),
    );
    const keyless = recordingQueue();
    const result = await deliverJobs([lateMessage], 1, { ...keyless.bindings, CREDENTIALS_KEY: undefined });
    expect(result.explicitAcks).toHaveLength(1);
    expect(keyless.sent).toEqual([]);
    const failed = await deliveryRow(org, lateMessage.jobId);
    expect(failed).toMatchObject({ status: 'failed', attempts: 0 });
    expect(failed.error).toContain('CREDENTIALS_KEY');
    expect(failed.error).not.toContain('database');
    expect(received).toHaveLength(1);
  });

  it('holds a Teams channel delivery (its workflow URL sealed) while CREDENTIALS_KEY is missing, and posts it once the key is set', async () => {
    const org = await signupOrganization('Hooks chat no key');
    const subscribed = await call('POST', '/api/chat/subscriptions', {
      token: org.token,
      body: {
        provider: 'chat_b',
        channel: '19:local-general@thread.tacv2',
        team_id: 'local-team',
        events: ['lead.created'],
        workflow_url: 'https://prod-1.westeurope.logic.azure.com:443/workflows/a/triggers/manual/paths/invoke?sig=x',
      },
    });
    expect(subscribed.status, subscribed.text).toBe(201);
    const lead = await callRecording(org, 'POST', '/api/lead/add', { first_name: 'Teams', last_name: 'Keyless' });
    const [message] = lead.sent.filter((sent) => sent.kind === 'webhook-delivery');
    const keyless = recordingQueue();
    const result = await deliverJobs([message], 1, { ...keyless.bindings, CREDENTIALS_KEY: undefined });
    expect(result.explicitAcks).toHaveLength(1);
    expect(keyless.sent).toEqual([{ body: message, delaySeconds: expect.any(Number) }]);
    const waiting = await deliveryRow(org, message.jobId);
    expect(waiting).toMatchObject({ status: 'queued', attempts: 0 });
    expect(waiting.error).toContain('CREDENTIALS_KEY');
    await makeDue(org, message.jobId);
    await deliverJobs([message], 1, recordingQueue().bindings);
    expect(await deliveryRow(org, message.jobId)).toMatchObject({ status: 'completed', attempts: 1, error: null });
  });

  it('signs with the rotated secret from the next attempt on; previous_valid_hours=0 stops the old one at once', async () => {
    const org = await signupOrganization('Hooks rotate');
    const endpoint = await addEndpoint(org, { events: ['lead.created'] });
    const lead = await callRecording(org, 'POST', '/api/lead/add', { first_name: 'New', last_name: 'Key' });
    const rotated = await call('POST', `/api/webhooks/${endpoint.id}/rotate-secret?previous_valid_hours=0`, {
      token: org.token,
    });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.data.previous_secret_expires_at).toBeNull();
    const received = mockReceiver(() => new Response('ok'));
    await deliverJobs(lead.sent, 1, recordingQueue().bindings);
    expect(received).toHaveLength(1);
    new Webhook(rotated.body.data.secret).verify(received[0].body, received[0].headers);
    expect(() => new Webhook(endpoint.secret).verify(received[0].body, received[0].headers)).toThrow();
  });

  it('keeps the replaced secret signing beside the new one for 24 hours, so a receiver not yet switched accepts deliveries', async () => {
    const org = await signupOrganization('Hooks rotate grace');
    const endpoint = await addEndpoint(org, { events: ['lead.created'] });
    const first = await callRecording(org, 'POST', '/api/lead/add', { first_name: 'Grace', last_name: 'One' });
    const rotated = await call('POST', `/api/webhooks/${endpoint.id}/rotate-secret`, { token: org.token });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.text).not.toContain(endpoint.secret);
    const until = Date.parse(rotated.body.data.previous_secret_expires_at);
    expect(until - Date.now()).toBeGreaterThan(23.9 * 3600 * 1000);
    expect(until - Date.now()).toBeLessThanOrEqual(24 * 3600 * 1000);
    const received = mockReceiver(() => new Response('ok'));
    await deliverJobs(first.sent, 1, recordingQueue().bindings);
    expect(received).toHaveLength(1);
    // Two signatures, new secret first: either secret verifies.
    expect(received[0].headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    new Webhook(rotated.body.data.secret).verify(received[0].body, received[0].headers);
    new Webhook(endpoint.secret).verify(received[0].body, received[0].headers);

    // Once the grace period has passed, only the new secret signs.
    await inOrganization(org.orgId, (tx) =>
      tx
        .update(webhookEndpoints)
        .set({ previousSecretExpiresAt: sql`now() - interval '1 second'` })
        .where(eq(webhookEndpoints.id, endpoint.id)),
    );
    const second = await callRecording(org, 'POST', '/api/lead/add', { first_name: 'Grace', last_name: 'Two' });
    await deliverJobs(second.sent, 1, recordingQueue().bindings);
    expect(received).toHaveLength(2);
    expect(received[1].headers['webhook-signature']).not.toContain(' ');
    new Webhook(rotated.body.data.secret).verify(received[1].body, received[1].headers);
    expect(() => new Webhook(endpoint.secret).verify(received[1].body, received[1].headers)).toThrow();
  });

  it('refuses a grace period outside 0 to 168 hours, naming previous_valid_hours', async () => {
    const org = await signupOrganization('Hooks rotate bad');
    const endpoint = await addEndpoint(org, { events: ['lead.created'] });
    for (const hours of ['169', '-1', '1.5', 'soon']) {
      const response = await call('POST', `/api/webhooks/${endpoint.id}/rotate-secret?previous_valid_hours=${hours}`, {
        token: org.token,
      });
      expect(response.status, response.text).toBe(400);
      expect(response.text).toContain('previous_valid_hours');
    }
  });
});

describe('webhook events', () => {
  it('are written in the writing statement: a lead created with no endpoint writes no delivery', async () => {
    const org = await signupOrganization('Hooks none');
    const lead = await callRecording(org, 'POST', '/api/lead/add', { first_name: 'No', last_name: 'Hooks' });
    expect(lead.status).toBe(201);
    // Only the new lead's scoring job (Events rule 4) leaves with the request: no webhook delivery.
    expect(lead.sent).toEqual([{ kind: 'lead-scoring', orgId: org.orgId, jobId: expect.any(Number) }]);
    const rows = await inOrganization(org.orgId, (tx) =>
      tx
        .select()
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.organizationId, org.orgId))),
    );
    expect(rows).toEqual([]);
  });
});
