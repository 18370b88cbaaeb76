/**
 * Meeting transcripts: an upload (WebVTT, SubRip or plain text) is parsed into speaker/time
 * segments, stored in R2 with an index row and read back; a malformed file is a 422 naming `file`
 * and stores nothing; another organization's meeting is a 404. Meeting tools deliver through a
 * signed per-organization webhook: a bad signature or a stale timestamp is refused, and a replayed
 * delivery id changes nothing for 7 days, after which the cron forgets it. The secret is sealed at rest.
 */
import { env } from 'cloudflare:workers';
import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { withOwnDatabase } from '../src/db/client';
import { meetingToolDeliveries, meetingToolEndpoints, meetingTranscripts } from '../src/db/schema';
import { readConfig } from '../src/env';
import { MEETING_TOOL_DELIVERY_ID_DAYS, sweepMeetingToolDeliveryIds } from '../src/modules/meetings/retention';
import { sha256Hex } from '../src/core/auth/api-key-secrets';
import { organizationOfEndpoint } from '../src/modules/meetings/meeting-tool-webhooks';
import { signDelivery } from '../src/modules/meetings/webhook-signature';
import { call, memberToken, signupOrganization, type SignedUp } from './helpers/api';
import { runMinuteCron } from './helpers/cron';
import { inOrganization } from './helpers/leads';

const migration0097 = import.meta.glob<string>('../drizzle/0097_meeting_tool_token_hash.sql', {
  query: '?raw',
  import: 'default',
  eager: true,
});

let org: SignedUp;
let other: SignedUp;

async function addMeeting(owner: SignedUp, extra: Record<string, unknown> = {}) {
  const response = await call('POST', '/api/meeting/add', {
    token: owner.token,
    body: { title: 'Demo', start_time: '2027-04-01T09:00:00Z', end_time: '2027-04-01T10:00:00Z', ...extra },
  });
  if (response.status !== 201) throw new Error(`meeting: ${response.status} ${response.text}`);
  return response.body.data.id as number;
}

function upload(owner: SignedUp, meetingId: number, content: string, name: string, format?: string) {
  const form = new FormData();
  form.append('file', new File([content], name, { type: 'text/plain' }));
  if (format) form.append('format', format);
  return call('POST', `/api/meeting/${meetingId}/transcript`, { token: owner.token, rawBody: form });
}

const VTT = `WEBVTT - exported by the tool

NOTE speakers are voice tags

1
00:00:01.500 --> 00:00:04.000
<v Ada Lovelace>Thanks for joining.</v>

2
00:00:04.250 --> 00:01:02.000 align:start
<v Grace Hopper>Happy to be here,
and to talk <b>budget</b>.

00:01:02.100 --> 01:00:00.000
Ada Lovelace: Let us start.
`;

beforeAll(async () => {
  [org, other] = await Promise.all([signupOrganization('Transcripts'), signupOrganization('Transcripts other')]);
});

