/**
 * The Google Calendar and Microsoft Graph adapters against their documented wire formats, with the
 * network mocked at fetch: the exact requests (URL, method, auth header, body) and the documented
 * answers replayed, paging, Google's 410 on a sync token, a duplicate insert, and failures. Then
 * the events route over a google connection: a 401 marks it needs_reconnect (409), a 503 is a 503.
 */
import { createMessageBatch } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { eq, sql } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { calendarBusyBlocks, calendarEventWrites, connections } from '../src/db/schema';
import worker from '../src/index';
import type { JobMessage } from '../src/jobs/messages';
import { googleCalendar, googleEventId } from '../src/providers/calendar/google';
import { EventIdTaken } from '../src/providers/calendar/interface';
import { outlookCalendar, REQUEST_ID_PROPERTY } from '../src/providers/calendar/outlook';
import { ProviderFailure } from '../src/providers/failures';
import { type CallOptions, call as apiCall, signupOrganization, type SignedUp } from './helpers/api';
import { inOrganization } from './helpers/leads';
import { json, mockFetch } from './helpers/fetch-mock';

/**
 * The jobs these tests' requests send, held back from the queue (CallOptions.heldJobs): each test
 * delivers a job itself, as often and when it means to, so a job it leaves pending (a lost
 * answer, a refused call) is not run behind its back, against its fetch mocks, by the queue
 * consumer wrangler.toml configures.
 */
const heldJobs: JobMessage[] = [];
const call = (method: string, path: string, options: CallOptions = {}) =>
  apiCall(method, path, { heldJobs, ...options });

/**
 * Asks for a sync of the calendar and delivers the job that request sent, as the queue would. The
 * job is the one the route just queued (its held message), not the last row a select happens to
 * return: without an order, PostgreSQL may hand an earlier, finished sync back last.
 */
async function syncCalendarNow(rep: SignedUp, connectionId: number) {
  const held = heldJobs.length;
  const queued = await call('POST', `/api/calendar/connections/${connectionId}/sync`, { token: rep.token });
  expect(queued.status, queued.text).toBeLessThan(300);
  const sent = heldJobs.slice(held).filter((message) => message.kind === 'calendar-sync');
  expect(sent).toHaveLength(1);
  const batch = createMessageBatch<JobMessage>('lead-management-jobs', [
    { id: `sync-${sent[0].jobId}`, timestamp: new Date(), attempts: 1, body: sent[0] },
  ]);
  await worker.queue(batch, env);
}

const token = async () => 'ya29.access-token';
const range = { from: new Date('2027-03-01T00:00:00Z'), to: new Date('2027-03-08T00:00:00Z') };

afterEach(() => {
  vi.restoreAllMocks();
});

const GOOGLE = 'https://www.googleapis.com/calendar/v3/calendars/primary/events';

/** Connects a google calendar for the rep, authorized with `accessToken` (201): its connection id. */
async function connectGoogleCalendar(rep: SignedUp, accessToken: string): Promise<number> {
  const response = await call('POST', '/api/calendar/connections/add', {
    token: rep.token,
    body: { provider: 'google', access_token: accessToken, refresh_token: '1//r', expires_in: 3600 },
  });
  expect(response.status, response.text).toBe(201);
  return response.body.data.id as number;
}

/**
 * A meeting added for the rep (201), 13:00-13:30 UTC on `day`: its id, its calendar write, and
 * the write's job delivered once through the Worker's queue handler.
 */
async function addedMeetingWrite(rep: SignedUp, title: string, day: string) {
  const added = await call('POST', '/api/meeting/add', {
    token: rep.token,
    body: { title, start_time: `${day}T13:00:00Z`, end_time: `${day}T13:30:00Z`, timezone: 'UTC' },
  });
  expect(added.status, added.text).toBe(201);
  const meetingId = added.body.data.id as number;
  const writeOf = async () =>
    (
      await inOrganization(rep.orgId, (tx) =>
        tx.select().from(calendarEventWrites).where(eq(calendarEventWrites.meetingId, meetingId)),
      )
    )[0];
  const job = async () => {
    const write = await writeOf();
    await worker.queue(
      createMessageBatch<JobMessage>('lead-management-jobs', [
        {
          id: `event-${write.id}-${crypto.randomUUID()}`,
          timestamp: new Date(),
          attempts: 1,
          body: { kind: 'calendar-event', orgId: rep.orgId, jobId: write.id },
        },
      ]),
      env,
    );
  };
  return { meetingId, writeOf, job };
}

