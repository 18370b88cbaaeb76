/**
 * Microsoft Graph v1.0 calendars over fetch:
 *   - GET me/calendarView?startDateTime&endDateTime (recurring events expanded), every page read
 *     by following `@odata.nextLink` as given, with `Prefer: outlook.timezone="UTC"` so every
 *     time comes back in UTC;
 *   - POST me/events with `Prefer: outlook.timezone="<the event's zone>"`, start and end written as
 *     wall-clock times of that zone, and our request id as `transactionId`, which Graph documents
 *     as the client's identifier that avoids redundant POSTs when a client retries; a Teams link
 *     (isOnlineMeeting) when a conference is asked;
 *     The request id is also written as a single-value extended property (REQUEST_ID_PROPERTY), which
 *     Graph lets a GET filter events by (`singleValueExtendedProperties/Any(ep: ep/id eq … and
 *     ep/value eq …)`; transactionId is documented as neither a filter nor a key to read an event
 *     by), so an event whose insert answer was lost is found again;
 *   - PATCH me/events/{id} with the fields we own, written as on insert, and DELETE me/events/{id}
 *     (204); a 404 means the event is gone (deleted in the calendar, or by an earlier attempt).
 * A calendar other than the default is reached under me/calendars/{id}/. Graph's delta queries
 * are not used: a sync reads the full range (EventChanges.full).
 */
import { expectOk, ProviderFailure, providerFetch } from '../failures';
import {
  type CalendarEvent,
  type CalendarProvider,
  type EventRange,
  MAX_PAGES,
  type NewCalendarEvent,
} from './interface';

export const GRAPH_API = 'https://graph.microsoft.com/v1.0';
/**
 * The extended property holding an event's request id: a named string property ("String {GUID}
 * Name …") in a property set of our own (a fixed GUID, used by nothing else).
 */
export const REQUEST_ID_PROPERTY = 'String {6d3b1f0e-8a52-4c1d-9f4e-2b7a5c0d9e31} Name LeadManagementRequestId';
const PAGE_SIZE = 100;

interface GraphTime {
  dateTime: string;
  timeZone: string;
}

export interface GraphEvent {
  id: string;
  subject?: string | null;
  bodyPreview?: string | null;
  start?: GraphTime;
  end?: GraphTime;
  isAllDay?: boolean;
  isCancelled?: boolean;
  showAs?: 'free' | 'tentative' | 'busy' | 'oof' | 'workingElsewhere' | 'unknown';
  location?: { displayName?: string | null } | null;
  attendees?: { emailAddress?: { address?: string; name?: string } }[];
  onlineMeeting?: { joinUrl?: string | null } | null;
}

/** A UTC wall-clock time as Graph writes it ("2027-03-01T14:00:00.0000000") → ISO instant. */
function utcInstant(time: GraphTime | undefined): string {
  if (!time) return new Date(0).toISOString();
  const text = /[zZ]|[+-]\d\d:\d\d$/.test(time.dateTime) ? time.dateTime : `${time.dateTime}Z`;
  return new Date(text).toISOString();
}

export function presentGraphEvent(event: GraphEvent, times?: { start: string; end: string }): CalendarEvent {
  const cancelled = event.isCancelled === true;
  return {
    id: event.id,
    title: event.subject ?? '',
    start: times?.start ?? utcInstant(event.start),
    end: times?.end ?? utcInstant(event.end),
    all_day: event.isAllDay === true,
    busy: !cancelled && event.showAs !== 'free' && event.showAs !== 'workingElsewhere',
    cancelled,
    location: event.location?.displayName || null,
    description: event.bodyPreview || null,
    attendees: (event.attendees ?? [])
      .filter((attendee) => attendee.emailAddress?.address)
      .map((attendee) => ({
        email: attendee.emailAddress?.address as string,
        name: attendee.emailAddress?.name ?? null,
      })),
    conference_url: event.onlineMeeting?.joinUrl ?? null,
    provider: 'outlook',
  };
}

/** The wall-clock time of an instant in a zone, as Graph's dateTimeTimeZone wants it (no offset). */
function wallClock(instant: Date, zone: string): string {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(instant);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '00';
  return `${part('year')}-${part('month')}-${part('day')}T${part('hour')}:${part('minute')}:${part('second')}`;
}