describe('POST and GET /api/meeting/{id}/transcript', () => {
  it('parses a WebVTT upload into speaker/time segments, stores it and reads it back', async () => {
    const meetingId = await addMeeting(org);
    const stored = await upload(org, meetingId, VTT, 'call.vtt');
    expect(stored.status, stored.text).toBe(201);
    const expected = {
      meeting_id: meetingId,
      format: 'vtt',
      source: 'upload',
      speakers: ['Ada Lovelace', 'Grace Hopper'],
      duration_ms: 3_600_000,
      segments: [
        { speaker: 'Ada Lovelace', start_ms: 1500, end_ms: 4000, text: 'Thanks for joining.' },
        { speaker: 'Grace Hopper', start_ms: 4250, end_ms: 62_000, text: 'Happy to be here, and to talk budget.' },
        { speaker: 'Ada Lovelace', start_ms: 62_100, end_ms: 3_600_000, text: 'Let us start.' },
      ],
      transcript:
        'Ada Lovelace: Thanks for joining.\nGrace Hopper: Happy to be here, and to talk budget.\nAda Lovelace: Let us start.',
    };
    expect(stored.body.data).toMatchObject(expected);
    const read = await call('GET', `/api/meeting/${meetingId}/transcript`, { token: org.token });
    expect(read.status, read.text).toBe(200);
    expect(read.body.data).toMatchObject(expected);
    const [row] = await inOrganization(org.orgId, (tx) =>
      tx.select().from(meetingTranscripts).where(eq(meetingTranscripts.meetingId, meetingId)),
    );
    expect(row).toMatchObject({ segmentCount: 3, format: 'vtt', source: 'upload', createdBy: org.userId });
    expect(row.storageKey.startsWith(`${org.orgId}/transcript/`)).toBe(true);
    expect(await env.FILES.head(row.storageKey)).not.toBeNull();
  });

  it('reads SubRip and plain text, and a new upload replaces the previous transcript and its object', async () => {
    const meetingId = await addMeeting(org);
    const srt =
      '1\r\n00:00:00,000 --> 00:00:02,500\r\nAda: Hello there\r\n\r\n2\r\n00:00:03,000 --> 00:00:05,000\r\nNo speaker here\r\n';
    const first = await upload(org, meetingId, srt, 'call.srt');
    expect(first.status, first.text).toBe(201);
    expect(first.body.data.segments).toEqual([
      { speaker: 'Ada', start_ms: 0, end_ms: 2500, text: 'Hello there' },
      { speaker: null, start_ms: 3000, end_ms: 5000, text: 'No speaker here' },
    ]);
    const [before] = await inOrganization(org.orgId, (tx) =>
      tx.select().from(meetingTranscripts).where(eq(meetingTranscripts.meetingId, meetingId)),
    );
    const plain = '[00:00:05] Ada: First point\n\nGrace: Second point\nand a line without a speaker\n';
    const second = await upload(org, meetingId, plain, 'notes.txt');
    expect(second.status, second.text).toBe(201);
    expect(second.body.data).toMatchObject({
      format: 'text',
      speakers: ['Ada', 'Grace'],
      duration_ms: 5000,
      segments: [
        { speaker: 'Ada', start_ms: 5000, end_ms: null, text: 'First point' },
        { speaker: 'Grace', start_ms: null, end_ms: null, text: 'Second point' },
        { speaker: null, start_ms: null, end_ms: null, text: 'and a line without a speaker' },
      ],
    });
    const rows = await inOrganization(org.orgId, (tx) =>
      tx.select().from(meetingTranscripts).where(eq(meetingTranscripts.meetingId, meetingId)),
    );
    expect(rows).toHaveLength(1);
    // The previous object goes after the commit, in the background.
    await expect.poll(() => env.FILES.head(before.storageKey), { timeout: 5000 }).toBeNull();
  });

  it('refuses a malformed or empty file with 422 naming file, and stores nothing', async () => {
    const meetingId = await addMeeting(org);
    const broken = await upload(org, meetingId, 'WEBVTT\n\n00:00:01.000 --> soon\nHello\n', 'broken.vtt');
    expect([broken.status, broken.body.error.code]).toEqual([422, 'file']);
    expect(broken.body.error.message).toContain('line 3');
    const empty = await upload(org, meetingId, '\n\n  \n', 'empty.txt');
    expect([empty.status, empty.body.error.code]).toEqual([422, 'file']);
    const format = await upload(org, meetingId, 'Ada: hi', 'a.txt', 'docx');
    expect([format.status, format.body.error.code]).toEqual([422, 'format']);
    const read = await call('GET', `/api/meeting/${meetingId}/transcript`, { token: org.token });
    expect(read.status).toBe(404);
  });

  it('answers 404 for a meeting without a transcript and for another organization’s meeting', async () => {
    const meetingId = await addMeeting(org);
    expect((await call('GET', `/api/meeting/${meetingId}/transcript`, { token: org.token })).status).toBe(404);
    await upload(org, meetingId, 'Ada: mine', 'a.txt');
    expect((await call('GET', `/api/meeting/${meetingId}/transcript`, { token: other.token })).status).toBe(404);
    const overwrite = await upload(other, meetingId, 'Mallory: theirs', 'a.txt');
    expect(overwrite.status).toBe(404);
    const read = await call('GET', `/api/meeting/${meetingId}/transcript`, { token: org.token });
    expect(read.body.data.transcript).toBe('Ada: mine');
  });
});