describe('Google Calendar adapter', () => {
  it('lists with singleEvents, timeMin/timeMax and every page by pageToken', async () => {
    const requests = mockFetch(
      [
        json(200, {
          kind: 'calendar#events',
          items: [
            {
              id: 'evt1',
              status: 'confirmed',
              summary: 'Standup',
              start: { dateTime: '2027-03-01T09:00:00-05:00' },
              end: { dateTime: '2027-03-01T09:15:00-05:00' },
              attendees: [{ email: 'ada@example.com', displayName: 'Ada' }],
              hangoutLink: 'https://meet.google.com/abc-defg-hij',
            },
          ],
          nextPageToken: 'page-2',
        }),
        json(200, {
          items: [
            {
              id: 'evt2',
              summary: 'Holiday',
              start: { date: '2027-03-02' },
              end: { date: '2027-03-03' },
              transparency: 'transparent',
            },
          ],
          nextSyncToken: 'sync-1',
        }),
      ],
      { exhausted: 'throw' },
    );
    const events = await googleCalendar('primary', token).listEvents(range);
    expect(requests.map((request) => [request.method, request.url])).toEqual([
      [
        'GET',
        `${GOOGLE}?singleEvents=true&timeMin=2027-03-01T00%3A00%3A00.000Z&timeMax=2027-03-08T00%3A00%3A00.000Z&orderBy=startTime&maxResults=250`,
      ],
      [
        'GET',
        `${GOOGLE}?singleEvents=true&timeMin=2027-03-01T00%3A00%3A00.000Z&timeMax=2027-03-08T00%3A00%3A00.000Z&orderBy=startTime&maxResults=250&pageToken=page-2`,
      ],
    ]);
    expect(requests[0].headers.get('authorization')).toBe('Bearer ya29.access-token');
    expect(events).toEqual([
      {
        id: 'evt1',
        title: 'Standup',
        start: '2027-03-01T14:00:00.000Z',
        end: '2027-03-01T14:15:00.000Z',
        all_day: false,
        busy: true,
        cancelled: false,
        location: null,
        description: null,
        attendees: [{ email: 'ada@example.com', name: 'Ada' }],
        conference_url: 'https://meet.google.com/abc-defg-hij',
        provider: 'google',
      },
      expect.objectContaining({ id: 'evt2', all_day: true, busy: false, start: '2027-03-02T00:00:00.000Z' }),
    ]);
  });

  it('counts an invitation the calendar’s owner declined as free, one they accepted or left open as busy', async () => {
    const invite = (id: string, responseStatus: string) => ({
      id,
      status: 'confirmed',
      summary: 'Vendor pitch',
      start: { dateTime: '2027-03-01T15:00:00Z' },
      end: { dateTime: '2027-03-01T16:00:00Z' },
      attendees: [
        { email: 'vendor@example.com', organizer: true, responseStatus: 'accepted' },
        { email: 'rep@example.com', self: true, responseStatus },
      ],
    });
    mockFetch(
      [
        json(200, {
          items: [invite('declined1', 'declined'), invite('accepted1', 'accepted'), invite('open1', 'needsAction')],
        }),
      ],
      { exhausted: 'throw' },
    );
    const events = await googleCalendar('primary', token).listEvents(range);
    expect(events.map((event) => [event.id, event.busy])).toEqual([
      ['declined1', false],
      ['accepted1', true],
      ['open1', true],
    ]);
  });

  it('syncs incrementally with the token, and answers a 410 Gone with a full resync of the range', async () => {
    const incremental = mockFetch(
      [json(200, { items: [{ id: 'evt3', status: 'cancelled' }], nextSyncToken: 'sync-2' })],
      { exhausted: 'throw' },
    );
    const changes = await googleCalendar('primary', token).syncEvents(range, 'sync-1');
    expect(incremental[0].url).toBe(`${GOOGLE}?singleEvents=true&syncToken=sync-1&maxResults=250`);
    expect(changes).toMatchObject({
      full: false,
      next_sync_token: 'sync-2',
      events: [{ id: 'evt3', cancelled: true, busy: false }],
    });
    vi.restoreAllMocks();

    const resync = mockFetch(
      [
        json(410, { error: { code: 410, message: 'Sync token is no longer valid, a full sync is required.' } }),
        json(200, { items: [], nextSyncToken: 'sync-fresh' }),
      ],
      { exhausted: 'throw' },
    );
    const full = await googleCalendar('primary', token).syncEvents(range, 'sync-expired');
    expect(resync.map((request) => request.url)).toEqual([
      `${GOOGLE}?singleEvents=true&syncToken=sync-expired&maxResults=250`,
      `${GOOGLE}?singleEvents=true&timeMin=2027-03-01T00%3A00%3A00.000Z&timeMax=2027-03-08T00%3A00%3A00.000Z&maxResults=250`,
    ]);
    expect(full).toEqual({ full: true, events: [], next_sync_token: 'sync-fresh' });
  });

  it('inserts with our id and conference data; a retry that meets 409 reads the event made before and writes the fields asked for now', async () => {
    const id = await googleEventId('meeting:1:42');
    expect(id).toMatch(/^[0-9a-f]{64}$/);
    const event = {
      title: 'Demo',
      start: new Date('2027-03-01T14:00:00Z'),
      end: new Date('2027-03-01T14:30:00Z'),
      time_zone: 'America/New_York',
      attendees: [{ email: 'grace@example.com', name: 'Grace' }],
      conference: true,
      request_id: 'meeting:1:42',
    };
    const created = {
      id,
      status: 'confirmed',
      summary: 'Demo',
      start: { dateTime: '2027-03-01T09:00:00-05:00', timeZone: 'America/New_York' },
      end: { dateTime: '2027-03-01T09:30:00-05:00', timeZone: 'America/New_York' },
      conferenceData: { entryPoints: [{ entryPointType: 'video', uri: 'https://meet.google.com/xyz' }] },
    };
    const requests = mockFetch([json(200, created)], { exhausted: 'throw' });
    const inserted = await googleCalendar('primary', token).insertEvent(event);
    expect(requests[0]).toMatchObject({ method: 'POST', url: `${GOOGLE}?conferenceDataVersion=1` });
    expect(requests[0].headers.get('authorization')).toBe('Bearer ya29.access-token');
    expect(requests[0].json).toEqual({
      id,
      summary: 'Demo',
      start: { dateTime: '2027-03-01T14:00:00.000Z', timeZone: 'America/New_York' },
      end: { dateTime: '2027-03-01T14:30:00.000Z', timeZone: 'America/New_York' },
      attendees: [{ email: 'grace@example.com', displayName: 'Grace' }],
      conferenceData: { createRequest: { requestId: id, conferenceSolutionKey: { type: 'hangoutsMeet' } } },
    });
    expect(inserted).toMatchObject({
      id,
      conference_url: 'https://meet.google.com/xyz',
      start: '2027-03-01T14:00:00.000Z',
    });
    vi.restoreAllMocks();

    // The retry of an insert whose answer was lost, after the meeting moved: the event made then
    // is read, and written with the fields asked for now.
    const movedEvent = { ...event, start: new Date('2027-03-01T16:00:00Z'), end: new Date('2027-03-01T16:30:00Z') };
    const movedAnswer = {
      ...created,
      start: { dateTime: '2027-03-01T11:00:00-05:00', timeZone: 'America/New_York' },
      end: { dateTime: '2027-03-01T11:30:00-05:00', timeZone: 'America/New_York' },
    };
    const retry = mockFetch(
      [
        json(409, { error: { code: 409, message: 'The requested identifier already exists.' } }),
        json(200, created),
        json(200, movedAnswer),
      ],
      { exhausted: 'throw' },
    );
    const again = await googleCalendar('primary', token).insertEvent(movedEvent);
    expect(retry.map((request) => [request.method, request.url])).toEqual([
      ['POST', `${GOOGLE}?conferenceDataVersion=1`],
      ['GET', `${GOOGLE}/${id}`],
      ['PATCH', `${GOOGLE}/${id}`],
    ]);
    expect(retry[2].json).toEqual({
      summary: 'Demo',
      description: null,
      location: null,
      start: { dateTime: '2027-03-01T16:00:00.000Z', timeZone: 'America/New_York' },
      end: { dateTime: '2027-03-01T16:30:00.000Z', timeZone: 'America/New_York' },
      attendees: [{ email: 'grace@example.com', displayName: 'Grace' }],
    });
    expect(again).toMatchObject({
      id,
      start: '2027-03-01T16:00:00.000Z',
      conference_url: 'https://meet.google.com/xyz',
    });
    vi.restoreAllMocks();

    // An id taken by an event deleted since (Google keeps it, answered as cancelled): read, not
    // written to, and reported as taken, not as made (the calendar holds no event).
    const deleted = mockFetch(
      [
        json(409, {
          error: {
            errors: [{ domain: 'global', reason: 'duplicate', message: 'The requested identifier already exists.' }],
            code: 409,
            message: 'The requested identifier already exists.',
          },
        }),
        json(200, { kind: 'calendar#event', id, status: 'cancelled' }),
      ],
      { exhausted: 'throw' },
    );
    const taken = await googleCalendar('primary', token)
      .insertEvent(event)
      .catch((error: unknown) => error);
    expect(taken).toBeInstanceOf(EventIdTaken);
    expect(taken).toMatchObject({ requestId: 'meeting:1:42' });
    expect(deleted.map((request) => request.method)).toEqual(['POST', 'GET']);
  });

  it('patches an event we made with the fields we own and deletes it; 404 and 410 Gone mean it is gone already', async () => {
    const moved = {
      title: 'Demo, moved',
      start: new Date('2027-03-02T15:00:00Z'),
      end: new Date('2027-03-02T15:30:00Z'),
      time_zone: 'America/New_York',
      attendees: [{ email: 'grace@example.com', name: 'Grace' }],
      request_id: 'meeting:1:42',
    };
    const requests = mockFetch(
      [
        json(200, {
          id: 'evt42',
          status: 'confirmed',
          summary: 'Demo, moved',
          start: { dateTime: '2027-03-02T10:00:00-05:00', timeZone: 'America/New_York' },
          end: { dateTime: '2027-03-02T10:30:00-05:00', timeZone: 'America/New_York' },
        }),
        new Response(null, { status: 204 }),
        json(410, { error: { code: 410, message: 'Resource has been deleted' } }),
        json(404, { error: { code: 404, message: 'Not Found' } }),
      ],
      { exhausted: 'throw' },
    );
    const calendar = googleCalendar('primary', token);
    const updated = await calendar.updateEvent('evt42', moved);
    expect(requests[0]).toMatchObject({ method: 'PATCH', url: `${GOOGLE}/evt42` });
    expect(requests[0].headers.get('authorization')).toBe('Bearer ya29.access-token');
    // No conference data: the Meet link made with the event stays. A cleared description or location is null.
    expect(requests[0].json).toEqual({
      summary: 'Demo, moved',
      description: null,
      location: null,
      start: { dateTime: '2027-03-02T15:00:00.000Z', timeZone: 'America/New_York' },
      end: { dateTime: '2027-03-02T15:30:00.000Z', timeZone: 'America/New_York' },
      attendees: [{ email: 'grace@example.com', displayName: 'Grace' }],
    });
    expect(updated).toMatchObject({ id: 'evt42', start: '2027-03-02T15:00:00.000Z' });
    await calendar.deleteEvent('evt42');
    await calendar.deleteEvent('evt42');
    expect(await calendar.updateEvent('evt42', moved)).toBeNull();
    expect(requests.slice(1).map((request) => [request.method, request.url])).toEqual([
      ['DELETE', `${GOOGLE}/evt42`],
      ['DELETE', `${GOOGLE}/evt42`],
      ['PATCH', `${GOOGLE}/evt42`],
    ]);
    vi.restoreAllMocks();
    mockFetch([json(503, { error: { message: 'backend error' } })], { exhausted: 'throw' });
    await expect(calendar.deleteEvent('evt42')).rejects.toMatchObject({ kind: 'unavailable', status: 503 });
  });

  it('finds the event an insert made under a request id by its derived id: none when it is missing (404) or deleted (410); an id a cancelled event holds is taken (EventIdTaken)', async () => {
    const id = await googleEventId('meeting:1:42');
    const requests = mockFetch(
      [
        json(200, { id, status: 'confirmed', summary: 'Demo' }),
        json(404, { error: { code: 404, message: 'Not Found' } }),
        json(410, { error: { code: 410, message: 'Resource has been deleted' } }),
        json(200, { id, status: 'cancelled' }),
      ],
      { exhausted: 'throw' },
    );
    const calendar = googleCalendar('primary', token);
    expect(await calendar.findEvent('meeting:1:42')).toBe(id);
    expect(await calendar.findEvent('meeting:1:42')).toBeNull();
    expect(await calendar.findEvent('meeting:1:42')).toBeNull();
    // Held by an event deleted since: an insert under it moved on to the next request id.
    await expect(calendar.findEvent('meeting:1:42')).rejects.toBeInstanceOf(EventIdTaken);
    expect(requests.map((request) => [request.method, request.url])).toEqual(
      Array.from({ length: 4 }, () => ['GET', `${GOOGLE}/${id}`]),
    );
    expect(requests[0].headers.get('authorization')).toBe('Bearer ya29.access-token');
  });

  it('classifies 429 (with Retry-After) as temporary and 401 as an auth failure, never carrying the body', async () => {
    mockFetch([json(429, { error: { message: 'Rate Limit Exceeded secret-detail' } }, { 'retry-after': '17' })], {
      exhausted: 'throw',
    });
    const throttled = await googleCalendar('primary', token)
      .listEvents(range)
      .catch((error) => error);
    expect(throttled).toBeInstanceOf(ProviderFailure);
    expect(throttled).toMatchObject({ kind: 'unavailable', status: 429, retryAfterSeconds: 17 });
    expect(throttled.message).not.toContain('secret-detail');
    vi.restoreAllMocks();
    mockFetch([json(401, { error: { message: 'Invalid Credentials' } })], { exhausted: 'throw' });
    await expect(googleCalendar('primary', token).listEvents(range)).rejects.toMatchObject({
      kind: 'auth',
      status: 401,
    });
  });
});

