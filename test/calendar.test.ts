/**
 * Calendars with the local provider, end to end: connecting (no token returned), the events
 * routes (an unknown provider is a 404 naming the served ones; another organization's connection a
 * 404), the busy sync (cron and queue) feeding /api/calendar/availability and the public booking
 * page, and a confirmed booking written into the rep's calendar exactly once under redelivery.
 */
import { createExecutionContext, createMessageBatch, createScheduledController, getQueueResult } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { and, desc, eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  calendarBusyBlocks,
  calendarEventWrites,
  calendarSyncJobs,
  connections,
  jobOutbox,
  localCalendarEvents,
  meetings,
} from '../src/db/schema';
import { openDatabase } from '../src/db/client';
import { readConfig } from '../src/env';
import worker from '../src/index';
import type { JobMessage } from '../src/jobs/messages';
import {
  addMember,
  type CallOptions,
  call as apiCall,
  randomIp,
  signupOrganization,
  type SignedUp,
  uniqueEmail,
} from './helpers/api';
import { inOrganization } from './helpers/leads';
import { holdingLock, onPglite, pause } from './helpers/lock-races';
import { statementsOf } from './helpers/statements';
import { recordingQueue } from './helpers/webhooks';

/**
 * The jobs these tests' requests send, held back from the queue (CallOptions.heldJobs): each test
 * delivers a job itself, as often and when it means to, so a job it leaves pending (a lost
 * answer, a refused call) is not run behind its back, against its fetch mocks, by the queue
 * consumer wrangler.toml configures.
 */
const heldJobs: JobMessage[] = [];
const call = (method: string, path: string, options: CallOptions = {}) =>
  apiCall(method, path, { heldJobs, ...options });

let org: SignedUp;
let other: SignedUp;