describe('meeting-tool webhooks', () => {
  async function addEndpoint(owner: SignedUp, tool = 'tool_a') {
    const response = await call('POST', '/api/meeting-tools/webhooks/add', { token: owner.token, body: { tool } });
    expect(response.status, response.text).toBe(201);
    return response.body.data as { id: number; url: string; secret: string; tool: string };
  }

  async function deliver(
    url: string,
    secret: string,
    body: Record<string, unknown>,
    options: { id?: string; timestamp?: number; signature?: string } = {},
  ) {
    const raw = JSON.stringify(body);
    const id = options.id ?? `msg_${crypto.randomUUID()}`;
    const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
    const signature = options.signature ?? (await signDelivery(secret, id, timestamp, raw));
    return call('POST', url, {
      rawBody: raw,
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signature,
      },
    });
  }

  it('shows the URL and the secret once, keeps the URL’s token only hashed and the secret sealed, and lists the URL masked', async () => {
    const endpoint = await addEndpoint(org);
    expect(endpoint.secret).toMatch(/^whsec_/);
    const token = endpoint.url.match(/^\/api\/v1\/meeting-tools\/tool_a\/webhook\/(mtw_[A-Za-z0-9_-]{32})$/)?.[1];
    expect(token, endpoint.url).toBeDefined();
    const [row] = await inOrganization(org.orgId, (tx) =>
      tx.select().from(meetingToolEndpoints).where(eq(meetingToolEndpoints.id, endpoint.id)),
    );
    expect(row.secret).not.toContain(endpoint.secret.slice(6));
    // Anyone holding the URL and the secret can deliver: neither is kept readable.
    expect(JSON.stringify(row)).not.toContain((token as string).slice(4));
    expect(row.tokenHash).toBe(await sha256Hex(token as string));
    // Any user of the organization may list; the list holds neither the token nor the secret.
    const listed = await call('GET', '/api/meeting-tools/webhooks/list', {
      token: await memberToken(org, 'sales_rep'),
    });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.text).not.toContain(endpoint.secret);
    expect(listed.text).not.toContain((token as string).slice(4, -4));
    expect(listed.body.data).toContainEqual({
      id: endpoint.id,
      tool: 'tool_a',
      url: `/api/v1/meeting-tools/tool_a/webhook/mtw_…${(token as string).slice(-4)}`,
      created_at: expect.any(String),
    });
    // The whole URL still delivers (found by the token's hash); the masked one is no URL of an endpoint.
    const meetingId = await addMeeting(org);
    const body = { meeting_id: meetingId, transcript: 'Ada: by the whole URL' };
    const delivered = await deliver(endpoint.url, endpoint.secret, body);
    expect(delivered.status, delivered.text).toBe(200);
    const masked = listed.body.data.find((item: { id: number }) => item.id === endpoint.id).url as string;
    expect((await deliver(masked, endpoint.secret, body)).status).toBe(400);
  });

  it('migration 0097 keeps the URLs of endpoints added before it working: their tokens hashed, then dropped', async () => {
    const endpoint = await addEndpoint(org, 'tool_c');
    const token = endpoint.url.split('/').pop() as string;
    const [statements] = Object.values(migration0097).map((text) => text.split('--> statement-breakpoint'));
    const rolledBack = new Error('rolled back');
    let seen: { hash: string; last4: string; columns: string[]; found: unknown } | undefined;
    // The table's owner, in a transaction rolled back after: the table as it was before 0097 (the
    // token in clear, this endpoint's and made-up ones for the others), then the migration.
    await withOwnDatabase(readConfig(env), (db) =>
      db.transaction(async (tx) => {
        await tx.execute(sql`alter table meeting_tool_endpoints add column token text`);
        await tx.execute(sql`update meeting_tool_endpoints set token = case when id = ${endpoint.id} then ${token}
          else 'mtw_before_0097_' || id || '_xxxxxxxxxxxxxxxx' end`);
        await tx.execute(sql`alter table meeting_tool_endpoints alter column token set not null`);
        await tx.execute(sql`create unique index meeting_tool_endpoints_token_idx on meeting_tool_endpoints (token)`);
        await tx.execute(sql`alter table meeting_tool_endpoints drop column token_hash, drop column token_last4`);
        for (const statement of statements) await tx.execute(sql.raw(statement));
        const [row] = (
          await tx.execute<{ hash: string; last4: string }>(
            sql`select token_hash as hash, token_last4 as last4 from meeting_tool_endpoints where id = ${endpoint.id}`,
          )
        ).rows;
        const columns = await tx.execute<{ name: string }>(
          sql`select column_name as name from information_schema.columns where table_name = 'meeting_tool_endpoints'`,
        );
        const found = await tx.execute<{ organization_id: string }>(
          organizationOfEndpoint('tool_c', await sha256Hex(token)).sql,
        );
        seen = {
          ...row,
          columns: columns.rows.map((column) => column.name),
          found: found.rows.map((one) => Number(one.organization_id)),
        };
        throw rolledBack;
      }),
    ).catch((error: unknown) => {
      if (error !== rolledBack) throw error;
    });
    expect(seen).toEqual({
      hash: await sha256Hex(token),
      last4: token.slice(-4),
      columns: expect.not.arrayContaining(['token']),
      found: [org.orgId],
    });
  });

  it('replays an add retried with its Idempotency-Key (one endpoint, same secret), never keeping the secret in idempotency_keys', async () => {
    const own = await signupOrganization('Retrying meeting tools');
    const send = () =>
      call('POST', '/api/meeting-tools/webhooks/add', {
        token: own.token,
        headers: { 'idempotency-key': 'meeting-tool-add-1' },
        body: { tool: 'tool_a' },
      });
    const first = await send();
    expect(first.status, first.text).toBe(201);
    const retried = await send();
    expect(retried.status, retried.text).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.body.data).toMatchObject({ id: first.body.data.id, secret: first.body.data.secret });
    const secret = (first.body.data.secret as string).slice('whsec_'.length);
    // Read as the database owner: the stored answer, and every table that could hold it, has no trace of the secret.
    const stored = await withOwnDatabase(readConfig(env), (db) =>
      db.execute<{ body: string }>(
        sql`select body from idempotency_keys where organization_id = ${own.orgId} and key = 'meeting-tool-add-1'`,
      ),
    );
    expect(stored.rows).toHaveLength(1);
    expect(stored.rows[0].body).not.toContain(secret);
  });

  it('stores a signed delivery; a replayed delivery id changes nothing', async () => {
    const endpoint = await addEndpoint(org, 'tool_b');
    const meetingId = await addMeeting(org, { meeting_url: `https://meet.example.com/${crypto.randomUUID()}` });
    const id = `msg_${crypto.randomUUID()}`;
    const timestamp = Math.floor(Date.now() / 1000);
    const body = { meeting_id: meetingId, transcript: VTT };
    const first = await deliver(endpoint.url, endpoint.secret, body, { id, timestamp });
    expect(first.status, first.text).toBe(200);
    expect(first.body.data).toEqual({ meeting_id: meetingId, duplicate: false });
    const read = await call('GET', `/api/meeting/${meetingId}/transcript`, { token: org.token });
    expect(read.body.data).toMatchObject({
      source: 'tool_b',
      format: 'vtt',
      speakers: ['Ada Lovelace', 'Grace Hopper'],
    });
    // The transcript changes meanwhile; the replay of the first delivery must not bring it back.
    await upload(org, meetingId, 'Ada: corrected by hand', 'fix.txt');
    const replay = await deliver(endpoint.url, endpoint.secret, body, { id, timestamp });
    expect(replay.status, replay.text).toBe(200);
    expect(replay.body.data).toEqual({ meeting_id: meetingId, duplicate: true });
    const after = await call('GET', `/api/meeting/${meetingId}/transcript`, { token: org.token });
    expect(after.body.data).toMatchObject({ source: 'upload', transcript: 'Ada: corrected by hand' });
  });

  it('finds the meeting by its join URL', async () => {
    const endpoint = await addEndpoint(org, 'tool_c');
    const url = `https://meet.example.com/${crypto.randomUUID()}`;
    const meetingId = await addMeeting(org, { meeting_url: url });
    const response = await deliver(endpoint.url, endpoint.secret, { meeting_url: url, transcript: 'Ada: hi' });
    expect(response.body.data).toEqual({ meeting_id: meetingId, duplicate: false });
  });

  it('refuses a wrong signature, a stale timestamp and missing headers with 401, storing nothing', async () => {
    const endpoint = await addEndpoint(org);
    const meetingId = await addMeeting(org);
    const body = { meeting_id: meetingId, transcript: 'Ada: forged' };
    const forged = await deliver(endpoint.url, endpoint.secret, body, {
      signature: await signDelivery('whsec_c2VjcmV0LW9mLWFub3RoZXItdG9vbC0xMjM0NTY3OA==', 'x', 1, 'y'),
    });
    expect([forged.status, forged.body.error.code]).toEqual([401, 'webhook_signature_invalid']);
    const stale = await deliver(endpoint.url, endpoint.secret, body, {
      timestamp: Math.floor(Date.now() / 1000) - 600,
    });
    expect([stale.status, stale.body.error.code]).toEqual([401, 'webhook_timestamp_out_of_window']);
    const bare = await call('POST', endpoint.url, { body });
    expect([bare.status, bare.body.error.code]).toEqual([401, 'webhook_signature_missing']);
    // A body changed after signing.
    const id = 'msg_tampered';
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = await signDelivery(endpoint.secret, id, timestamp, JSON.stringify(body));
    const tampered = await call('POST', endpoint.url, {
      rawBody: JSON.stringify({ ...body, transcript: 'Ada: changed' }),
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signature,
      },
    });
    expect(tampered.status).toBe(401);
    expect((await call('GET', `/api/meeting/${meetingId}/transcript`, { token: org.token })).status).toBe(404);
  });

  it('remembers a delivery id through the tools’ retry schedule (a retry has a fresh timestamp), then the cron forgets it', async () => {
    const endpoint = await addEndpoint(org, 'tool_a');
    const meetingId = await addMeeting(org);
    const id = `msg_${crypto.randomUUID()}`;
    const body = { meeting_id: meetingId, transcript: 'Ada: first take' };
    expect((await deliver(endpoint.url, endpoint.secret, body, { id })).body.data.duplicate).toBe(false);
    const received = (days: number) =>
      inOrganization(org.orgId, (tx) =>
        tx
          .update(meetingToolDeliveries)
          .set({ receivedAt: sql`now() - make_interval(days => ${days})` })
          .where(eq(meetingToolDeliveries.deliveryId, id))
          .returning({ id: meetingToolDeliveries.deliveryId }),
      );
    const sweep = () => withOwnDatabase(readConfig(env), (db) => sweepMeetingToolDeliveryIds(db));

    await received(MEETING_TOOL_DELIVERY_ID_DAYS - 1);
    await sweep();
    // The tool's retry days later: the same id, signed again with a fresh timestamp.
    const retry = await deliver(endpoint.url, endpoint.secret, body, { id });
    expect(retry.body.data).toEqual({ meeting_id: meetingId, duplicate: true });

    expect(await received(MEETING_TOOL_DELIVERY_ID_DAYS + 1)).toHaveLength(1);
    await runMinuteCron();
    expect(await received(0)).toHaveLength(0);
  });

  it('answers 404 for an unknown, deleted or other-tool endpoint, and for another organization’s meeting', async () => {
    const endpoint = await addEndpoint(org);
    const theirMeeting = await addMeeting(other);
    const cross = await deliver(endpoint.url, endpoint.secret, { meeting_id: theirMeeting, transcript: 'Ada: x' });
    expect(cross.status, cross.text).toBe(404);
    const otherTool = endpoint.url.replace('/tool_a/', '/tool_b/');
    expect((await deliver(otherTool, endpoint.secret, { meeting_id: theirMeeting, transcript: 'x' })).status).toBe(404);
    const deleted = await call('DELETE', `/api/meeting-tools/webhooks/delete/${endpoint.id}`, { token: org.token });
    expect(deleted.status).toBe(200);
    const mine = await addMeeting(org);
    expect((await deliver(endpoint.url, endpoint.secret, { meeting_id: mine, transcript: 'Ada: x' })).status).toBe(404);
    const again = await call('DELETE', `/api/meeting-tools/webhooks/delete/${endpoint.id}`, { token: org.token });
    expect(again.status).toBe(404);
  });
});