const GRAPH = 'https://graph.microsoft.com/v1.0';

describe('Microsoft Graph calendar adapter', () => {
  it('reads me/calendarView in UTC and follows @odata.nextLink as given', async () => {
    const next = `${GRAPH}/me/calendarView?startDateTime=2027-03-01T00:00:00.000Z&endDateTime=2027-03-08T00:00:00.000Z&$top=100&$skip=100`;
    const requests = mockFetch(
      [
        json(200, {
          '@odata.context': "https://graph.microsoft.com/v1.0/$metadata#users('me')/calendarView",
          value: [
            {
              id: 'AAMkAGI1',
              subject: 'Review',
              bodyPreview: 'Agenda',
              start: { dateTime: '2027-03-01T14:00:00.0000000', timeZone: 'UTC' },
              end: { dateTime: '2027-03-01T15:00:00.0000000', timeZone: 'UTC' },
              showAs: 'busy',
              isCancelled: false,
              location: { displayName: 'Room 1' },
              attendees: [{ emailAddress: { address: 'ada@example.com', name: 'Ada' }, type: 'required' }],
              onlineMeeting: { joinUrl: 'https://teams.microsoft.com/l/meetup-join/1' },
            },
          ],
          '@odata.nextLink': next,
        }),
        json(200, {
          value: [
            {
              id: 'AAMkAGI2',
              subject: 'Focus',
              start: { dateTime: '2027-03-02T09:00:00.0000000', timeZone: 'UTC' },
              end: { dateTime: '2027-03-02T10:00:00.0000000', timeZone: 'UTC' },
              showAs: 'free',
            },
          ],
        }),
      ],
      { exhausted: 'throw' },
    );
    const events = await outlookCalendar('primary', token).listEvents(range);
    expect(requests.map((request) => [request.method, request.url])).toEqual([
      [
        'GET',
        `${GRAPH}/me/calendarView?startDateTime=2027-03-01T00%3A00%3A00.000Z&endDateTime=2027-03-08T00%3A00%3A00.000Z&%24top=100`,
      ],
      ['GET', next],
    ]);
    expect(requests[0].headers.get('authorization')).toBe('Bearer ya29.access-token');
    expect(requests[0].headers.get('prefer')).toBe('outlook.timezone="UTC"');
    expect(events).toEqual([
      {
        id: 'AAMkAGI1',
        title: 'Review',
        start: '2027-03-01T14:00:00.000Z',
        end: '2027-03-01T15:00:00.000Z',
        all_day: false,
        busy: true,
        cancelled: false,
        location: 'Room 1',
        description: 'Agenda',
        attendees: [{ email: 'ada@example.com', name: 'Ada' }],
        conference_url: 'https://teams.microsoft.com/l/meetup-join/1',
        provider: 'outlook',
      },
      expect.objectContaining({ id: 'AAMkAGI2', busy: false }),
    ]);
  });

  it('POSTs me/events with Prefer: outlook.timezone, wall-clock times of that zone and the transactionId', async () => {
    const requests = mockFetch(
      [
        json(201, {
          id: 'AAMkAGI3',
          subject: 'Demo',
          start: { dateTime: '2027-03-01T09:00:00.0000000', timeZone: 'America/New_York' },
          end: { dateTime: '2027-03-01T09:30:00.0000000', timeZone: 'America/New_York' },
          showAs: 'busy',
          onlineMeeting: { joinUrl: 'https://teams.microsoft.com/l/meetup-join/2' },
        }),
      ],
      { exhausted: 'throw' },
    );
    const event = await outlookCalendar('primary', token).insertEvent({
      title: 'Demo',
      start: new Date('2027-03-01T14:00:00Z'),
      end: new Date('2027-03-01T14:30:00Z'),
      time_zone: 'America/New_York',
      description: 'Agenda',
      attendees: [{ email: 'grace@example.com', name: null }],
      conference: true,
      request_id: 'meeting:1:42',
    });
    expect(requests[0]).toMatchObject({ method: 'POST', url: `${GRAPH}/me/events` });
    expect(requests[0].headers.get('prefer')).toBe('outlook.timezone="America/New_York"');
    expect(requests[0].headers.get('authorization')).toBe('Bearer ya29.access-token');
    expect(requests[0].json).toEqual({
      subject: 'Demo',
      body: { contentType: 'text', content: 'Agenda' },
      start: { dateTime: '2027-03-01T09:00:00', timeZone: 'America/New_York' },
      end: { dateTime: '2027-03-01T09:30:00', timeZone: 'America/New_York' },
      attendees: [{ emailAddress: { address: 'grace@example.com' }, type: 'required' }],
      isOnlineMeeting: true,
      onlineMeetingProvider: 'teamsForBusiness',
      transactionId: 'meeting:1:42',
      singleValueExtendedProperties: [{ id: REQUEST_ID_PROPERTY, value: 'meeting:1:42' }],
    });
    expect(event).toMatchObject({
      id: 'AAMkAGI3',
      start: '2027-03-01T14:00:00.000Z',
      end: '2027-03-01T14:30:00.000Z',
      conference_url: 'https://teams.microsoft.com/l/meetup-join/2',
    });
  });
});

