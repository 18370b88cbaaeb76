/**
 * The Slack (chat_a) and Teams (chat_b) adapters against their documented wire formats, with the
 * network mocked at fetch: the exact requests (URL, method, Authorization, body) and documented
 * answers replayed, cursor paging, `ok: false` error codes and 429 with Retry-After included. Then
 * the routes over a Slack connection made through connected apps: channels and a test notification through the bot token,
 * throttling as 503 with Slack's Retry-After, a revoked token as 409 with the connection marked.
 */
import { and, eq, sql } from 'drizzle-orm';
import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { connections, webhookDeliveries } from '../src/db/schema';
import type { ChatMessage } from '../src/providers/chat/interface';
import { slackWorkspace } from '../src/providers/chat/slack';
import { adaptiveCardMessage, teamsWorkspace, workflowUrlProblem } from '../src/providers/chat/teams';
import { openCredentials, sealCredentials } from '../src/providers/connections';
import { ProviderFailure } from '../src/providers/failures';
import { signupOrganization, type SignedUp } from './helpers/api';
import { inOrganization } from './helpers/leads';
import { deliverJobs, requestRecordingJobs } from './helpers/mail';
import { json, mockFetch } from './helpers/fetch-mock';
import { recordingQueue } from './helpers/webhooks';

const message: ChatMessage = {
  eventType: 'deal.won',
  title: 'Deal won: <Big> & co',
  facts: [{ label: 'Value', value: '5000' }],
  test: false,
};

async function failureOf(promise: Promise<unknown>): Promise<ProviderFailure> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ProviderFailure);
  return error as ProviderFailure;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('Slack (chat_a) adapter', () => {
  const slack = slackWorkspace(async () => 'xoxb-bot-token');

  it('lists channels with conversations.list, following response_metadata.next_cursor until it is empty', async () => {
    const seen = mockFetch([
      json(200, {
        ok: true,
        channels: [{ id: 'C012AB3CD', name: 'general', is_channel: true, is_private: false, is_member: true }],
        response_metadata: { next_cursor: 'dGVhbTpDMDYxRkE1UEI=' },
      }),
      json(200, {
        ok: true,
        channels: [{ id: 'G0AKFJBEU', name: 'deal-desk', is_channel: true, is_private: true }],
        response_metadata: { next_cursor: '' },
      }),
    ]);
    expect(await slack.listChannels({})).toEqual([
      { id: 'C012AB3CD', name: 'general', team_id: null, is_private: false },
      { id: 'G0AKFJBEU', name: 'deal-desk', team_id: null, is_private: true },
    ]);
    expect(seen.map((request) => [request.method, request.url, request.authorization])).toEqual([
      [
        'GET',
        'https://slack.com/api/conversations.list?types=public_channel%2Cprivate_channel&exclude_archived=true&limit=200',
        'Bearer xoxb-bot-token',
      ],
      [
        'GET',
        'https://slack.com/api/conversations.list?types=public_channel%2Cprivate_channel&exclude_archived=true&limit=200&cursor=dGVhbTpDMDYxRkE1UEI%3D',
        'Bearer xoxb-bot-token',
      ],
    ]);
  });

  it('posts with chat.postMessage as JSON (text fallback and Block Kit, mrkdwn escaped) and answers the ts', async () => {
    const seen = mockFetch([
      json(200, { ok: true, channel: 'C123ABC456', ts: '1503435956.000247', message: { text: 'x' } }),
    ]);
    expect(await slack.post({ channelId: 'C123ABC456' }, message)).toEqual({ messageId: '1503435956.000247' });
    expect(seen[0]).toMatchObject({
      method: 'POST',
      url: 'https://slack.com/api/chat.postMessage',
      authorization: 'Bearer xoxb-bot-token',
      contentType: 'application/json; charset=utf-8',
    });
    const body = JSON.parse(seen[0].body);
    expect(body.channel).toBe('C123ABC456');
    expect(body.text).toBe('Deal won: &lt;Big&gt; &amp; co\nValue: 5000');
    expect(body.blocks[0]).toEqual({
      type: 'section',
      text: { type: 'mrkdwn', text: '*Deal won: &lt;Big&gt; &amp; co*' },
    });
    expect(body.blocks[1]).toEqual({ type: 'section', fields: [{ type: 'mrkdwn', text: '*Value*\n5000' }] });
  });

  it('maps ok:false codes: auth codes need a reconnect, channel_not_found is a 404, others a refusal naming the code', async () => {
    mockFetch([json(200, { ok: false, error: 'invalid_auth' })]);
    expect((await failureOf(slack.post({ channelId: 'C1' }, message))).kind).toBe('auth');
    vi.restoreAllMocks();
    mockFetch([json(200, { ok: false, error: 'token_revoked' })]);
    expect((await failureOf(slack.listChannels({}))).kind).toBe('auth');
    vi.restoreAllMocks();
    mockFetch([json(200, { ok: false, error: 'channel_not_found' })]);
    expect((await failureOf(slack.post({ channelId: 'C1' }, message))).kind).toBe('not_found');
    vi.restoreAllMocks();
    mockFetch([json(200, { ok: false, error: 'not_in_channel' })]);
    const refused = await failureOf(slack.post({ channelId: 'C1' }, message));
    expect(refused.kind).toBe('rejected');
    expect(refused.reason).toContain('not_in_channel');
  });

  it('treats HTTP 429 as temporary with Slack’s Retry-After, and never keeps its body', async () => {
    mockFetch([new Response('{"ok":false,"error":"ratelimited"}', { status: 429, headers: { 'retry-after': '30' } })]);
    const failure = await failureOf(slack.listChannels({}));
    expect(failure).toMatchObject({ kind: 'unavailable', status: 429, retryAfterSeconds: 30 });
    expect(failure.reason).not.toContain('ratelimited');
  });
});