async function deliver(messages: JobMessage[]) {
  const batch = createMessageBatch<JobMessage>(
    'lead-management-jobs',
    messages.map((body, index) => ({
      id: `cal-${crypto.randomUUID()}-${index}`,
      timestamp: new Date(),
      attempts: 1,
      body,
    })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, env);
  return getQueueResult(batch, ctx);
}

/** A Monday two to three weeks ahead (inside the sync window), as YYYY-MM-DD. */
function mondayAhead(): string {
  const day = new Date(Date.now() + 14 * 86_400_000);
  day.setUTCDate(day.getUTCDate() + ((8 - day.getUTCDay()) % 7));
  return day.toISOString().slice(0, 10);
}

/** The rep's public booking page slug. */
async function slugOf(owner: SignedUp): Promise<string> {
  return (await call('GET', '/api/user/my', { token: owner.token })).body.data.booking_slug as string;
}

/**
 * Books `start`-`end` (ISO instants) on the rep's public page as a visitor, from a fresh client IP
 * (the confirmations' rate limit is per IP): the confirmation's answer, whatever its status.
 */
async function bookSlot(
  slug: string,
  start: string,
  end: string,
  visitor: { name: string; email: string } = { name: 'Grace Hopper', email: 'grace@example.com' },
) {
  return call('POST', `/api/v1/booking/${slug}/confirm`, {
    body: { start, end, ...visitor },
    headers: { 'cf-connecting-ip': randomIp() },
  });
}

async function connectLocal(owner: SignedUp, options: CallOptions = {}) {
  const response = await call('POST', '/api/calendar/connections/add', {
    token: owner.token,
    body: { provider: 'local' },
    ...options,
  });
  expect(response.status, response.text).toBe(201);
  return response.body.data as { id: number };
}

/** A sync of the connection, asked for through the route and delivered here. */
async function syncNow(owner: SignedUp, connectionId: number) {
  const queued = await call('POST', `/api/calendar/connections/${connectionId}/sync`, { token: owner.token });
  expect(queued.status, queued.text).toBeLessThan(300);
  const [job] = await inOrganization(owner.orgId, (tx) =>
    tx
      .select()
      .from(calendarSyncJobs)
      .where(eq(calendarSyncJobs.connectionId, connectionId))
      .orderBy(desc(calendarSyncJobs.id))
      .limit(1),
  );
  await deliver([{ kind: 'calendar-sync', orgId: owner.orgId, jobId: job.id }]);
}

beforeAll(async () => {
  [org, other] = await Promise.all([signupOrganization('Calendar'), signupOrganization('Calendar other')]);
});

/** One meeting's calendar write, the organization's local calendar events, and the write's job delivered twice (the outbox's send and a redelivery). */
function meetingWrites(orgId: number, meetingId: number) {
  const writeOf = async () =>
    (
      await inOrganization(orgId, (tx) =>
        tx.select().from(calendarEventWrites).where(eq(calendarEventWrites.meetingId, meetingId)),
      )
    )[0];
  const eventsOf = () =>
    inOrganization(orgId, (tx) =>
      tx.select().from(localCalendarEvents).where(eq(localCalendarEvents.organizationId, orgId)),
    );
  const job = async () => {
    const message: JobMessage = { kind: 'calendar-event', orgId, jobId: (await writeOf()).id };
    await deliver([message]);
    await deliver([message]);
  };
  return { writeOf, eventsOf, job };
}

/** A visitor's booking of 13:00-13:30 next Monday on the rep's page (201): the day and the meeting's id. */
async function bookedMonday(rep: SignedUp): Promise<{ monday: string; meetingId: number }> {
  const monday = mondayAhead();
  const booked = await bookSlot(await slugOf(rep), `${monday}T13:00:00Z`, `${monday}T13:30:00Z`);
  expect(booked.status, booked.text).toBe(201);
  return { monday, meetingId: booked.body.data.meeting_id as number };
}

/** The meeting updated with `body` (200), then its write's job delivered twice. */
async function updateMeeting(owner: SignedUp, meetingId: number, body: Record<string, unknown>) {
  const updated = await call('POST', `/api/meeting/update/${meetingId}`, { token: owner.token, body });
  expect(updated.status, updated.text).toBe(200);
  await meetingWrites(owner.orgId, meetingId).job();
}

/**
 * The provider made the event (13:00-13:30 on `monday`) in `connectionId`'s calendar under
 * `requestId`; the answer never reached the job.
 */
const lostInsert = (
  orgId: number,
  connectionId: number,
  requestId: string,
  monday: string,
  title = 'Meeting with Grace Hopper',
) =>
  inOrganization(orgId, (tx) =>
    tx.insert(localCalendarEvents).values({
      organizationId: orgId,
      connectionId,
      requestId,
      title,
      startsAt: new Date(`${monday}T13:00:00Z`),
      endsAt: new Date(`${monday}T13:30:00Z`),
      timeZone: 'UTC',
      attendees: [],
    }),
  );

describe('calendar events routes (local provider)', () => {
  it('connects a local calendar, inserts an event and lists it, marked local', async () => {
    const connection = await connectLocal(org);
    const created = await call('POST', '/api/calendar/local/events', {
      token: org.token,
      body: {
        title: 'Planning',
        start: '2027-02-01T10:00:00Z',
        end: '2027-02-01T11:00:00Z',
        attendees: [{ email: 'grace@example.com', name: 'Grace' }],
        conference: true,
      },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data).toMatchObject({
      title: 'Planning',
      start: '2027-02-01T10:00:00.000Z',
      end: '2027-02-01T11:00:00.000Z',
      busy: true,
      provider: 'local',
      attendees: [{ email: 'grace@example.com', name: 'Grace' }],
      conference_url: expect.stringMatching(/^https:\/\//),
    });
    const listed = await call('GET', '/api/calendar/local/events', {
      token: org.token,
      query: { from: '2027-02-01T00:00:00Z', to: '2027-02-02T00:00:00Z', connection_id: connection.id },
    });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data).toEqual([created.body.data]);
    const connections = await call('GET', '/api/calendar/connections/list', { token: org.token });
    expect(connections.body.data).toContainEqual(
      expect.objectContaining({ id: connection.id, provider: 'local', calendar_id: 'primary', state: 'active' }),
    );
  });

  it('answers 404 naming the served providers for another provider, and 404 without a connection', async () => {
    const unknown = await call('GET', '/api/calendar/yahoo/events', { token: org.token });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toContain('google, outlook, local');
    const none = await call('GET', '/api/calendar/google/events', { token: org.token });
    expect(none.status).toBe(404);
  });

  it('refuses bad input naming the field', async () => {
    const reversed = await call('POST', '/api/calendar/local/events', {
      token: org.token,
      body: { title: 'x', start: '2027-02-01T11:00:00Z', end: '2027-02-01T10:00:00Z' },
    });
    expect([reversed.status, reversed.body.error.code]).toEqual([422, 'end']);
    const range = await call('GET', '/api/calendar/local/events', {
      token: org.token,
      query: { from: '2027-01-01T00:00:00Z', to: '2027-06-01T00:00:00Z' },
    });
    expect([range.status, range.body.error.code]).toEqual([422, 'to']);
    const token = await call('POST', '/api/calendar/connections/add', {
      token: org.token,
      body: { provider: 'google' },
    });
    expect([token.status, token.body.error.code]).toEqual([422, 'access_token']);
  });

  it('keeps a connection of another organization out of reach (404)', async () => {
    const theirs = await connectLocal(other);
    const read = await call('GET', '/api/calendar/local/events', {
      token: org.token,
      query: { connection_id: theirs.id },
    });
    expect(read.status).toBe(404);
    const removed = await call('DELETE', `/api/calendar/connections/delete/${theirs.id}`, { token: org.token });
    expect(removed.status).toBe(404);
  });

  it('keeps the tokens of a connect retried with an Idempotency-Key out of idempotency_keys', async () => {
    const own = await signupOrganization('Calendar retry');
    const send = () =>
      call('POST', '/api/calendar/connections/add', {
        token: own.token,
        headers: { 'idempotency-key': 'calendar-connect-1' },
        body: { provider: 'google', access_token: 'ya29.retried-calendar-token', refresh_token: '1//retried-refresh' },
      });
    const first = await send();
    expect(first.status, first.text).toBe(201);
    const retried = await send();
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    const handle = openDatabase(env as never);
    try {
      const stored = await handle.db.execute<{ body: string }>(
        sql`select body from idempotency_keys where organization_id = ${own.orgId}`,
      );
      expect(stored.rows).toHaveLength(1);
      expect(stored.rows[0].body).not.toContain('retried-calendar-token');
      expect(stored.rows[0].body).not.toContain('retried-refresh');
    } finally {
      await handle.close();
    }
  });

  it('stores google tokens sealed and never answers them', async () => {
    const response = await call('POST', '/api/calendar/connections/add', {
      token: org.token,
      body: { provider: 'google', access_token: 'ya29.secret-calendar-token', refresh_token: '1//calendar-refresh' },
    });
    expect(response.status, response.text).toBe(201);
    expect(response.text).not.toContain('ya29');
    const listed = await call('GET', '/api/calendar/connections/list', { token: org.token });
    expect(listed.text).not.toContain('secret-calendar-token');
  });

  it('answers 409 connection_needs_reconnect, not a 500, for tokens sealed under a key no longer configured', async () => {
    const added = await call('POST', '/api/calendar/connections/add', {
      token: other.token,
      body: { provider: 'google', access_token: 'ya29.rotated-away', refresh_token: '1//rotated-away' },
    });
    expect(added.status, added.text).toBe(201);
    // As if sealed under a key since removed from CREDENTIALS_KEY and CREDENTIALS_KEYS_PREVIOUS.
    await inOrganization(other.orgId, (tx) =>
      tx
        .update(connections)
        .set({ secret: 'v1.00000000000000ff.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA', secretKeyId: '00000000000000ff' })
        .where(eq(connections.id, added.body.data.id)),
    );
    const read = await call('GET', '/api/calendar/google/events', {
      token: other.token,
      query: { connection_id: added.body.data.id },
    });
    expect(read.status, read.text).toBe(409);
    expect(read.body.error.code).toBe('connection_needs_reconnect');
  });
});

describe('busy times feed availability', () => {
  it('syncs a connected calendar’s busy blocks (cron and queue) into the caller’s and the public availability', async () => {
    const rep = await signupOrganization('Busy rep');
    const connection = await connectLocal(rep);
    const monday = mondayAhead();
    const event = await call('POST', '/api/calendar/local/events', {
      token: rep.token,
      body: { title: 'Dentist', start: `${monday}T10:00:00Z`, end: `${monday}T11:00:00Z` },
    });
    expect(event.status, event.text).toBe(201);
    const slotsOf = async () =>
      (await call('GET', '/api/calendar/availability', { token: rep.token, query: { date: monday, tz: 'UTC' } })).body
        .data.slots as { start: string }[];
    expect((await slotsOf()).map((slot) => slot.start)).toContain(`${monday}T10:00:00+00:00`);

    // The cron asks for a sync of every calendar not synced lately.
    const { queue, sent: recorded } = recordingQueue();
    const sentBodies = () => recorded.map((message) => message.body);
    await worker.scheduled(createScheduledController({ cron: '* * * * *' }), { ...env, JOBS: queue });
    const message = sentBodies().find((body) => body.kind === 'calendar-sync' && body.orgId === rep.orgId);
    expect(message).toEqual({ kind: 'calendar-sync', orgId: rep.orgId, jobId: expect.any(Number) });
    const [job] = await inOrganization(rep.orgId, (tx) =>
      tx
        .select()
        .from(calendarSyncJobs)
        .where(eq(calendarSyncJobs.id, (message as { jobId: number }).jobId)),
    );
    expect(job.connectionId).toBe(connection.id);
    // Delivered twice: the blocks are replaced, not doubled.
    await deliver([message as JobMessage]);
    await deliver([message as JobMessage]);
    const blocks = await inOrganization(rep.orgId, (tx) =>
      tx.select().from(calendarBusyBlocks).where(eq(calendarBusyBlocks.connectionId, connection.id)),
    );
    expect(blocks).toHaveLength(1);

    const starts = (await slotsOf()).map((slot) => slot.start);
    expect(starts).not.toContain(`${monday}T10:00:00+00:00`);
    expect(starts).not.toContain(`${monday}T10:30:00+00:00`);
    expect(starts).toContain(`${monday}T11:00:00+00:00`);
    const me = (await call('GET', '/api/user/my', { token: rep.token })).body.data;
    const pub = await call('GET', `/api/v1/booking/${me.booking_slug}/availability`, {
      query: { date: monday, tz: 'UTC' },
      headers: { 'cf-connecting-ip': randomIp() },
    });
    expect(pub.body.data.slots.map((slot: { start: string }) => slot.start)).not.toContain(`${monday}T10:00:00+00:00`);
    // A confirmation re-checks the slot against the synced busy times too, not only the meetings.
    const taken = await bookSlot(me.booking_slug, `${monday}T10:30:00Z`, `${monday}T11:00:00Z`, {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
    });
    expect(taken.status, taken.text).toBe(409);
    expect(taken.body.error.code).toBe('slot_unavailable');
    const synced = await call('GET', '/api/calendar/connections/list', { token: rep.token });
    expect(synced.body.data[0].last_synced_at).not.toBeNull();

    // Disconnecting frees the time at once.
    const { response: removed, statements } = await statementsOf(() =>
      call('DELETE', `/api/calendar/connections/delete/${connection.id}`, { token: rep.token }),
    );
    expect(removed.status, removed.text).toBe(200);
    // One read for the owner check, then the update that answers: the connection is not read twice.
    const reads = statements.filter((text) => /^\s*select\b[\s\S]*\bfrom "connections"/i.test(text));
    expect(reads, statements.join('\n---\n')).toHaveLength(1);
    // The answer is the connection as it is now: disabled, not the row read before the disconnect.
    expect(removed.body.data).toMatchObject({ id: connection.id, state: 'disabled' });
    expect((await slotsOf()).map((slot) => slot.start)).toContain(`${monday}T10:00:00+00:00`);
  });
});

describe('the cron’s sync jobs', () => {
  it('queues one sync of a calendar when two cron runs overlap (02:17 fires the minute and the daily trigger)', async () => {
    const owner = await signupOrganization('Calendar overlap');
    const connection = await connectLocal(owner);
    const { queue, sent: recorded } = recordingQueue();
    const sentBodies = () => recorded.map((message) => message.body);
    const run = () => worker.scheduled(createScheduledController({ cron: '* * * * *' }), { ...env, JOBS: queue });
    await Promise.all([run(), run(), run()]);
    const jobs = await inOrganization(owner.orgId, (tx) =>
      tx.select().from(calendarSyncJobs).where(eq(calendarSyncJobs.connectionId, connection.id)),
    );
    expect(jobs).toHaveLength(1);
    expect(sentBodies().filter((body) => body.kind === 'calendar-sync' && body.orgId === owner.orgId)).toEqual([
      { kind: 'calendar-sync', orgId: owner.orgId, jobId: jobs[0].id },
    ]);
  });
});

describe('a confirmed booking writes the event into the rep’s calendar', () => {
  it('creates exactly one event, even with the queue message delivered twice and after a reconnect', async () => {
    const rep = await signupOrganization('Booked rep');
    await connectLocal(rep);
    const monday = mondayAhead();
    const slug = await slugOf(rep);
    const { response: booked, statements } = await statementsOf(() =>
      bookSlot(slug, `${monday}T13:00:00Z`, `${monday}T13:30:00Z`),
    );
    expect(booked.status, booked.text).toBe(201);
    // The event's job and outbox row ride in the confirmation's one write: still BEGIN, scope, write, COMMIT.
    const inRequest = statements.filter((text) => !/^delete from "job_outbox"/i.test(text));
    expect(inRequest.length, statements.join('\n---\n')).toBeLessThanOrEqual(4);
    const meetingId = booked.body.data.meeting_id as number;
    const [queued] = await inOrganization(rep.orgId, (tx) =>
      tx
        .select({ id: calendarEventWrites.id })
        .from(calendarEventWrites)
        .where(and(eq(calendarEventWrites.organizationId, rep.orgId), eq(calendarEventWrites.meetingId, meetingId))),
    );
    const message: JobMessage = { kind: 'calendar-event', orgId: rep.orgId, jobId: queued.id };
    // The outbox's own send after commit delivers it once; the queue may deliver it again, even twice at once.
    await Promise.all([deliver([message]), deliver([message])]);
    await deliver([message]);
    const events = await inOrganization(rep.orgId, (tx) =>
      tx.select().from(localCalendarEvents).where(eq(localCalendarEvents.organizationId, rep.orgId)),
    );
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      title: 'Meeting with Grace Hopper',
      requestId: `meeting:${rep.orgId}:${meetingId}`,
    });
    const [write] = await inOrganization(rep.orgId, (tx) =>
      tx
        .select()
        .from(calendarEventWrites)
        .where(and(eq(calendarEventWrites.organizationId, rep.orgId), eq(calendarEventWrites.meetingId, meetingId))),
    );
    expect(write).toMatchObject({ state: 'created', providerEventId: `local_${events[0].id}`, provider: 'local' });

    // Reconnecting the calendar and a late redelivery make no second event.
    const listed = await call('GET', '/api/calendar/connections/list', { token: rep.token });
    await call('DELETE', `/api/calendar/connections/delete/${listed.body.data[0].id}`, { token: rep.token });
    await connectLocal(rep);
    await deliver([message]);
    const after = await inOrganization(rep.orgId, (tx) =>
      tx.select().from(localCalendarEvents).where(eq(localCalendarEvents.organizationId, rep.orgId)),
    );
    expect(after).toHaveLength(1);
  });
});