describe('Microsoft Graph calendar adapter: finding an event by its request id', () => {
  it('GETs the events filtered on the request id’s extended property, quoting the value as OData does', async () => {
    const requests = mockFetch([json(200, { value: [{ id: 'AAMkAGI3=' }] }), json(200, { value: [] })], {
      exhausted: 'throw',
    });
    expect(await outlookCalendar('primary', token).findEvent('meeting:1:42')).toBe('AAMkAGI3=');
    expect(await outlookCalendar('work-calendar', token).findEvent("api:1:2:o'clock")).toBeNull();
    const filter = (value: string) =>
      `singleValueExtendedProperties/Any(ep: ep/id eq '${REQUEST_ID_PROPERTY}' and ep/value eq '${value}')`;
    expect(requests.map((request) => request.method)).toEqual(['GET', 'GET']);
    const [first, second] = requests.map((request) => new URL(request.url));
    expect(`${first.origin}${first.pathname}`).toBe(`${GRAPH}/me/events`);
    expect(first.searchParams.get('$filter')).toBe(filter('meeting:1:42'));
    expect(first.searchParams.get('$select')).toBe('id');
    expect(`${second.origin}${second.pathname}`).toBe(`${GRAPH}/me/calendars/work-calendar/events`);
    expect(second.searchParams.get('$filter')).toBe(filter("api:1:2:o''clock"));
    // Spaces travel as %20, which OData reads; never as '+'.
    expect(requests[0].url).not.toContain('+');
    expect(requests[0].headers.get('authorization')).toBe('Bearer ya29.access-token');
  });
});