describe('Teams (chat_b) adapter', () => {
  const teams = teamsWorkspace(async () => 'eyJ0eXAi.graph-token');
  const workflowUrl =
    'https://prod-12.westeurope.logic.azure.com:443/workflows/abc/triggers/manual/paths/invoke?api-version=2016-06-01&sig=s3cr3t';

  it('lists a team’s channels with Graph GET /teams/{id}/channels, following @odata.nextLink', async () => {
    const seen = mockFetch([
      json(200, {
        '@odata.context': "https://graph.microsoft.com/v1.0/$metadata#teams('t1')/channels",
        value: [
          {
            id: '19:561fbdbbfca848a484f0a6f00ce9dbbd@thread.tacv2',
            displayName: 'General',
            membershipType: 'standard',
          },
        ],
        '@odata.nextLink': 'https://graph.microsoft.com/v1.0/teams/t1/channels?$skiptoken=abc',
      }),
      json(200, { value: [{ id: '19:private@thread.tacv2', displayName: 'Deal desk', membershipType: 'private' }] }),
    ]);
    expect(await teams.listChannels({ teamId: 't1' })).toEqual([
      { id: '19:561fbdbbfca848a484f0a6f00ce9dbbd@thread.tacv2', name: 'General', team_id: 't1', is_private: false },
      { id: '19:private@thread.tacv2', name: 'Deal desk', team_id: 't1', is_private: true },
    ]);
    expect(seen.map((request) => [request.method, request.url, request.authorization])).toEqual([
      [
        'GET',
        'https://graph.microsoft.com/v1.0/teams/t1/channels?$select=id,displayName,membershipType',
        'Bearer eyJ0eXAi.graph-token',
      ],
      ['GET', 'https://graph.microsoft.com/v1.0/teams/t1/channels?$skiptoken=abc', 'Bearer eyJ0eXAi.graph-token'],
    ]);
  });

  it('without a team lists me/joinedTeams first, then each team’s channels', async () => {
    const seen = mockFetch([
      json(200, { value: [{ id: 'team-1', displayName: 'Sales' }] }),
      json(200, { value: [{ id: '19:a@thread.tacv2', displayName: 'General', membershipType: 'standard' }] }),
    ]);
    expect(await teams.listChannels({})).toEqual([
      { id: '19:a@thread.tacv2', name: 'General', team_id: 'team-1', is_private: false },
    ]);
    expect(seen.map((request) => request.url)).toEqual([
      'https://graph.microsoft.com/v1.0/me/joinedTeams?$select=id,displayName',
      'https://graph.microsoft.com/v1.0/teams/team-1/channels?$select=id,displayName,membershipType',
    ]);
  });

  it('maps Graph 429 to a temporary failure with its Retry-After, and 401 to a reconnect', async () => {
    mockFetch([json(429, { error: { code: 'TooManyRequests' } }, { 'retry-after': '7' })]);
    expect(await failureOf(teams.listChannels({ teamId: 't1' }))).toMatchObject({
      kind: 'unavailable',
      retryAfterSeconds: 7,
    });
    vi.restoreAllMocks();
    mockFetch([json(401, { error: { code: 'InvalidAuthenticationToken' } })]);
    expect((await failureOf(teams.listChannels({ teamId: 't1' }))).kind).toBe('auth');
  });

  it('posts an Adaptive Card message to the channel’s Workflows URL, without a Graph token', async () => {
    const seen = mockFetch([new Response(null, { status: 202 })]);
    expect(await teams.post({ channelId: '19:a@thread.tacv2', workflowUrl }, message)).toEqual({ messageId: null });
    expect(seen[0]).toMatchObject({
      method: 'POST',
      url: workflowUrl.replace(':443', ''),
      authorization: null,
      contentType: 'application/json',
    });
    const body = JSON.parse(seen[0].body);
    expect(body).toEqual(adaptiveCardMessage(message));
    expect(body.type).toBe('message');
    expect(body.attachments[0].contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(body.attachments[0].content).toMatchObject({ type: 'AdaptiveCard', version: '1.4' });
    expect(body.attachments[0].content.body[1]).toEqual({
      type: 'RichTextBlock',
      inlines: [
        { type: 'TextRun', text: 'Value: ', weight: 'Bolder' },
        { type: 'TextRun', text: '5000' },
      ],
    });
  });

  it('shows a lead’s own text as written: no Markdown link, emphasis or list made of it in the card', () => {
    // A web form visitor's name and email reach the sales channel: Teams renders Markdown in a
    // TextBlock and in a FactSet's values, so `[..](..)` was a disguised link and `_` made italics.
    const visitor: ChatMessage = {
      eventType: 'lead.created',
      title: 'New lead: [Verify your account](https://evil.example/login)',
      facts: [
        { label: 'Email', value: 'first_last_name@example.com' },
        { label: 'Company', value: '**Urgent** - 1. call' },
      ],
      test: false,
    };
    const card = adaptiveCardMessage(visitor).attachments[0].content;
    const texts: { type: string; text: string }[] = [];
    const walk = (node: unknown, parent: string): void => {
      if (Array.isArray(node)) {
        for (const item of node) walk(item, parent);
        return;
      }
      if (!node || typeof node !== 'object') return;
      const element = node as Record<string, unknown>;
      const type = typeof element.type === 'string' ? element.type : parent;
      // Text shown: `text` of any element, and a FactSet's facts (`title`, `value`).
      for (const key of ['text', 'value', 'title'] as const) {
        const shown = element[key];
        if (typeof shown === 'string' && (key === 'text' || type === 'FactSet')) texts.push({ type, text: shown });
      }
      for (const [key, value] of Object.entries(element)) if (key !== 'fallbackText') walk(value, type);
    };
    walk(card.body, 'AdaptiveCard');
    // Every piece of the message is in the card, each only where Teams shows text as it is (a TextRun).
    for (const piece of [visitor.title, 'first_last_name@example.com', '**Urgent** - 1. call']) {
      const holders = texts.filter((entry) => entry.text.includes(piece));
      expect(holders.length, piece).toBeGreaterThan(0);
      expect(
        holders.every((entry) => entry.type === 'TextRun'),
        piece,
      ).toBe(true);
    }
    expect(card.fallbackText).toContain('first_last_name@example.com');
  });

  it('refuses a workflow that answers 404 or 401 as a refusal of the URL, not of the Graph connection', async () => {
    mockFetch([new Response('gone', { status: 404 })]);
    const failure = await failureOf(teams.post({ channelId: '19:a@thread.tacv2', workflowUrl }, message));
    expect(failure.kind).toBe('rejected');
  });

  it('accepts only https Workflows hosts as posting URLs', () => {
    expect(workflowUrlProblem(workflowUrl)).toBeNull();
    expect(
      workflowUrlProblem(
        'https://default1234.56.environment.api.powerplatform.com/powerautomate/automations/direct/workflows/x',
      ),
    ).toBeNull();
    expect(workflowUrlProblem('http://prod-12.westeurope.logic.azure.com/workflows/x')).not.toBeNull();
    expect(workflowUrlProblem('https://169.254.169.254/latest')).not.toBeNull();
    expect(workflowUrlProblem('https://logic.azure.com.evil.example/workflows')).not.toBeNull();
    expect(workflowUrlProblem('https://prod-1.logic.azure.com:8443/workflows')).not.toBeNull();
  });
});

describe('the chat_a routes over a Slack connection', () => {
  let org: SignedUp;
  let connectionId: number;

  beforeAll(async () => {
    org = await signupOrganization('Slack routes');
    // Connected the way users connect it: through connected apps, which checks the token with
    // auth.test and seals it as `access_token`; the chat routes must read exactly that.
    const checked = mockFetch([json(200, { ok: true, team: 'Acme', team_id: 'T0001' })]);
    const connected = await requestRecordingJobs('POST', '/api/connected-apps/connect', {
      token: org.token,
      body: { kind: 'chat', provider: 'chat_a', access_token: 'xoxb-route-token' },
    });
    expect(connected.status, connected.text).toBe(201);
    expect(checked[0].url).toBe('https://slack.com/api/auth.test');
    vi.restoreAllMocks();
    connectionId = connected.body.data.id;
  });

  it('lists channels and posts a test notification with the sealed bot token', async () => {
    const seen = mockFetch([
      json(200, {
        ok: true,
        channels: [{ id: 'C9', name: 'sales', is_private: false }],
        response_metadata: { next_cursor: '' },
      }),
    ]);
    const channels = await requestRecordingJobs('GET', '/api/chat_a/channels', { token: org.token });
    expect(channels.status, channels.text).toBe(200);
    expect(channels.body.data).toEqual([{ id: 'C9', name: 'sales', team_id: null, is_private: false }]);
    expect(seen[0].authorization).toBe('Bearer xoxb-route-token');
    vi.restoreAllMocks();

    const posted = mockFetch([json(200, { ok: true, channel: 'C9', ts: '1700000000.000100' })]);
    const test = await requestRecordingJobs('POST', '/api/chat_a/test-notification', {
      token: org.token,
      body: { channel: 'C9', event_type: 'intent.hot' },
    });
    expect(test.status, test.text).toBe(200);
    expect(test.body.data).toMatchObject({
      provider: 'chat_a',
      local: false,
      channel: 'C9',
      event_type: 'intent.hot',
      message_id: '1700000000.000100',
    });
    expect(JSON.parse(posted[0].body).text).toMatch(/^\[Test\] Hot lead: /);
    expect(test.text).not.toContain('xoxb-route-token');
  });

  it('answers 503 with Slack’s Retry-After when throttled, and 409 with the connection marked when the token is revoked', async () => {
    mockFetch([new Response('', { status: 429, headers: { 'retry-after': '12' } })]);
    const throttled = await requestRecordingJobs('GET', '/api/chat_a/channels', { token: org.token });
    expect(throttled.status).toBe(503);
    expect(throttled.headers.get('retry-after')).toBe('12');
    vi.restoreAllMocks();

    mockFetch([json(200, { ok: false, error: 'token_revoked' })]);
    const revoked = await requestRecordingJobs('POST', '/api/chat_a/test-notification', {
      token: org.token,
      body: { channel: 'C9' },
    });
    expect(revoked.status).toBe(409);
    expect(revoked.body.error.code).toBe('connection_needs_reconnect');
    const [row] = await inOrganization(org.orgId, (tx) =>
      tx
        .select()
        .from(connections)
        .where(and(eq(connections.organizationId, org.orgId), eq(connections.id, connectionId))),
    );
    expect(row.state).toBe('needs_reconnect');
  });
});

describe('events posted to a subscribed Slack channel', () => {
  let org: SignedUp;

  beforeAll(async () => {
    org = await signupOrganization('Slack events');
    // As the connected-apps connect route stores a Slack token: `access_token`.
    const sealed = await sealCredentials(env, org.orgId, { access_token: 'xoxb-events-token' });
    await inOrganization(org.orgId, (tx) =>
      tx.insert(connections).values({
        organizationId: org.orgId,
        kind: 'chat',
        provider: 'chat_a',
        identity: 'T0002',
        ownerId: org.userId,
        ...sealed,
      }),
    );
  });

  it('go out once through chat.postMessage; a channel Slack no longer knows fails the delivery without retries', async () => {
    const subscribed = await requestRecordingJobs('POST', '/api/chat/subscriptions', {
      token: org.token,
      body: { provider: 'chat_a', channel: 'C777', events: ['lead.created'] },
    });
    expect(subscribed.status, subscribed.text).toBe(201);
    expect(subscribed.body.data.connection_id).toEqual(expect.any(Number));

    const seen = mockFetch([json(200, { ok: true, channel: 'C777', ts: '1700000001.000200' })]);
    const lead = await requestRecordingJobs('POST', '/api/lead/add', {
      token: org.token,
      body: { first_name: 'Slack', last_name: 'Event', email: 'slack.event@example.com' },
    });
    expect(lead.status, lead.text).toBe(201);
    // The new lead's scoring job leaves with it (modules/lead-scoring); the chat post is the webhook delivery.
    expect(lead.sent.map((message) => message.kind).sort()).toEqual(['lead-scoring', 'webhook-delivery']);
    const posting = lead.sent.filter((message) => message.kind === 'webhook-delivery');
    await deliverJobs(posting);
    await deliverJobs(posting, 2);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      url: 'https://slack.com/api/chat.postMessage',
      authorization: 'Bearer xoxb-events-token',
    });
    const body = JSON.parse(seen[0].body);
    expect(body.channel).toBe('C777');
    expect(body.text).toContain('New lead: Slack Event');
    vi.restoreAllMocks();

    const gone = mockFetch([json(200, { ok: false, error: 'channel_not_found' })]);
    const second = await requestRecordingJobs('POST', '/api/lead/add', {
      token: org.token,
      body: { first_name: 'Gone', last_name: 'Channel' },
    });
    const [secondPosting] = second.sent.filter((message) => message.kind === 'webhook-delivery');
    await deliverJobs([secondPosting]);
    expect(gone).toHaveLength(1);
    const [delivery] = await inOrganization(org.orgId, (tx) =>
      tx.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, secondPosting.jobId)),
    );
    expect(delivery.status).toBe('failed');
    expect(delivery.error).toContain('Slack has no such channel');
  });

  it('show on the subscription how its last delivery ended: Slack’s refusal, then a success', async () => {
    const subscribed = await requestRecordingJobs('POST', '/api/chat/subscriptions', {
      token: org.token,
      body: { provider: 'chat_a', channel: 'C778', events: ['lead.created'] },
    });
    expect(subscribed.status, subscribed.text).toBe(201);
    expect(subscribed.body.data.last_delivery).toBeNull();
    const id = subscribed.body.data.id as number;
    const postLead = async (firstName: string) => {
      const lead = await requestRecordingJobs('POST', '/api/lead/add', {
        token: org.token,
        body: { first_name: firstName, last_name: 'Posted' },
      });
      expect(lead.status, lead.text).toBe(201);
      await deliverJobs(lead.sent.filter((message) => message.kind === 'webhook-delivery'));
    };
    const viewed = async () => {
      const response = await requestRecordingJobs('GET', `/api/chat/subscriptions/${id}`, { token: org.token });
      expect(response.status, response.text).toBe(200);
      return response.body.data;
    };

    // The bot was never invited: every event fails at once, and an admin can see why.
    mockFetch([json(200, { ok: false, error: 'not_in_channel' }), json(200, { ok: false, error: 'not_in_channel' })]);
    await postLead('Uninvited');
    const failing = await viewed();
    expect(failing.last_delivery).toMatchObject({ status: 'failed', finished_at: expect.any(String) });
    // Written as every timestamp of the API (isoTimestampSql): UTC, milliseconds, Z.
    expect(failing.last_delivery.finished_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(Math.abs(Date.parse(failing.last_delivery.finished_at) - Date.now())).toBeLessThan(10 * 60_000);
    expect(failing.last_delivery.error).toContain('not_in_channel');
    const listed = await requestRecordingJobs('GET', '/api/chat/subscriptions', { token: org.token });
    expect(listed.body.data.find((row: { id: number }) => row.id === id).last_delivery.status).toBe('failed');
    vi.restoreAllMocks();

    // Invited: the next event goes out, and the subscription says so.
    mockFetch([json(200, { ok: true, channel: 'C778', ts: '1700000002.000300' })]);
    await postLead('Invited');
    expect((await viewed()).last_delivery).toMatchObject({ status: 'completed', error: null });
  });
});