describe('a booked meeting’s calendar event follows the meeting', () => {
  it('moves with it, is deleted when it is cancelled or deleted, comes back when it is scheduled again, once each under redelivery; the freed time is bookable again', async () => {
    const rep = await signupOrganization('Event follows');
    await connectLocal(rep);
    const monday = mondayAhead();
    const me = (await call('GET', '/api/user/my', { token: rep.token })).body.data;
    const booked = await bookSlot(me.booking_slug, `${monday}T13:00:00Z`, `${monday}T13:30:00Z`);
    expect(booked.status, booked.text).toBe(201);
    const meetingId = booked.body.data.meeting_id as number;
    const writeOf = async () =>
      (
        await inOrganization(rep.orgId, (tx) =>
          tx.select().from(calendarEventWrites).where(eq(calendarEventWrites.organizationId, rep.orgId)),
        )
      )[0];
    const eventsOf = () =>
      inOrganization(rep.orgId, (tx) =>
        tx.select().from(localCalendarEvents).where(eq(localCalendarEvents.organizationId, rep.orgId)),
      );
    const job = async () => {
      const message: JobMessage = { kind: 'calendar-event', orgId: rep.orgId, jobId: (await writeOf()).id };
      // Delivered twice (the outbox's send and a redelivery): the second changes nothing.
      await deliver([message]);
      await deliver([message]);
    };
    const sync = async () => {
      const [connection] = await inOrganization(rep.orgId, (tx) =>
        tx.select().from(connections).where(eq(connections.organizationId, rep.orgId)),
      );
      const queued = await call('POST', `/api/calendar/connections/${connection.id}/sync`, { token: rep.token });
      expect(queued.status, queued.text).toBeLessThan(300);
      const [syncJob] = await inOrganization(rep.orgId, (tx) =>
        tx
          .select()
          .from(calendarSyncJobs)
          .where(eq(calendarSyncJobs.organizationId, rep.orgId))
          .orderBy(desc(calendarSyncJobs.id)),
      );
      await deliver([{ kind: 'calendar-sync', orgId: rep.orgId, jobId: syncJob.id }]);
    };
    const publicStarts = async () =>
      (
        await call('GET', `/api/v1/booking/${me.booking_slug}/availability`, {
          query: { date: monday, tz: 'UTC' },
          headers: { 'cf-connecting-ip': randomIp() },
        })
      ).body.data.slots.map((slot: { start: string }) => slot.start) as string[];
    await job();
    expect(await eventsOf()).toEqual([
      expect.objectContaining({
        startsAt: new Date(`${monday}T13:00:00Z`),
        requestId: `meeting:${rep.orgId}:${meetingId}`,
      }),
    ]);

    // The rep moves the meeting: the same event moves, and once synced the old time is free again.
    const moved = await call('POST', `/api/meeting/update/${meetingId}`, {
      token: rep.token,
      body: { start_time: `${monday}T15:00:00Z`, end_time: `${monday}T15:30:00Z`, title: 'Pricing call', status: 2 },
    });
    expect(moved.status, moved.text).toBe(200);
    await job();
    const [movedEvent] = await eventsOf();
    expect(await eventsOf()).toHaveLength(1);
    expect(movedEvent).toMatchObject({
      startsAt: new Date(`${monday}T15:00:00Z`),
      endsAt: new Date(`${monday}T15:30:00Z`),
      title: 'Pricing call',
    });
    await sync();
    expect(await publicStarts()).toContain(`${monday}T13:00:00+00:00`);
    expect(await publicStarts()).not.toContain(`${monday}T15:00:00+00:00`);

    // Cancelled: the event is deleted from the calendar, and the slot is bookable again.
    const cancelled = await call('POST', `/api/meeting/update/${meetingId}`, { token: rep.token, body: { status: 4 } });
    expect(cancelled.status, cancelled.text).toBe(200);
    await job();
    expect(await eventsOf()).toEqual([]);
    expect(await writeOf()).toMatchObject({ state: 'deleted', providerEventId: null });
    await sync();
    expect(await publicStarts()).toContain(`${monday}T15:00:00+00:00`);

    // Scheduled again: a new event, under the next request id.
    await call('POST', `/api/meeting/update/${meetingId}`, { token: rep.token, body: { status: 1 } });
    await job();
    expect(await eventsOf()).toEqual([
      expect.objectContaining({
        startsAt: new Date(`${monday}T15:00:00Z`),
        requestId: `meeting:${rep.orgId}:${meetingId}#2`,
      }),
    ]);

    // Deleted: its event goes too.
    const removed = await call('DELETE', `/api/meeting/delete/${meetingId}`, { token: rep.token });
    expect(removed.status, removed.text).toBe(200);
    await job();
    expect(await eventsOf()).toEqual([]);
    expect(await writeOf()).toMatchObject({ state: 'deleted', meetingId: null });
  });

  it('moves into the new rep’s calendar when the meeting is given to another rep', async () => {
    const rep = await signupOrganization('Event handover');
    await connectLocal(rep);
    const member = await addMember(rep, {
      first_name: 'Colleague',
      last_name: 'Cole',
      email: uniqueEmail('colleague'),
    });
    const colleague = { ...rep, token: member.token, userId: member.userId };
    const theirs = await connectLocal(colleague);
    const monday = mondayAhead();
    const booked = await bookSlot(await slugOf(rep), `${monday}T11:00:00Z`, `${monday}T11:30:00Z`, {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
    });
    expect(booked.status, booked.text).toBe(201);
    const meetingId = booked.body.data.meeting_id as number;
    const job = async () => {
      const [write] = await inOrganization(rep.orgId, (tx) =>
        tx.select().from(calendarEventWrites).where(eq(calendarEventWrites.meetingId, meetingId)),
      );
      await deliver([{ kind: 'calendar-event', orgId: rep.orgId, jobId: write.id }]);
      await deliver([{ kind: 'calendar-event', orgId: rep.orgId, jobId: write.id }]);
    };
    await job();
    const given = await call('POST', `/api/meeting/update/${meetingId}`, {
      token: rep.token,
      body: { user_id: colleague.userId },
    });
    expect(given.status, given.text).toBe(200);
    await job();
    const events = await inOrganization(rep.orgId, (tx) =>
      tx.select().from(localCalendarEvents).where(eq(localCalendarEvents.organizationId, rep.orgId)),
    );
    expect(events.map((event) => [event.connectionId, event.requestId])).toEqual([
      [theirs.id, `meeting:${rep.orgId}:${meetingId}#2`],
    ]);
  });

  it('writes no event for a booked meeting cancelled while its rep’s calendar was disconnected, once it is connected again', async () => {
    const rep = await signupOrganization('Cancelled before connect');
    const first = await connectLocal(rep);
    const monday = mondayAhead();
    const booked = await bookSlot(await slugOf(rep), `${monday}T14:00:00Z`, `${monday}T14:30:00Z`, {
      name: 'Alan Turing',
      email: 'alan@example.com',
    });
    expect(booked.status, booked.text).toBe(201);
    const deliverAll = async () => {
      const writes = await inOrganization(rep.orgId, (tx) =>
        tx.select().from(calendarEventWrites).where(eq(calendarEventWrites.organizationId, rep.orgId)),
      );
      for (const write of writes) await deliver([{ kind: 'calendar-event', orgId: rep.orgId, jobId: write.id }]);
    };
    // Disconnected before the event was written: the write is skipped, for a later connection.
    await call('DELETE', `/api/calendar/connections/delete/${first.id}`, { token: rep.token });
    await deliverAll();
    const cancelled = await call('POST', `/api/meeting/update/${booked.body.data.meeting_id}`, {
      token: rep.token,
      body: { status: 4 },
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    await deliverAll();
    await connectLocal(rep);
    await deliverAll();
    const events = await inOrganization(rep.orgId, (tx) =>
      tx.select().from(localCalendarEvents).where(eq(localCalendarEvents.organizationId, rep.orgId)),
    );
    expect(events).toEqual([]);
  });
});

describe('a rep with a calendar connected', () => {
  it('is offered no slot past the synced window (60 days ahead), where the calendar’s busy times are unknown', async () => {
    const rep = await signupOrganization('Horizon rep');
    const me = (await call('GET', '/api/user/my', { token: rep.token })).body.data;
    // A Monday 70 to 76 days ahead: past the 60 days the busy sync reads.
    const far = new Date(Date.now() + 70 * 86_400_000);
    far.setUTCDate(far.getUTCDate() + ((8 - far.getUTCDay()) % 7));
    const day = far.toISOString().slice(0, 10);
    const slotsOf = async () =>
      (
        await call('GET', `/api/v1/booking/${me.booking_slug}/availability`, {
          query: { date: day, tz: 'UTC' },
          headers: { 'cf-connecting-ip': randomIp() },
        })
      ).body.data.slots as { start: string }[];
    // Without a calendar nothing is unknown: the day is offered.
    expect(await slotsOf()).not.toEqual([]);
    await connectLocal(rep);
    expect(await slotsOf()).toEqual([]);
    const own = await call('GET', '/api/calendar/availability', { token: rep.token, query: { date: day, tz: 'UTC' } });
    expect(own.body.data.slots).toEqual([]);
    const refused = await bookSlot(me.booking_slug, `${day}T10:00:00Z`, `${day}T10:30:00Z`, {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
    });
    expect([refused.status, refused.body.error?.code]).toEqual([409, 'slot_unavailable']);
    // Inside the window the calendar's rep is offered slots as before.
    const monday = mondayAhead();
    const near = await call('GET', `/api/v1/booking/${me.booking_slug}/availability`, {
      query: { date: monday, tz: 'UTC' },
      headers: { 'cf-connecting-ip': randomIp() },
    });
    expect(near.body.data.slots).not.toEqual([]);
    // Disconnected: the far days are offered again at once, on the public page too (its cache is dropped).
    const listed = await call('GET', '/api/calendar/connections/list', { token: rep.token });
    await call('DELETE', `/api/calendar/connections/delete/${listed.body.data[0].id}`, { token: rep.token });
    expect(await slotsOf()).not.toEqual([]);
  });
});

describe('a meeting added through the API is written into the rep’s calendar', () => {
  it('is written once, moves with the meeting and is deleted when it is cancelled, as a booked one; a rep without a calendar gets no write', async () => {
    const rep = await signupOrganization('API meeting rep');
    const connection = await connectLocal(rep);
    const monday = mondayAhead();
    const added = await call('POST', '/api/meeting/add', {
      token: rep.token,
      body: {
        title: 'Quarterly review',
        start_time: `${monday}T09:00:00Z`,
        end_time: `${monday}T09:45:00Z`,
        attendees: [{ email: 'ada@example.com', name: 'Ada' }],
      },
    });
    expect(added.status, added.text).toBe(201);
    const meetingId = added.body.data.id as number;
    const { writeOf, eventsOf, job } = meetingWrites(rep.orgId, meetingId);
    await job();
    expect(await eventsOf()).toEqual([
      expect.objectContaining({
        connectionId: connection.id,
        title: 'Quarterly review',
        startsAt: new Date(`${monday}T09:00:00Z`),
        endsAt: new Date(`${monday}T09:45:00Z`),
        attendees: [{ email: 'ada@example.com', name: 'Ada' }],
        requestId: `meeting:${rep.orgId}:${meetingId}`,
      }),
    ]);
    expect(await writeOf()).toMatchObject({ state: 'created', provider: 'local' });

    const moved = await call('POST', `/api/meeting/update/${meetingId}`, {
      token: rep.token,
      body: { start_time: `${monday}T16:00:00Z`, end_time: `${monday}T16:45:00Z` },
    });
    expect(moved.status, moved.text).toBe(200);
    await job();
    expect(await eventsOf()).toEqual([expect.objectContaining({ startsAt: new Date(`${monday}T16:00:00Z`) })]);

    const cancelled = await call('POST', `/api/meeting/update/${meetingId}`, { token: rep.token, body: { status: 4 } });
    expect(cancelled.status, cancelled.text).toBe(200);
    await job();
    expect(await eventsOf()).toEqual([]);
    expect(await writeOf()).toMatchObject({ state: 'deleted', providerEventId: null });

    // A rep without a calendar: no write, as for a booking.
    const plain = await signupOrganization('API meeting no calendar');
    const theirs = await call('POST', '/api/meeting/add', {
      token: plain.token,
      body: { title: 'Call', start_time: `${monday}T09:00:00Z`, end_time: `${monday}T09:30:00Z` },
    });
    expect(theirs.status, theirs.text).toBe(201);
    const writes = await inOrganization(plain.orgId, (tx) =>
      tx.select().from(calendarEventWrites).where(eq(calendarEventWrites.organizationId, plain.orgId)),
    );
    expect(writes).toEqual([]);
  });
});

describe('a busy-time sync drops the booking page’s cached slots', () => {
  it('shows time the rep blocked in their calendar as taken right after the sync reads it, not once the cache expires', async () => {
    const rep = await signupOrganization('Sync drops cache');
    const connection = await connectLocal(rep);
    const monday = mondayAhead();
    const slug = await slugOf(rep);
    const read = () => call('GET', `/api/v1/booking/${slug}/availability`, { query: { date: monday, tz: 'UTC' } });
    const startsOf = (response: Awaited<ReturnType<typeof read>>) =>
      response.body.data.slots.map((slot: { start: string }) => slot.start) as string[];
    await read();
    const warm = await read();
    expect(warm.headers.get('x-booking-cache')).toBe('HIT');
    expect(startsOf(warm)).toContain(`${monday}T10:00:00+00:00`);
    // The rep blocks 10:00-11:00 in their calendar; the next sync reads it.
    const blocked = await call('POST', '/api/calendar/local/events', {
      token: rep.token,
      body: { title: 'Focus time', start: `${monday}T10:00:00Z`, end: `${monday}T11:00:00Z` },
    });
    expect(blocked.status, blocked.text).toBe(201);
    await syncNow(rep, connection.id);
    const after = await read();
    expect(after.headers.get('x-booking-cache')).toBe('MISS');
    expect(startsOf(after)).not.toContain(`${monday}T10:00:00+00:00`);
    expect(startsOf(after)).toContain(`${monday}T11:00:00+00:00`);
    // A sync that changes none of the rep's busy time keeps the cached answer.
    expect((await read()).headers.get('x-booking-cache')).toBe('HIT');
    await syncNow(rep, connection.id);
    expect((await read()).headers.get('x-booking-cache')).toBe('HIT');
  });
});

describe('an event whose insert answer was lost', () => {
  /**
   * The meeting's write pending without an event id (its insert answer lost); cancelled, the
   * event is found by its request id and deleted, and the write moves on to its next request id.
   */
  async function cancelDeletesLostEvent(rep: SignedUp, meetingId: number, requestId: string) {
    const { writeOf, eventsOf } = meetingWrites(rep.orgId, meetingId);
    expect(await writeOf()).toMatchObject({ state: 'pending', providerEventId: null });
    await updateMeeting(rep, meetingId, { status: 4 });
    expect(await eventsOf()).toEqual([]);
    expect(await writeOf()).toMatchObject({ state: 'deleted', providerEventId: null, requestId: `${requestId}#2` });
  }

  it('is found by its request id and deleted when the meeting is cancelled before a retry recorded it; scheduled again, the meeting gets one new event', async () => {
    const rep = await signupOrganization('Lost insert');
    const connection = await connectLocal(rep);
    const { monday, meetingId } = await bookedMonday(rep);
    const requestId = `meeting:${rep.orgId}:${meetingId}`;
    // The provider made the event under the meeting's request id, but the answer never reached
    // the job (a timeout): the write is still pending and holds no event id.
    await lostInsert(rep.orgId, connection.id, requestId, monday);
    await cancelDeletesLostEvent(rep, meetingId, requestId);

    await updateMeeting(rep, meetingId, { status: 1 });
    const { writeOf, eventsOf } = meetingWrites(rep.orgId, meetingId);
    expect((await eventsOf()).map((event) => event.requestId)).toEqual([`${requestId}#2`]);
    expect(await writeOf()).toMatchObject({ state: 'created' });
  });

  it('is found in whichever of the rep’s calendars the insert reached, not only their newest, and deleted when the meeting is cancelled', async () => {
    const rep = await signupOrganization('Lost insert two calendars');
    const older = await connectLocal(rep);
    const { monday, meetingId } = await bookedMonday(rep);
    const requestId = `meeting:${rep.orgId}:${meetingId}`;
    // The insert reached the rep's only calendar then, and its answer was lost; the rep has
    // connected a second calendar since.
    await lostInsert(rep.orgId, older.id, requestId, monday);
    await connectLocal(rep);
    await cancelDeletesLostEvent(rep, meetingId, requestId);
  });

  it('is kept and recorded where the insert made it when the rep has connected another calendar since, not made a second time in the newest', async () => {
    const rep = await signupOrganization('Lost insert retried');
    const older = await connectLocal(rep);
    const { monday, meetingId } = await bookedMonday(rep);
    const requestId = `meeting:${rep.orgId}:${meetingId}`;
    await lostInsert(rep.orgId, older.id, requestId, monday, 'Stale title');
    await connectLocal(rep);
    const { writeOf, eventsOf, job } = meetingWrites(rep.orgId, meetingId);
    await job();
    expect((await eventsOf()).map((event) => [event.connectionId, event.requestId, event.title])).toEqual([
      [older.id, requestId, 'Meeting with Grace Hopper'],
    ]);
    expect(await writeOf()).toMatchObject({ state: 'created', connectionId: older.id, requestId });
  });
});

describe('a meeting given to a rep with a calendar', () => {
  it('is written into their calendar even when it had no event before (its former rep had no calendar)', async () => {
    const rep = await signupOrganization('Handover no calendar');
    const member = await addMember(rep, { first_name: 'Receiver', last_name: 'Rao', email: uniqueEmail('receiver') });
    const receiver = { ...rep, token: member.token, userId: member.userId };
    const theirs = await connectLocal(receiver);
    const monday = mondayAhead();
    const meeting = await call('POST', '/api/meeting/add', {
      token: rep.token,
      body: { title: 'Intro', start_time: `${monday}T10:00:00Z`, end_time: `${monday}T10:30:00Z` },
    });
    expect(meeting.status, meeting.text).toBe(201);
    const meetingId = meeting.body.data.id as number;
    const writesOf = () =>
      inOrganization(rep.orgId, (tx) =>
        tx.select().from(calendarEventWrites).where(eq(calendarEventWrites.meetingId, meetingId)),
      );
    expect(await writesOf()).toEqual([]);
    const given = await call('POST', `/api/meeting/update/${meetingId}`, {
      token: rep.token,
      body: { user_id: receiver.userId },
    });
    expect(given.status, given.text).toBe(200);
    const [write] = await writesOf();
    expect(write).toMatchObject({ userId: receiver.userId, status: 'queued' });
    await deliver([{ kind: 'calendar-event', orgId: rep.orgId, jobId: write.id }]);
    await deliver([{ kind: 'calendar-event', orgId: rep.orgId, jobId: write.id }]);
    const events = await inOrganization(rep.orgId, (tx) =>
      tx.select().from(localCalendarEvents).where(eq(localCalendarEvents.organizationId, rep.orgId)),
    );
    expect(events.map((event) => [event.connectionId, event.requestId, event.title])).toEqual([
      [theirs.id, `meeting:${rep.orgId}:${meetingId}`, 'Intro'],
    ]);
  });
});

describe('connecting a calendar writes the rep’s upcoming meetings into it', () => {
  it('writes the scheduled meetings starting in the future made before the connect, once each (a second connect and redeliveries add none), never a cancelled or past one', async () => {
    const rep = await signupOrganization('Connect backfill');
    const monday = mondayAhead();
    const add = async (body: Record<string, unknown>) => {
      const added = await call('POST', '/api/meeting/add', { token: rep.token, body });
      expect(added.status, added.text).toBe(201);
      return added.body.data.id as number;
    };
    const upcoming = await add({
      title: 'Upcoming',
      start_time: `${monday}T09:00:00Z`,
      end_time: `${monday}T09:30:00Z`,
    });
    const rescheduled = await add({
      title: 'Rescheduled',
      start_time: `${monday}T11:00:00Z`,
      end_time: `${monday}T11:30:00Z`,
      status: 2,
    });
    await add({ title: 'Cancelled', start_time: `${monday}T10:00:00Z`, end_time: `${monday}T10:30:00Z`, status: 4 });
    await add({ title: 'Past', start_time: '2026-01-05T09:00:00Z', end_time: '2026-01-05T09:30:00Z' });
    // Another rep's meeting is theirs to write, into their own calendar.
    const email = uniqueEmail('backfill-colleague');
    const colleague = await call('POST', '/api/user/add', {
      token: rep.token,
      body: { first_name: 'Other', last_name: 'Rep', email, phone_no: '+15550102', password: 'password123' },
    });
    expect(colleague.status, colleague.text).toBe(201);
    await add({
      title: 'Colleague’s',
      user_id: colleague.body.data.id,
      start_time: `${monday}T12:00:00Z`,
      end_time: `${monday}T12:30:00Z`,
    });
    const deliverAll = async () => {
      const writes = await inOrganization(rep.orgId, (tx) =>
        tx.select().from(calendarEventWrites).where(eq(calendarEventWrites.organizationId, rep.orgId)),
      );
      // Each delivered twice: a redelivery makes no second event.
      for (const write of writes) {
        await deliver([{ kind: 'calendar-event', orgId: rep.orgId, jobId: write.id }]);
        await deliver([{ kind: 'calendar-event', orgId: rep.orgId, jobId: write.id }]);
      }
      return writes;
    };
    const eventsOf = () =>
      inOrganization(rep.orgId, (tx) =>
        tx
          .select()
          .from(localCalendarEvents)
          .where(eq(localCalendarEvents.organizationId, rep.orgId))
          .orderBy(localCalendarEvents.startsAt),
      );
    const connection = await connectLocal(rep);
    const writes = await deliverAll();
    expect(writes.map((write) => write.meetingId).sort()).toEqual([upcoming, rescheduled].sort());
    expect((await eventsOf()).map((event) => [event.connectionId, event.title, event.requestId])).toEqual([
      [connection.id, 'Upcoming', `meeting:${rep.orgId}:${upcoming}`],
      [connection.id, 'Rescheduled', `meeting:${rep.orgId}:${rescheduled}`],
    ]);

    // Connecting again (another calendar beside it) writes none of them twice.
    await connectLocal(rep);
    const again = await deliverAll();
    expect(again).toHaveLength(2);
    expect((await eventsOf()).map((event) => event.title)).toEqual(['Upcoming', 'Rescheduled']);
  });

  it('sends the jobs of more meetings than one queue batch holds (100) at once, leaving none to the outbox sweep', async () => {
    const rep = await signupOrganization('Connect backfill many');
    const start = new Date(`${mondayAhead()}T00:00:00Z`).getTime();
    await inOrganization(rep.orgId, (tx) =>
      tx.insert(meetings).values(
        Array.from({ length: 130 }, (_, index) => ({
          organizationId: rep.orgId,
          userId: rep.userId,
          title: `Call ${index}`,
          startTime: new Date(start + index * 3_600_000),
          endTime: new Date(start + index * 3_600_000 + 1_800_000),
          timezone: 'UTC',
          attendees: [],
          status: 1,
        })),
      ),
    );
    // Through the real queue, whose batches take at most 100 messages.
    await connectLocal(rep, { heldJobs: undefined });
    const writes = await inOrganization(rep.orgId, (tx) =>
      tx.select().from(calendarEventWrites).where(eq(calendarEventWrites.organizationId, rep.orgId)),
    );
    expect(writes).toHaveLength(130);
    const waiting = () =>
      inOrganization(rep.orgId, (tx) => tx.select().from(jobOutbox).where(eq(jobOutbox.organizationId, rep.orgId)));
    for (let tries = 0; tries < 50 && (await waiting()).length > 0; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await waiting()).toEqual([]);
  });

  it('writes them into a different calendar connected after the first was disconnected, for the meetings made meanwhile', async () => {
    const rep = await signupOrganization('Connect backfill switch');
    const monday = mondayAhead();
    const first = await connectLocal(rep);
    await call('DELETE', `/api/calendar/connections/delete/${first.id}`, { token: rep.token });
    // Made while no calendar was connected: no write row then.
    const added = await call('POST', '/api/meeting/add', {
      token: rep.token,
      body: { title: 'Meanwhile', start_time: `${monday}T09:00:00Z`, end_time: `${monday}T09:30:00Z` },
    });
    expect(added.status, added.text).toBe(201);
    const second = await connectLocal(rep);
    const writes = await inOrganization(rep.orgId, (tx) =>
      tx.select().from(calendarEventWrites).where(eq(calendarEventWrites.organizationId, rep.orgId)),
    );
    expect(writes).toHaveLength(1);
    await deliver([{ kind: 'calendar-event', orgId: rep.orgId, jobId: writes[0].id }]);
    const events = await inOrganization(rep.orgId, (tx) =>
      tx.select().from(localCalendarEvents).where(eq(localCalendarEvents.organizationId, rep.orgId)),
    );
    expect(events.map((event) => [event.connectionId, event.title])).toEqual([[second.id, 'Meanwhile']]);
  });

  it('moves the upcoming meetings whose events sit in a disconnected calendar into the calendar connected next, once each; past ones stay', async () => {
    const rep = await signupOrganization('Connect follows rep');
    const monday = mondayAhead();
    const first = await connectLocal(rep);
    const add = async (title: string, start: string, end: string) => {
      const added = await call('POST', '/api/meeting/add', {
        token: rep.token,
        body: { title, start_time: start, end_time: end },
      });
      expect(added.status, added.text).toBe(201);
      return added.body.data.id as number;
    };
    const upcoming = await add('Upcoming', `${monday}T09:00:00Z`, `${monday}T09:30:00Z`);
    const past = await add('Past', '2026-01-05T09:00:00Z', '2026-01-05T09:30:00Z');
    const writesOf = () =>
      inOrganization(rep.orgId, (tx) =>
        tx
          .select()
          .from(calendarEventWrites)
          .where(eq(calendarEventWrites.organizationId, rep.orgId))
          .orderBy(calendarEventWrites.meetingId),
      );
    // Every write's job delivered three times: a run that moves a write queues it again for its insert.
    const deliverAll = async () => {
      for (const write of await writesOf()) {
        for (let times = 0; times < 3; times++) {
          await deliver([{ kind: 'calendar-event', orgId: rep.orgId, jobId: write.id }]);
        }
      }
    };
    const eventsOf = async () =>
      (
        await inOrganization(rep.orgId, (tx) =>
          tx
            .select()
            .from(localCalendarEvents)
            .where(eq(localCalendarEvents.organizationId, rep.orgId))
            .orderBy(localCalendarEvents.id),
        )
      ).map((event) => [event.connectionId, event.title, event.requestId]);
    await deliverAll();
    const base = (meetingId: number) => `meeting:${rep.orgId}:${meetingId}`;
    expect(await eventsOf()).toEqual([
      [first.id, 'Upcoming', base(upcoming)],
      [first.id, 'Past', base(past)],
    ]);

    // The rep disconnects that calendar and connects another one.
    const removed = await call('DELETE', `/api/calendar/connections/delete/${first.id}`, { token: rep.token });
    expect(removed.status, removed.text).toBe(200);
    const second = await connectLocal(rep);
    expect((await writesOf()).map((write) => [write.meetingId, write.status])).toEqual([
      [upcoming, 'queued'],
      [past, 'completed'],
    ]);
    await deliverAll();
    await deliverAll();
    // The upcoming meeting has a new event in the new calendar (the old one stays in the
    // disconnected calendar, which nothing reaches); the past one stays where it was.
    expect(await eventsOf()).toEqual([
      [first.id, 'Upcoming', base(upcoming)],
      [first.id, 'Past', base(past)],
      [second.id, 'Upcoming', `${base(upcoming)}#2`],
    ]);
    expect((await writesOf()).map((write) => [write.state, write.connectionId, write.requestId, write.error])).toEqual([
      ['created', second.id, `${base(upcoming)}#2`, null],
      ['created', first.id, base(past), null],
    ]);

    // From there on the event in the new calendar follows the meeting; a past meeting's change
    // does not move it either.
    for (const [meetingId, title] of [
      [upcoming, 'Upcoming, renamed'],
      [past, 'Past, renamed'],
    ] as const) {
      const renamed = await call('POST', `/api/meeting/update/${meetingId}`, { token: rep.token, body: { title } });
      expect(renamed.status, renamed.text).toBe(200);
    }
    await deliverAll();
    expect(await eventsOf()).toEqual([
      [first.id, 'Upcoming', base(upcoming)],
      [first.id, 'Past', base(past)],
      [second.id, 'Upcoming, renamed', `${base(upcoming)}#2`],
    ]);
    expect((await writesOf())[1].error).toMatch(/disconnected/);
  });
});

describe('an event whose insert answer was lost, of a meeting given to another rep and cancelled', () => {
  /** The meeting given to another rep (its job run), then cancelled (its job run): no event is left anywhere. */
  async function giveThenCancel(owner: SignedUp, meetingId: number, userId: number) {
    await updateMeeting(owner, meetingId, { user_id: userId });
    await updateMeeting(owner, meetingId, { status: 4 });
    expect(await eventsOf(owner.orgId)).toEqual([]);
    expect(await writeOf(owner.orgId, meetingId)).toMatchObject({ state: 'deleted', providerEventId: null });
  }

  /** An organization with reps B and C, each with a local calendar. */
  async function twoReps(name: string) {
    const b = await signupOrganization(name);
    const member = await addMember(b, { first_name: 'Cora', last_name: 'Cole', email: uniqueEmail('rep-c') });
    const c = { ...b, token: member.token, userId: member.userId };
    return { b, c, bCalendar: await connectLocal(b), cCalendar: await connectLocal(c) };
  }
  const writeOf = (orgId: number, meetingId: number) => meetingWrites(orgId, meetingId).writeOf();
  const eventsOf = (orgId: number) => meetingWrites(orgId, 0).eventsOf();
  /** The write's job, delivered twice. */
  const job = (orgId: number, meetingId: number) => meetingWrites(orgId, meetingId).job();

  /**
   * While `work` runs, an insert into `connectionId`'s calendar under `requestId` fails (as if the
   * provider's answer timed out), so the job's transaction rolls back; the event is there already
   * (lostInsert): the provider made it.
   */
  async function losingAnswers(orgId: number, connectionId: number, requestId: string, work: () => Promise<void>) {
    const handle = openDatabase(readConfig(env));
    const trigger = `lose_calendar_answer_${orgId}_${connectionId}`;
    await handle.db.execute(
      sql.raw(`create function ${trigger}() returns trigger language plpgsql as $$
        begin
          if new.organization_id = ${orgId} and new.connection_id = ${connectionId} and new.request_id = '${requestId}' then
            raise exception 'the provider''s answer was lost' using errcode = '22023';
          end if;
          return new;
        end $$;
        create trigger ${trigger} before insert on local_calendar_events for each row execute function ${trigger}();`),
    );
    try {
      await work();
    } finally {
      await handle.db.execute(sql.raw(`drop trigger ${trigger} on local_calendar_events; drop function ${trigger}();`));
      await handle.close();
    }
  }

  it('deletes the orphan in the first rep’s calendar when the meeting is given to another rep, then cancelled', async () => {
    const { b, c, bCalendar } = await twoReps('Lost insert handover');
    const { monday, meetingId } = await bookedMonday(b);
    await lostInsert(b.orgId, bCalendar.id, `meeting:${b.orgId}:${meetingId}`, monday);
    await giveThenCancel(b, meetingId, c.userId);
  });

  it('deletes the orphan of a lost insert made when the meeting was handed over (under its next request id), once it is given to a third rep and cancelled', async () => {
    const { b, c, bCalendar } = await twoReps('Lost handover insert');
    // Rep A holds the meeting first, its event recorded in A's calendar.
    const emailA = uniqueEmail('rep-a');
    const addedA = await call('POST', '/api/user/add', {
      token: b.token,
      body: { first_name: 'Abe', last_name: 'Ames', email: emailA, phone_no: '+15550104', password: 'password123' },
    });
    expect(addedA.status, addedA.text).toBe(201);
    const loginA = await call('POST', '/api/auth/login', { body: { email: emailA, password: 'password123' } });
    const a = { ...b, token: loginA.body.access_token as string, userId: addedA.body.data.id as number };
    await connectLocal(a);
    const { monday, meetingId } = await bookedMonday(a);
    await job(b.orgId, meetingId);
    expect(await writeOf(b.orgId, meetingId)).toMatchObject({ state: 'created', userId: a.userId });
    // Given to B: B's calendar makes the event under `#2`, but the answer never reaches the job
    // (here: the event is there, and the job's insert fails as if it timed out), so the job's
    // transaction rolls back.
    const lostId = `meeting:${b.orgId}:${meetingId}#2`;
    await lostInsert(b.orgId, bCalendar.id, lostId, monday);
    await losingAnswers(b.orgId, bCalendar.id, lostId, async () => {
      await updateMeeting(b, meetingId, { user_id: b.userId });
      await job(b.orgId, meetingId);
    });
    // Then given to C before any retry, and cancelled.
    await giveThenCancel(b, meetingId, c.userId);
  });

  it('deletes the orphan of a lost insert into the second rep’s calendar once the meeting is given to a third rep and cancelled', async () => {
    const { b, c, bCalendar, cCalendar } = await twoReps('Lost second insert');
    const member = await addMember(b, { first_name: 'Dee', last_name: 'Dunn', email: uniqueEmail('rep-d') });
    const d = { ...b, token: member.token, userId: member.userId };
    await connectLocal(d);
    const { monday, meetingId } = await bookedMonday(b);
    const requestId = `meeting:${b.orgId}:${meetingId}`;
    // B's insert answer was lost: the event is in B's calendar, the write holds none.
    await lostInsert(b.orgId, bCalendar.id, requestId, monday);
    // Given to C: C's insert answer is lost too, and the job's transaction rolls back.
    await lostInsert(b.orgId, cCalendar.id, requestId, monday);
    await losingAnswers(b.orgId, cCalendar.id, requestId, async () => {
      await updateMeeting(b, meetingId, { user_id: c.userId });
      await job(b.orgId, meetingId);
    });
    // Given to D before any retry, then cancelled: no event is left in any calendar.
    await giveThenCancel(b, meetingId, d.userId);
  });
});

describe('a booking confirmed while its rep connects a calendar', () => {
  it('is written into the calendar when the confirmation waited for the connect (PostgreSQL)', async (context) => {
    const rep = await signupOrganization('Connect during booking');
    if (await onPglite(rep.orgId)) context.skip();
    const monday = mondayAhead();
    const slug = await slugOf(rep);
    // The connect has inserted the calendar and holds the rep's row (its booking version bump)
    // while the confirmation starts: its scope statement waits for the lock, and reads as of
    // before the connect's commit.
    const connect = await holdingLock(
      rep.orgId,
      sql`with connected as (
        insert into connections (organization_id, kind, provider, identity, owner_id)
        values (${rep.orgId}, 'calendar', 'local', 'primary', ${rep.userId}) returning id
      )
      update users set booking_version = booking_version + 1
      where organization_id = ${rep.orgId} and id = ${rep.userId} and exists (select 1 from connected)`,
    );
    const confirming = bookSlot(slug, `${monday}T13:00:00Z`, `${monday}T13:30:00Z`);
    await pause(500);
    connect.release();
    await connect.done;
    const booked = await confirming;
    expect(booked.status, booked.text).toBe(201);
    const writes = await inOrganization(rep.orgId, (tx) =>
      tx.select().from(calendarEventWrites).where(eq(calendarEventWrites.meetingId, booked.body.data.meeting_id)),
    );
    expect(writes).toHaveLength(1);
  });
});

describe('an event its owner deleted in the calendar', () => {
  it('is not made again by later changes of the meeting; cancelled and scheduled again, the meeting gets a new one', async () => {
    const rep = await signupOrganization('Owner deleted event');
    await connectLocal(rep);
    const { monday, meetingId } = await bookedMonday(rep);
    const { writeOf, eventsOf, job } = meetingWrites(rep.orgId, meetingId);
    const update = (body: Record<string, unknown>) => updateMeeting(rep, meetingId, body);
    await job();
    expect(await eventsOf()).toHaveLength(1);
    // The rep deletes the event in their calendar.
    await inOrganization(rep.orgId, (tx) =>
      tx.delete(localCalendarEvents).where(eq(localCalendarEvents.organizationId, rep.orgId)),
    );
    await update({ title: 'Renamed' });
    expect(await eventsOf()).toEqual([]);
    expect(await writeOf()).toMatchObject({ state: 'deleted' });
    // Later changes leave it deleted.
    await update({ start_time: `${monday}T15:00:00Z`, end_time: `${monday}T15:30:00Z` });
    await update({ title: 'Renamed again' });
    expect(await eventsOf()).toEqual([]);
    // Cancelled, then scheduled again: a new meeting in all but id, so a new event.
    await update({ status: 4 });
    await update({ status: 1 });
    expect((await eventsOf()).map((event) => [event.title, event.requestId])).toEqual([
      ['Renamed again', `meeting:${rep.orgId}:${meetingId}#2`],
    ]);
  });
});

describe('a meeting whose write was skipped for want of a calendar', () => {
  it('is written when the rep connects one if it is still upcoming, not once it is past', async () => {
    const rep = await signupOrganization('Skipped then connect');
    const first = await connectLocal(rep);
    const monday = mondayAhead();
    const add = async (title: string, start: string, end: string) => {
      const added = await call('POST', '/api/meeting/add', {
        token: rep.token,
        body: { title, start_time: start, end_time: end },
      });
      expect(added.status, added.text).toBe(201);
    };
    await add('Upcoming', `${monday}T09:00:00Z`, `${monday}T09:30:00Z`);
    await add('Past', '2026-01-05T09:00:00Z', '2026-01-05T09:30:00Z');
    // Disconnected before the jobs ran: both writes are skipped.
    await call('DELETE', `/api/calendar/connections/delete/${first.id}`, { token: rep.token });
    const writesOf = () =>
      inOrganization(rep.orgId, (tx) =>
        tx.select().from(calendarEventWrites).where(eq(calendarEventWrites.organizationId, rep.orgId)),
      );
    const deliverAll = async () => {
      for (const write of await writesOf()) {
        await deliver([{ kind: 'calendar-event', orgId: rep.orgId, jobId: write.id }]);
      }
    };
    await deliverAll();
    expect((await writesOf()).map((write) => write.state)).toEqual(['skipped', 'skipped']);
    const second = await connectLocal(rep);
    await deliverAll();
    const events = await inOrganization(rep.orgId, (tx) =>
      tx.select().from(localCalendarEvents).where(eq(localCalendarEvents.organizationId, rep.orgId)),
    );
    expect(events.map((event) => [event.connectionId, event.title])).toEqual([[second.id, 'Upcoming']]);
  });
});