describe('Microsoft Graph calendar adapter: changing and deleting an event we made', () => {
  it('PATCHes me/events/{id} in the event’s zone and DELETEs it; a 404 means it is gone already', async () => {
    const requests = mockFetch(
      [
        json(200, {
          id: 'AAMkAGI3=',
          subject: 'Demo, moved',
          start: { dateTime: '2027-03-02T10:00:00.0000000', timeZone: 'America/New_York' },
          end: { dateTime: '2027-03-02T10:30:00.0000000', timeZone: 'America/New_York' },
          showAs: 'busy',
        }),
        new Response(null, { status: 204 }),
        json(404, {
          error: { code: 'ErrorItemNotFound', message: 'The specified object was not found in the store.' },
        }),
        json(404, {
          error: { code: 'ErrorItemNotFound', message: 'The specified object was not found in the store.' },
        }),
      ],
      { exhausted: 'throw' },
    );
    const calendar = outlookCalendar('work-calendar', token);
    const updated = await calendar.updateEvent('AAMkAGI3=', {
      title: 'Demo, moved',
      start: new Date('2027-03-02T15:00:00Z'),
      end: new Date('2027-03-02T15:30:00Z'),
      time_zone: 'America/New_York',
      location: 'Room 4',
      attendees: [{ email: 'grace@example.com', name: 'Grace' }],
      request_id: 'meeting:1:42',
    });
    expect(requests[0]).toMatchObject({ method: 'PATCH', url: `${GRAPH}/me/events/AAMkAGI3%3D` });
    expect(requests[0].headers.get('prefer')).toBe('outlook.timezone="America/New_York"');
    expect(requests[0].json).toEqual({
      subject: 'Demo, moved',
      body: { contentType: 'text', content: '' },
      start: { dateTime: '2027-03-02T10:00:00', timeZone: 'America/New_York' },
      end: { dateTime: '2027-03-02T10:30:00', timeZone: 'America/New_York' },
      location: { displayName: 'Room 4' },
      attendees: [{ emailAddress: { address: 'grace@example.com', name: 'Grace' }, type: 'required' }],
    });
    expect(updated).toMatchObject({
      id: 'AAMkAGI3=',
      start: '2027-03-02T15:00:00.000Z',
      end: '2027-03-02T15:30:00.000Z',
    });
    await calendar.deleteEvent('AAMkAGI3=');
    await calendar.deleteEvent('AAMkAGI3=');
    expect(
      await calendar.updateEvent('AAMkAGI3=', {
        title: 'x',
        start: new Date('2027-03-02T15:00:00Z'),
        end: new Date('2027-03-02T15:30:00Z'),
        time_zone: 'UTC',
        request_id: 'meeting:1:42',
      }),
    ).toBeNull();
    expect(requests.slice(1).map((request) => [request.method, request.url])).toEqual([
      ['DELETE', `${GRAPH}/me/events/AAMkAGI3%3D`],
      ['DELETE', `${GRAPH}/me/events/AAMkAGI3%3D`],
      ['PATCH', `${GRAPH}/me/events/AAMkAGI3%3D`],
    ]);
  });
});