describe('events posted to a Slack channel that is rate limited', () => {
  it('try again after Slack’s Retry-After when it is longer than the schedule’s wait', async () => {
    const org = await signupOrganization('Slack throttled events');
    const sealed = await sealCredentials(env, org.orgId, { access_token: 'xoxb-throttled-token' });
    await inOrganization(org.orgId, (tx) =>
      tx.insert(connections).values({
        organizationId: org.orgId,
        kind: 'chat',
        provider: 'chat_a',
        identity: 'T0003',
        ownerId: org.userId,
        ...sealed,
      }),
    );
    const subscribed = await requestRecordingJobs('POST', '/api/chat/subscriptions', {
      token: org.token,
      body: { provider: 'chat_a', channel: 'C888', events: ['lead.created'] },
    });
    expect(subscribed.status, subscribed.text).toBe(201);
    const lead = await requestRecordingJobs('POST', '/api/lead/add', {
      token: org.token,
      body: { first_name: 'Slow', last_name: 'Down' },
    });
    const posting = lead.sent.filter((message) => message.kind === 'webhook-delivery');
    const seen = mockFetch([new Response('', { status: 429, headers: { 'retry-after': '30' } })], {
      only: (url) => url.startsWith('https://slack.com/'),
    });
    const queue = recordingQueue();
    await deliverJobs(posting, 1, queue.bindings);
    expect(seen).toHaveLength(1);
    // The schedule's first wait is 5 s: asking again then would meet the same 429.
    expect(queue.sent).toEqual([{ body: posting[0], delaySeconds: 30 }]);
    const [delivery] = await inOrganization(org.orgId, (tx) =>
      tx
        .select({
          status: webhookDeliveries.status,
          dueIn: sql<number>`extract(epoch from ${webhookDeliveries.nextAttemptAt} - now())::float8`,
        })
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.id, posting[0].jobId)),
    );
    expect(delivery.status).toBe('queued');
    expect(delivery.dueIn).toBeGreaterThan(25);
    expect(delivery.dueIn).toBeLessThanOrEqual(30);
  });
});

