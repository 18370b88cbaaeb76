/**
 * Team chat behind the routes, with the local chat provider (no chat connection; the tests run
 * with LOCAL_PROVIDERS=true as `npm start` does): channel lists, test notifications that reach the
 * local provider and read back, the event_type rule (422 listing the events), Teams' Workflows URL
 * rule, channel subscriptions (CRUD, admins only, another organization's a 404), real events
 * posted to a subscribed channel through the same event deliveries as webhooks, and 409 when a
 * Worker without local providers has no chat connection.
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../src/core/event-types';
import { webhookDeliveries } from '../src/db/schema';
import worker from '../src/index';
import { call, expectFailure, randomIp, signupOrganization, type SignedUp } from './helpers/api';
import { deliverJobs } from './cross-tenant/fixtures/jobs';
import { inOrganization } from './helpers/leads';
import { callRecording } from './helpers/webhooks';

let org: SignedUp;
let other: SignedUp;

beforeAll(async () => {
  org = await signupOrganization('Chat');
  other = await signupOrganization('Chat other');
});

async function localMessages(owner: SignedUp) {
  const response = await call('GET', '/api/chat/local-messages?limit=100', { token: owner.token });
  expect(response.status, response.text).toBe(200);
  return response.body.data as {
    channel: string;
    event_type: string;
    is_test: boolean;
    text: string;
    message: Record<string, any>;
  }[];
}

describe('team chat with the local provider', () => {
  it('lists the local Slack and Teams channels', async () => {
    const slack = await call('GET', '/api/chat_a/channels', { token: org.token });
    expect(slack.status, slack.text).toBe(200);
    expect(slack.body.data.map((channel: { name: string }) => channel.name)).toEqual(['general', 'sales', 'deal-desk']);
    expect(slack.body).toMatchObject({ total: 3, page: 1, next_cursor: null });
    const teams = await call('GET', '/api/chat_b/channels?team_id=local-team', { token: org.token });
    expect(teams.body.data.map((channel: { name: string }) => channel.name)).toEqual(['General', 'Sales']);
    const unknownTeam = await call('GET', '/api/chat_b/channels?team_id=another-team', { token: org.token });
    expect(unknownTeam.body.data).toEqual([]);
  });

  it('filters the channel lists by search_value, on the name in any letter case', async () => {
    const slack = await call('GET', '/api/chat_a/channels?search_value=SAL', { token: org.token });
    expect(slack.status, slack.text).toBe(200);
    expect(slack.body.data.map((channel: { name: string }) => channel.name)).toEqual(['sales']);
    expect(slack.body).toMatchObject({ total: 1, page: 1, next_cursor: null });
    const teams = await call('GET', '/api/chat_b/channels?team_id=local-team&search_value=gen', { token: org.token });
    expect(teams.status, teams.text).toBe(200);
    expect(teams.body.data.map((channel: { name: string }) => channel.name)).toEqual(['General']);
    expect(teams.body.total).toBe(1);
    const none = await call('GET', '/api/chat_a/channels?search_value=nothing-like-it', { token: org.token });
    expect(none.body).toMatchObject({ data: [], total: 0 });
    const tooLong = await call('GET', `/api/chat_a/channels?search_value=${'x'.repeat(201)}`, { token: org.token });
    expect(tooLong.status, tooLong.text).toBe(400);
    expect(tooLong.text).toContain('search_value');
  });

  it('posts a test notification that the local provider records and the route reads back', async () => {
    const posted = await call('POST', '/api/chat_a/test-notification', {
      token: org.token,
      body: { channel: 'CLOCAL0002', event_type: 'deal.won' },
    });
    expect(posted.status, posted.text).toBe(200);
    expect(posted.body.data).toMatchObject({
      provider: 'chat_a',
      local: true,
      channel: 'CLOCAL0002',
      event_type: 'deal.won',
    });
    expect(posted.body.data.message_id).toMatch(/^local-\d+$/);
    const byDefault = await call('POST', '/api/chat_b/test-notification', {
      token: org.token,
      body: { channel: '19:local-sales@thread.tacv2' },
    });
    expect(byDefault.status, byDefault.text).toBe(200);
    expect(byDefault.body.data.event_type).toBe('lead.created');

    const messages = await localMessages(org);
    const slack = messages.find((row) => row.channel === 'CLOCAL0002');
    expect(slack).toMatchObject({ event_type: 'deal.won', is_test: true });
    expect(slack?.text).toMatch(/^\[Test\] Deal won: /);
    expect(slack?.message.channel).toBe('CLOCAL0002');
    const teams = messages.find((row) => row.channel === '19:local-sales@thread.tacv2');
    expect(teams?.message.attachments[0].contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(await localMessages(other)).toEqual([]);
  });

  it('answers a Slack channel it does not have as Slack does: a test notification is a 404, an event’s delivery fails', async () => {
    // Locally a wrong channel id used to "post" fine, and only Slack itself said channel_not_found.
    const test = await call('POST', '/api/chat_a/test-notification', {
      token: org.token,
      body: { channel: 'CNOSUCH01', event_type: 'deal.won' },
    });
    expectFailure(test, 404, 'not_found');
    expect((await localMessages(org)).map((message) => message.channel)).not.toContain('CNOSUCH01');

    const owner = await signupOrganization('Chat wrong channel');
    const subscribed = await call('POST', '/api/chat/subscriptions', {
      token: owner.token,
      body: { provider: 'chat_a', channel: 'CNOSUCH02', events: ['lead.created'] },
    });
    expect(subscribed.status, subscribed.text).toBe(201);
    const lead = await callRecording(owner, 'POST', '/api/lead/add', { first_name: 'Lost', last_name: 'Post' });
    await deliverJobs(lead.sent.filter((message) => message.kind === 'webhook-delivery'));
    const viewed = await call('GET', `/api/chat/subscriptions/${subscribed.body.data.id}`, { token: owner.token });
    expect(viewed.body.data.last_delivery).toMatchObject({ status: 'failed' });
    expect(viewed.body.data.last_delivery.error).toContain('Slack has no such channel');
    expect(await localMessages(owner)).toEqual([]);
  });

  it('refuses an unknown event_type (test notifications, subscriptions) with 422 listing the events, and a missing channel naming it', async () => {
    const unknown = await call('POST', '/api/chat_a/test-notification', {
      token: org.token,
      body: { channel: 'CLOCAL0001', event_type: 'lead.exploded' },
    });
    expectFailure(unknown, 422, 'validation_error');
    expect(unknown.body.error.code).toBe('event_type');
    for (const type of EVENT_TYPES) expect(unknown.body.error.message).toContain(type);
    const teams = await call('POST', '/api/chat_b/test-notification', {
      token: org.token,
      body: { channel: '19:local-sales@thread.tacv2', event_type: 'lead.exploded' },
    });
    expectFailure(teams, 422, 'validation_error');
    expect(teams.body.error.code).toBe('event_type');
    const subscription = await call('POST', '/api/chat/subscriptions', {
      token: org.token,
      body: { provider: 'chat_a', channel: 'CLOCAL0001', events: ['deal.won', 'lead.exploded'] },
    });
    expectFailure(subscription, 422, 'validation_error');
    expect(subscription.body.error.code).toBe('events.1');
    for (const type of EVENT_TYPES) expect(subscription.body.error.message).toContain(type);
    const missing = await call('POST', '/api/chat_a/test-notification', { token: org.token, body: {} });
    expectFailure(missing, 422, 'validation_error');
    expect(missing.body.error.code).toBe('channel');
  });

  it('answers 409 chat_not_connected on a Worker without local providers and without a connection', async () => {
    const ctx = createExecutionContext();
    const response = await worker.fetch(
      new Request('http://lead.test/api/chat_a/channels', {
        headers: { authorization: `Bearer ${org.token}`, 'cf-connecting-ip': randomIp() },
      }) as Request<unknown, IncomingRequestCfProperties>,
      { ...env, LOCAL_PROVIDERS: undefined },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(response.status).toBe(409);
    const body = (await response.json()) as { error: { code: string; details: unknown } };
    expect(body.error).toMatchObject({ code: 'chat_not_connected', details: { provider: 'chat_a' } });
  });
});

describe('chat channel subscriptions', () => {
  let slackSubscription: number;

  it('are created, listed, changed and deleted by admins; one per channel; another organization’s are a 404', async () => {
    const created = await call('POST', '/api/chat/subscriptions', {
      token: org.token,
      body: { provider: 'chat_a', channel: 'CLOCAL0002', channel_name: 'sales', events: ['lead.created', 'deal.won'] },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data).toMatchObject({
      provider: 'chat_a',
      channel: 'CLOCAL0002',
      events: ['lead.created', 'deal.won'],
      enabled: true,
      has_workflow_url: false,
      connection_id: null,
    });
    slackSubscription = created.body.data.id;
    const duplicate = await call('POST', '/api/chat/subscriptions', {
      token: org.token,
      body: { provider: 'chat_a', channel: 'CLOCAL0002', events: ['intent.hot'] },
    });
    expectFailure(duplicate, 409, 'conflict');
    expect(duplicate.body.error.code).toBe('duplicate_subscription');

    const listed = await call('GET', '/api/chat/subscriptions', { token: org.token });
    expect(listed.body.data.map((row: { id: number }) => row.id)).toEqual([slackSubscription]);
    const changed = await call('PATCH', `/api/chat/subscriptions/${slackSubscription}`, {
      token: org.token,
      body: { events: ['lead.created'] },
    });
    expect(changed.body.data.events).toEqual(['lead.created']);
    const slackUrl = await call('PATCH', `/api/chat/subscriptions/${slackSubscription}`, {
      token: org.token,
      body: { workflow_url: 'https://prod-1.westeurope.logic.azure.com/workflows/a' },
    });
    expectFailure(slackUrl, 422, 'validation_error');

    for (const [method, path] of [
      ['GET', `/api/chat/subscriptions/${slackSubscription}`],
      ['PATCH', `/api/chat/subscriptions/${slackSubscription}`],
      ['DELETE', `/api/chat/subscriptions/${slackSubscription}`],
    ] as const) {
      const foreign = await call(method, path, {
        token: other.token,
        body: method === 'PATCH' ? { enabled: false } : undefined,
      });
      expectFailure(foreign, 404, 'not_found');
    }

    const teams = await call('POST', '/api/chat/subscriptions', {
      token: org.token,
      body: {
        provider: 'chat_b',
        channel: '19:local-general@thread.tacv2',
        team_id: 'local-team',
        events: ['deal.lost'],
        workflow_url: 'https://prod-1.westeurope.logic.azure.com:443/workflows/a/triggers/manual/paths/invoke?sig=x',
      },
    });
    expect(teams.status, teams.text).toBe(201);
    expect(teams.body.data.has_workflow_url).toBe(true);
    expect(teams.text).not.toContain('sig=x');
    const badUrl = await call('POST', '/api/chat/subscriptions', {
      token: org.token,
      body: {
        provider: 'chat_b',
        channel: '19:x@thread.tacv2',
        events: ['deal.lost'],
        workflow_url: 'https://10.0.0.1/hook',
      },
    });
    expectFailure(badUrl, 422, 'validation_error');
    expect(badUrl.body.error.code).toBe('workflow_url');
    const deleted = await call('DELETE', `/api/chat/subscriptions/${teams.body.data.id}`, { token: org.token });
    expect(deleted.status).toBe(200);
  });

  it('get the organization’s real events posted through the event deliveries, only those subscribed', async () => {
    const lead = await callRecording(org, 'POST', '/api/lead/add', {
      first_name: 'Chatty',
      last_name: 'Lead',
      email: 'chatty@example.com',
    });
    expect(lead.status).toBe(201);
    const [delivery] = await inOrganization(org.orgId, (tx) =>
      tx
        .select()
        .from(webhookDeliveries)
        .where(
          and(
            eq(webhookDeliveries.chatSubscriptionId, slackSubscription),
            eq(webhookDeliveries.eventType, 'lead.created'),
          ),
        ),
    );
    expect(delivery).toMatchObject({ endpointId: null, status: 'queued' });
    expect(lead.sent).toContainEqual({ kind: 'webhook-delivery', orgId: org.orgId, jobId: delivery.id });

    await deliverJobs(lead.sent);
    await deliverJobs(lead.sent);
    const posted = (await localMessages(org)).filter((row) => row.channel === 'CLOCAL0002' && !row.is_test);
    expect(posted).toHaveLength(1);
    expect(posted[0]).toMatchObject({ event_type: 'lead.created' });
    expect(posted[0].text).toContain('New lead: Chatty Lead');
    expect(posted[0].text).toContain('chatty@example.com');
    const [done] = await inOrganization(org.orgId, (tx) =>
      tx.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, delivery.id)),
    );
    expect(done.status).toBe('completed');

    // Not subscribed to lead.assigned (nor disabled channels): nothing written for it.
    const assigned = await inOrganization(org.orgId, (tx) =>
      tx
        .select()
        .from(webhookDeliveries)
        .where(
          and(
            eq(webhookDeliveries.chatSubscriptionId, slackSubscription),
            eq(webhookDeliveries.eventType, 'lead.assigned'),
          ),
        ),
    );
    expect(assigned).toEqual([]);
  });
});