describe('the events route over a google connection', () => {
  let org: SignedUp;

  beforeAll(async () => {
    org = await signupOrganization('Calendar adapters');
  });

  const connectGoogle = () => connectGoogleCalendar(org, 'ya29.route-token');

  it('answers 503 provider_unavailable with Retry-After when Google is down', async () => {
    const id = await connectGoogle();
    const requests = mockFetch([json(503, { error: { message: 'backend error' } }, { 'retry-after': '20' })], {
      exhausted: 'throw',
    });
    const response = await call('GET', '/api/calendar/google/events', {
      token: org.token,
      query: { connection_id: id },
    });
    expect(requests[0].headers.get('authorization')).toBe('Bearer ya29.route-token');
    expect([response.status, response.body.error.code]).toEqual([503, 'provider_unavailable']);
    expect(response.headers.get('retry-after')).toBe('20');
    expect(response.text).not.toContain('backend error');
  });

  it('answers 409 idempotency_key_spent when the Idempotency-Key’s event was deleted in the calendar since', async () => {
    const id = await connectGoogle();
    const key = `spent-${crypto.randomUUID()}`;
    const eventId = await googleEventId(`api:${org.orgId}:${org.userId}:${key}`);
    const requests = mockFetch(
      // Made inside the request (a route reads no body created by the test).
      [
        () =>
          json(409, {
            error: {
              errors: [{ domain: 'global', reason: 'duplicate', message: 'The requested identifier already exists.' }],
              code: 409,
              message: 'The requested identifier already exists.',
            },
          }),
        () => json(200, { kind: 'calendar#event', id: eventId, status: 'cancelled' }),
      ],
      { exhausted: 'throw' },
    );
    const response = await call('POST', '/api/calendar/google/events', {
      token: org.token,
      headers: { 'idempotency-key': key },
      body: {
        connection_id: id,
        title: 'Demo',
        start: '2027-03-01T14:00:00Z',
        end: '2027-03-01T14:30:00Z',
      },
    });
    expect(requests.map((request) => request.method)).toEqual(['POST', 'GET']);
    expect(requests[0].json.id).toBe(eventId);
    expect([response.status, response.body.error?.code], response.text).toEqual([409, 'idempotency_key_spent']);
  });

  it('marks the connection needs_reconnect on a 401 and answers 409 naming it', async () => {
    const id = await connectGoogle();
    mockFetch([json(401, { error: { message: 'Invalid Credentials' } })], { exhausted: 'throw' });
    const response = await call('GET', '/api/calendar/google/events', {
      token: org.token,
      query: { connection_id: id },
    });
    expect([response.status, response.body.error.code]).toEqual([409, 'connection_needs_reconnect']);
    const [row] = await inOrganization(org.orgId, (tx) => tx.select().from(connections).where(eq(connections.id, id)));
    expect(row.state).toBe('needs_reconnect');
    expect(row.secret).not.toContain('ya29');
  });
});