describe('the chat_b routes over a Teams connection', () => {
  const graphOnly = { only: (url: string) => url.startsWith('https://') };

  it('keeps the Graph refresh token it was connected with, and renews the expired access token with it', async () => {
    const org = await signupOrganization('Teams refresh');
    const checked = mockFetch(
      [json(200, { userPrincipalName: 'admin@contoso.test', displayName: 'Admin' })],
      graphOnly,
    );
    const connected = await requestRecordingJobs('POST', '/api/connected-apps/connect', {
      token: org.token,
      body: {
        kind: 'chat',
        provider: 'chat_b',
        access_token: 'graph-access-1',
        refresh_token: 'graph-refresh-1',
        expires_in: 3599,
      },
    });
    expect(connected.status, connected.text).toBe(201);
    expect(checked[0].authorization).toBe('Bearer graph-access-1');
    expect(connected.text).not.toContain('graph-refresh-1');
    vi.restoreAllMocks();
    const connectionId = connected.body.data.id as number;
    const row = () =>
      inOrganization(org.orgId, async (tx) => {
        const [found] = await tx
          .select()
          .from(connections)
          .where(and(eq(connections.organizationId, org.orgId), eq(connections.id, connectionId)));
        return found;
      });
    const stored = await row();
    // Graph tokens last about an hour: the expiry is kept so the token is renewed before it runs out.
    expect(stored.tokenExpiresAt?.getTime() ?? 0).toBeGreaterThan(Date.now() + 3500 * 1000);

    // An hour later.
    await inOrganization(org.orgId, (tx) =>
      tx
        .update(connections)
        .set({ tokenExpiresAt: new Date(Date.now() - 1000) })
        .where(eq(connections.id, connectionId)),
    );
    const seen = mockFetch(
      [
        json(200, {
          token_type: 'Bearer',
          access_token: 'graph-access-2',
          refresh_token: 'graph-refresh-2',
          expires_in: 3600,
          scope: 'Team.ReadBasic.All Channel.ReadBasic.All offline_access',
        }),
        json(200, { value: [{ id: '19:general', displayName: 'General', membershipType: 'standard' }] }),
      ],
      graphOnly,
    );
    const channels = await requestRecordingJobs('GET', '/api/chat_b/channels?team_id=team-1', { token: org.token });
    expect(channels.status, channels.text).toBe(200);
    expect(channels.body.data).toEqual([{ id: '19:general', name: 'General', team_id: 'team-1', is_private: false }]);
    expect(seen[0].url).toMatch(/^https:\/\/login\.microsoftonline\.com\/.+\/oauth2\/v2\.0\/token$/);
    const grant = new URLSearchParams(seen[0].body);
    expect(grant.get('grant_type')).toBe('refresh_token');
    expect(grant.get('refresh_token')).toBe('graph-refresh-1');
    expect(seen[1].url).toBe(
      'https://graph.microsoft.com/v1.0/teams/team-1/channels?$select=id,displayName,membershipType',
    );
    expect(seen[1].authorization).toBe('Bearer graph-access-2');
    const refreshed = await row();
    expect(refreshed.state).toBe('active');
    // Microsoft may rotate the refresh token: the new one is what the next renewal sends.
    expect((await openCredentials<{ refresh_token: string }>(env, refreshed))?.refresh_token).toBe('graph-refresh-2');
    expect(refreshed.tokenExpiresAt?.getTime() ?? 0).toBeGreaterThan(Date.now() + 3500 * 1000);
  });

  it('refuses a refresh token for a provider that is not renewed with one, naming refresh_token', async () => {
    const org = await signupOrganization('Refresh refused');
    const response = await requestRecordingJobs('POST', '/api/connected-apps/connect', {
      token: org.token,
      body: { kind: 'crm', provider: 'local', refresh_token: 'nothing-renews-this' },
    });
    expect(response.status, response.text).toBe(422);
    expect(JSON.stringify(response.body.error)).toContain('refresh_token');
  });
});