export function outlookCalendar(calendarId: string, accessToken: () => Promise<string>): CalendarProvider {
  const root =
    calendarId === 'primary' ? `${GRAPH_API}/me` : `${GRAPH_API}/me/calendars/${encodeURIComponent(calendarId)}`;

  async function call(url: string, init: RequestInit & { headers?: Record<string, string> }) {
    const headers = { authorization: `Bearer ${await accessToken()}`, accept: 'application/json', ...init.headers };
    return providerFetch('outlook', url, { ...init, headers });
  }

  async function listEvents(range: EventRange): Promise<CalendarEvent[]> {
    const params = new URLSearchParams({
      startDateTime: range.from.toISOString(),
      endDateTime: range.to.toISOString(),
      $top: String(PAGE_SIZE),
    });
    let url: string | undefined = `${root}/calendarView?${params}`;
    const events: CalendarEvent[] = [];
    for (let page = 0; page < MAX_PAGES && url; page++) {
      const response = await call(url, { method: 'GET', headers: { prefer: 'outlook.timezone="UTC"' } });
      const body = (await (await expectOk('outlook', response, 'calendar events')).json()) as {
        value?: GraphEvent[];
        '@odata.nextLink'?: string;
      };
      events.push(...(body.value ?? []).map((event) => presentGraphEvent(event)));
      url = body['@odata.nextLink'];
    }
    if (url)
      throw new ProviderFailure('rejected', 'outlook', null, `outlook returned more than ${MAX_PAGES} pages of events`);
    return events;
  }

  /** The fields we write on an event, the same for insert and patch: times as wall clock in the event's zone. */
  function eventFields(event: NewCalendarEvent) {
    const zone = event.time_zone;
    return {
      subject: event.title,
      start: { dateTime: wallClock(event.start, zone), timeZone: zone },
      end: { dateTime: wallClock(event.end, zone), timeZone: zone },
      attendees: (event.attendees ?? []).map((attendee) => ({
        emailAddress: { address: attendee.email, ...(attendee.name ? { name: attendee.name } : {}) },
        type: 'required',
      })),
    };
  }

  const eventUrl = (eventId: string) => `${GRAPH_API}/me/events/${encodeURIComponent(eventId)}`;

  return {
    provider: 'outlook',
    listEvents,
    async syncEvents(range) {
      return { full: true, events: await listEvents(range), next_sync_token: null };
    },
    async insertEvent(event: NewCalendarEvent) {
      const zone = event.time_zone;
      const body = {
        ...eventFields(event),
        ...(event.description ? { body: { contentType: 'text', content: event.description } } : {}),
        ...(event.location ? { location: { displayName: event.location } } : {}),
        ...(event.conference ? { isOnlineMeeting: true, onlineMeetingProvider: 'teamsForBusiness' } : {}),
        transactionId: event.request_id,
        singleValueExtendedProperties: [{ id: REQUEST_ID_PROPERTY, value: event.request_id }],
      };
      const response = await call(`${root}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', prefer: `outlook.timezone="${zone}"` },
        body: JSON.stringify(body),
      });
      const created = (await (await expectOk('outlook', response, 'calendar event')).json()) as GraphEvent;
      // The answer's times are wall-clock times of `zone`: the instants asked for are the exact ones.
      return presentGraphEvent(created, { start: event.start.toISOString(), end: event.end.toISOString() });
    },
    async updateEvent(eventId, event) {
      const body = {
        ...eventFields(event),
        body: { contentType: 'text', content: event.description ?? '' },
        location: { displayName: event.location ?? '' },
      };
      const response = await call(eventUrl(eventId), {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', prefer: `outlook.timezone="${event.time_zone}"` },
        body: JSON.stringify(body),
      });
      if (response.status === 404) {
        await response.body?.cancel().catch(() => undefined);
        return null;
      }
      const updated = (await (await expectOk('outlook', response, 'calendar event')).json()) as GraphEvent;
      return presentGraphEvent(updated, { start: event.start.toISOString(), end: event.end.toISOString() });
    },
    async deleteEvent(eventId) {
      const response = await call(eventUrl(eventId), { method: 'DELETE' });
      if (!response.ok && response.status !== 404) await expectOk('outlook', response, 'calendar event');
      await response.body?.cancel().catch(() => undefined);
    },
    async findEvent(requestId) {
      const value = requestId.replaceAll("'", "''");
      const filter = `singleValueExtendedProperties/Any(ep: ep/id eq '${REQUEST_ID_PROPERTY}' and ep/value eq '${value}')`;
      const url = `${root}/events?$filter=${encodeURIComponent(filter)}&$select=id&$top=1`;
      const response = await call(url, { method: 'GET' });
      const body = (await (await expectOk('outlook', response, 'calendar events')).json()) as { value?: GraphEvent[] };
      return body.value?.[0]?.id ?? null;
    },
  };
}