describe('the busy sync of a google calendar', () => {
  it('holds an all-day busy event’s whole day in the rep’s own zone, not UTC’s', async () => {
    const rep = await signupOrganization('All-day rep');
    const me = (await call('GET', '/api/user/my', { token: rep.token })).body.data;
    const zone = await call('POST', `/api/user/update/${rep.userId}`, {
      token: rep.token,
      body: { first_name: me.first_name, email: me.email, phone_no: '+15550100', timezone: 'America/Los_Angeles' },
    });
    expect(zone.status, zone.text).toBe(200);
    const connectionId = await connectGoogleCalendar(rep, 'ya29.sync-token');
    // A Friday two to three weeks ahead (inside the sync window), off all day, and marked busy.
    const friday = new Date(Date.now() + 14 * 86_400_000);
    friday.setUTCDate(friday.getUTCDate() + ((12 - friday.getUTCDay()) % 7));
    const day = friday.toISOString().slice(0, 10);
    const next = new Date(friday.getTime() + 86_400_000).toISOString().slice(0, 10);
    const thursday = new Date(friday.getTime() - 86_400_000).toISOString().slice(0, 10);
    mockFetch(
      [
        json(200, {
          items: [
            {
              id: 'ooo1',
              status: 'confirmed',
              summary: 'Out of office',
              start: { date: day },
              end: { date: next },
              transparency: 'opaque',
            },
          ],
          nextSyncToken: 'sync-1',
        }),
      ],
      { only: (url) => url.startsWith('https://www.googleapis.com/'), exhausted: 'throw' },
    );
    await syncCalendarNow(rep, connectionId);
    const [block] = await inOrganization(rep.orgId, (tx) =>
      tx.select().from(calendarBusyBlocks).where(eq(calendarBusyBlocks.connectionId, connectionId)),
    );
    // Midnight to midnight in Los Angeles (08:00Z in winter, 07:00Z in summer), not in UTC.
    expect(block.startsAt.toISOString()).toMatch(new RegExp(`^${day}T0[78]:00:00`));
    expect(block.endsAt.toISOString()).toMatch(new RegExp(`^${next}T0[78]:00:00`));
    const slotsOn = async (date: string) =>
      (
        await call('GET', '/api/calendar/availability', {
          token: rep.token,
          query: { date, tz: 'America/Los_Angeles' },
        })
      ).body.data.slots.map((slot: { start: string }) => slot.start.slice(11, 16)) as string[];
    // The whole Friday is off, to the last slot; the Thursday before keeps its afternoon.
    expect(await slotsOn(day)).toEqual([]);
    expect(await slotsOn(thursday)).toContain('16:30');
  });

  it('reads the window whole again once a day despite a sync token, so events time brought into the window are seen', async () => {
    const rep = await signupOrganization('Daily full sync');
    const connectionId = await connectGoogleCalendar(rep, 'ya29.sync-token');
    const syncOnce = () => syncCalendarNow(rep, connectionId);
    const requests = mockFetch([json(200, { items: [], nextSyncToken: 'sync-1' })], {
      only: (url) => url.startsWith('https://www.googleapis.com/'),
    });
    await syncOnce();
    await syncOnce();
    // The first sync reads the window; the next, the same day, only the changes since its token.
    expect(requests.map((request) => new URL(request.url).searchParams.has('syncToken'))).toEqual([false, true]);
    // A day later, the window (which has moved on by a day) is read whole again.
    await inOrganization(rep.orgId, (tx) =>
      tx
        .update(connections)
        .set({
          settings: sql`${connections.settings} || ${JSON.stringify({ full_synced_at: new Date(Date.now() - 25 * 3600_000).toISOString() })}::jsonb`,
        })
        .where(eq(connections.id, connectionId)),
    );
    await syncOnce();
    expect(new URL(requests[2].url).searchParams.has('timeMin')).toBe(true);
    expect(new URL(requests[2].url).searchParams.has('syncToken')).toBe(false);
  });

  it('stops counting a revoked calendar’s last busy times once the rep connects it again', async () => {
    const rep = await signupOrganization('Reconnect rep');
    const connectGoogle = () => connectGoogleCalendar(rep, 'ya29.sync-token');
    const syncOnce = (connectionId: number) => syncCalendarNow(rep, connectionId);
    const monday = new Date(Date.now() + 14 * 86_400_000);
    monday.setUTCDate(monday.getUTCDate() + ((8 - monday.getUTCDay()) % 7));
    const day = monday.toISOString().slice(0, 10);
    const startsOf = async () =>
      (
        await call('GET', '/api/calendar/availability', { token: rep.token, query: { date: day, tz: 'UTC' } })
      ).body.data.slots.map((slot: { start: string }) => slot.start) as string[];
    const first = await connectGoogle();
    mockFetch(
      [
        json(200, {
          items: [
            {
              id: 'dentist1',
              status: 'confirmed',
              summary: 'Dentist',
              start: { dateTime: `${day}T10:00:00Z` },
              end: { dateTime: `${day}T11:00:00Z` },
            },
          ],
          nextSyncToken: 'sync-1',
        }),
      ],
      { only: (url) => url.startsWith('https://www.googleapis.com/'), exhausted: 'throw' },
    );
    await syncOnce(first);
    expect(await startsOf()).not.toContain(`${day}T10:00:00+00:00`);
    // Then the rep revokes the app's access: the next call is refused and the connection marked so
    // (providers/connections.ts markNeedsReconnect; done here directly, as PGlite runs one transaction at a time).
    await inOrganization(rep.orgId, (tx) =>
      tx.update(connections).set({ state: 'needs_reconnect' }).where(eq(connections.id, first)),
    );
    // The dentist is cancelled meanwhile; the rep connects the calendar again.
    const second = await connectGoogle();
    const listed = await call('GET', '/api/calendar/connections/list', { token: rep.token });
    expect(listed.body.data.map((connection: { id: number }) => connection.id)).toEqual([second]);
    expect(await startsOf()).toContain(`${day}T10:00:00+00:00`);
  });
});

describe('a meeting changed while its google calendar is disconnected', () => {
  it('leaves the event as it was with the reason recorded, and brings it in line once the same calendar is connected again', async () => {
    const rep = await signupOrganization('Disconnected changes');
    const connectGoogle = () => connectGoogleCalendar(rep, 'ya29.events-token');
    const first = await connectGoogle();
    const monday = new Date(Date.now() + 14 * 86_400_000);
    monday.setUTCDate(monday.getUTCDate() + ((8 - monday.getUTCDay()) % 7));
    const day = monday.toISOString().slice(0, 10);
    const { meetingId, writeOf, job } = await addedMeetingWrite(rep, 'Renewal', day);
    const eventId = await googleEventId(`meeting:${rep.orgId}:${meetingId}`);
    // Google answers an insert or a patch with the event as sent.
    const requests = mockFetch(
      [
        (request) =>
          json(200, {
            id: eventId,
            status: 'confirmed',
            summary: request.json?.summary,
            start: request.json?.start,
            end: request.json?.end,
          }),
      ],
      { only: (url) => url.startsWith('https://www.googleapis.com/') },
    );
    await job();
    expect(requests.map((request) => request.method)).toEqual(['POST']);
    expect(await writeOf()).toMatchObject({ state: 'created', providerEventId: eventId, connectionId: first });

    // The rep disconnects the calendar, then the meeting moves: nothing can reach the event.
    const removed = await call('DELETE', `/api/calendar/connections/delete/${first}`, { token: rep.token });
    expect(removed.status, removed.text).toBe(200);
    const moved = await call('POST', `/api/meeting/update/${meetingId}`, {
      token: rep.token,
      body: { start_time: `${day}T15:00:00Z`, end_time: `${day}T15:30:00Z` },
    });
    expect(moved.status, moved.text).toBe(200);
    await job();
    expect(requests).toHaveLength(1);
    const waiting = await writeOf();
    expect(waiting).toMatchObject({ state: 'created', providerEventId: eventId, status: 'completed' });
    expect(waiting.error).toMatch(/disconnected.*connected again/);

    // The same calendar connected again: the missed change is written to the same event.
    const second = await connectGoogle();
    expect(await writeOf()).toMatchObject({ status: 'queued', connectionId: second, error: null });
    await job();
    expect(requests.map((request) => [request.method, request.url])).toEqual([
      ['POST', 'https://www.googleapis.com/calendar/v3/calendars/primary/events'],
      ['PATCH', `https://www.googleapis.com/calendar/v3/calendars/primary/events/${eventId}`],
    ]);
    expect(requests[1].json.start).toEqual({ dateTime: `${day}T15:00:00.000Z`, timeZone: 'UTC' });
    expect(requests[1].headers.get('authorization')).toBe('Bearer ya29.events-token');
    expect(await writeOf()).toMatchObject({ state: 'created', providerEventId: eventId, error: null });
  });
});