describe('events posted to a subscribed Teams channel', () => {
  it('keep going out through the channel’s Workflows URL while the Graph connection needs reconnecting (posting never uses Graph)', async () => {
    const org = await signupOrganization('Teams events');
    const sealed = await sealCredentials(env, org.orgId, { access_token: 'graph-events-token' });
    const [connection] = await inOrganization(org.orgId, (tx) =>
      tx
        .insert(connections)
        .values({
          organizationId: org.orgId,
          kind: 'chat',
          provider: 'chat_b',
          identity: 'admin@teams-events.test',
          ownerId: org.userId,
          ...sealed,
        })
        .returning(),
    );
    const hook = 'https://prod-01.westus.logic.azure.com/workflows/abc/triggers/manual/paths/invoke?sig=teams-sig';
    const subscribed = await requestRecordingJobs('POST', '/api/chat/subscriptions', {
      token: org.token,
      body: { provider: 'chat_b', channel: '19:sales@thread.tacv2', events: ['lead.created'], workflow_url: hook },
    });
    expect(subscribed.status, subscribed.text).toBe(201);
    // Graph refused the token later (a channel list): the connection waits for its owner.
    await inOrganization(org.orgId, (tx) =>
      tx.update(connections).set({ state: 'needs_reconnect' }).where(eq(connections.id, connection.id)),
    );

    const seen = mockFetch([new Response(null, { status: 202 })], { only: (url) => url.startsWith('https://') });
    const lead = await requestRecordingJobs('POST', '/api/lead/add', {
      token: org.token,
      body: { first_name: 'Teams', last_name: 'Event' },
    });
    expect(lead.status, lead.text).toBe(201);
    const posting = lead.sent.filter((message) => message.kind === 'webhook-delivery');
    await deliverJobs(posting);
    expect(seen.map((request) => request.url)).toEqual([hook]);
    const [delivery] = await inOrganization(org.orgId, (tx) =>
      tx.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, posting[0].jobId)),
    );
    expect(delivery).toMatchObject({ status: 'completed', error: null });
  });
});