describe('a meeting whose google event id is taken by an event deleted in the calendar', () => {
  it('moves on to the next request id and makes the event there, instead of recording the deleted one as made', async () => {
    const rep = await signupOrganization('Taken event id');
    await connectGoogleCalendar(rep, 'ya29.taken-token');
    const day = new Date(Date.now() + 21 * 86_400_000).toISOString().slice(0, 10);
    const { meetingId, writeOf, job } = await addedMeetingWrite(rep, 'Kickoff', day);
    const base = `meeting:${rep.orgId}:${meetingId}`;
    expect((await writeOf()).requestId).toBe(base);
    const takenId = await googleEventId(base);
    const nextId = await googleEventId(`${base}#2`);
    // The first id is held by an event deleted since (an earlier attempt's, deleted by the rep):
    // Google refuses the insert (409 duplicate) and answers the id as cancelled.
    const requests = mockFetch(
      [
        (request) =>
          request.json?.id === takenId
            ? json(409, {
                error: {
                  errors: [
                    { domain: 'global', reason: 'duplicate', message: 'The requested identifier already exists.' },
                  ],
                  code: 409,
                  message: 'The requested identifier already exists.',
                },
              })
            : json(200, { kind: 'calendar#event', id: request.json?.id, status: 'confirmed', summary: 'Kickoff' }),
        json(200, { kind: 'calendar#event', id: takenId, status: 'cancelled' }),
        (request) =>
          json(200, {
            kind: 'calendar#event',
            id: request.json?.id,
            status: 'confirmed',
            summary: request.json?.summary,
            start: request.json?.start,
            end: request.json?.end,
          }),
      ],
      { only: (url) => url.startsWith('https://www.googleapis.com/'), exhausted: 'throw' },
    );
    await job();
    expect(requests.map((request) => request.method)).toEqual(['POST', 'GET', 'POST']);
    expect(requests[1].url).toBe(`https://www.googleapis.com/calendar/v3/calendars/primary/events/${takenId}`);
    expect(requests[2].json).toMatchObject({ id: nextId, summary: 'Kickoff' });
    expect(await writeOf()).toMatchObject({
      state: 'created',
      providerEventId: nextId,
      requestId: `${base}#2`,
      error: null,
    });
  });

  it('finds and deletes the event made under the next request id whose answer was lost, once the meeting is cancelled', async () => {
    const rep = await signupOrganization('Taken id lost answer');
    await connectGoogleCalendar(rep, 'ya29.lost-token');
    const day = new Date(Date.now() + 21 * 86_400_000).toISOString().slice(0, 10);
    const { meetingId, writeOf, job } = await addedMeetingWrite(rep, 'Kickoff', day);
    const base = `meeting:${rep.orgId}:${meetingId}`;
    const takenId = await googleEventId(base);
    const nextId = await googleEventId(`${base}#2`);
    const duplicate = json(409, {
      error: {
        errors: [{ domain: 'global', reason: 'duplicate', message: 'The requested identifier already exists.' }],
        code: 409,
        message: 'The requested identifier already exists.',
      },
    });
    // The first id is held by a deleted event; the insert under `#2` makes the event, but its
    // answer is lost (a 503 after Google made it): the job's transaction rolls back.
    const inserts = mockFetch(
      [
        duplicate,
        json(200, { kind: 'calendar#event', id: takenId, status: 'cancelled' }),
        json(503, { error: { code: 503, message: 'Backend Error' } }),
      ],
      { only: (url) => url.startsWith('https://www.googleapis.com/'), exhausted: 'throw' },
    );
    await job();
    expect(inserts.map((request) => [request.method, request.json?.id ?? null])).toEqual([
      ['POST', takenId],
      ['GET', null],
      ['POST', nextId],
    ]);
    expect(await writeOf()).toMatchObject({ state: 'pending', providerEventId: null, requestId: base });
    vi.restoreAllMocks();

    // Cancelled before a retry recorded it: the event made under `#2` is found there and deleted.
    const cancelled = await call('POST', `/api/meeting/update/${meetingId}`, { token: rep.token, body: { status: 4 } });
    expect(cancelled.status, cancelled.text).toBe(200);
    const lookups = mockFetch(
      [
        json(200, { kind: 'calendar#event', id: takenId, status: 'cancelled' }),
        json(200, { kind: 'calendar#event', id: nextId, status: 'confirmed', summary: 'Kickoff' }),
        new Response(null, { status: 204 }),
      ],
      { only: (url) => url.startsWith('https://www.googleapis.com/'), exhausted: 'throw' },
    );
    await job();
    expect(lookups.map((request) => [request.method, request.url])).toEqual([
      ['GET', `${GOOGLE}/${takenId}`],
      ['GET', `${GOOGLE}/${nextId}`],
      ['DELETE', `${GOOGLE}/${nextId}`],
    ]);
    expect(lookups[2].headers.get('authorization')).toBe('Bearer ya29.lost-token');
    // A later event of the meeting takes the id after the one found.
    expect(await writeOf()).toMatchObject({
      state: 'deleted',
      providerEventId: null,
      requestId: `${base}#3`,
      error: null,
    });
  });
});
