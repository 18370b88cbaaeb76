/**
 * Google Calendar API v3 over fetch (googleapis needs Node's http):
 *   - events.list  GET  /calendars/{calendarId}/events?singleEvents=true&timeMin&timeMax[&pageToken]
 *     (recurring events expanded into instances), every page read; with a syncToken instead, the
 *     changes since it, and a 410 Gone on an expired token means a full resync of the range;
 *   - events.insert POST /calendars/{calendarId}/events[?conferenceDataVersion=1] with our own event
 *     id, derived from the request id (hex is valid base32hex), so a retry gets 409 and reads the
 *     event made the first time instead of making a second, then patches it with the fields asked
 *     for now (the meeting may have changed since that attempt's answer was lost); a Meet link through
 *     conferenceData.createRequest when asked;
 *   - events.get GET …/events/{eventId} with the id derived from a request id finds an event whose
 *     insert answer was lost (404 or 410: there is none; status cancelled: the id is taken by a
 *     deleted event, EventIdTaken, and an insert under it moved on to the next request id);
 *   - events.patch PATCH /calendars/{calendarId}/events/{eventId} with the fields we own (the
 *     conference, made once, is kept), and events.delete DELETE …/events/{eventId} (204); a 404, or
 *     the 410 Gone Google answers for an event already deleted, means the event is gone.
 * Failures are classified by providers/failures.ts (the body is never read on an error).
 */
import { expectOk, failureOf, ProviderFailure, providerFetch } from '../failures';
import {
  type CalendarEvent,
  type CalendarProvider,
  type EventChanges,
  EventIdTaken,
  type EventRange,
  MAX_PAGES,
  type NewCalendarEvent,
} from './interface';

export const GOOGLE_CALENDAR_API = 'https://www.googleapis.com/calendar/v3';
const PAGE_SIZE = 250;

interface GoogleTime {
  dateTime?: string;
  date?: string;
  timeZone?: string;
}

export interface GoogleEvent {
  id: string;
  status?: 'confirmed' | 'tentative' | 'cancelled';
  summary?: string;
  description?: string;
  location?: string;
  start?: GoogleTime;
  end?: GoogleTime;
  transparency?: 'opaque' | 'transparent';
  attendees?: { email?: string; displayName?: string; self?: boolean; responseStatus?: string }[];
  hangoutLink?: string;
  conferenceData?: { entryPoints?: { entryPointType?: string; uri?: string }[] };
}

interface GoogleEventList {
  items?: GoogleEvent[];
  nextPageToken?: string;
  nextSyncToken?: string;
}

function instant(time: GoogleTime | undefined): { iso: string; allDay: boolean } {
  if (time?.dateTime) return { iso: new Date(time.dateTime).toISOString(), allDay: false };
  if (time?.date) return { iso: new Date(`${time.date}T00:00:00Z`).toISOString(), allDay: true };
  return { iso: new Date(0).toISOString(), allDay: false };
}

export function presentGoogleEvent(event: GoogleEvent): CalendarEvent {
  const start = instant(event.start);
  const cancelled = event.status === 'cancelled';
  return {
    id: event.id,
    title: event.summary ?? '',
    start: start.iso,
    end: instant(event.end).iso,
    all_day: start.allDay,
    // An invitation the calendar's owner declined holds none of their time (as in Google's own free/busy).
    busy:
      !cancelled &&
      event.transparency !== 'transparent' &&
      !(event.attendees ?? []).some((attendee) => attendee.self && attendee.responseStatus === 'declined'),
    cancelled,
    location: event.location ?? null,
    description: event.description ?? null,
    attendees: (event.attendees ?? [])
      .filter((attendee) => attendee.email)
      .map((attendee) => ({ email: attendee.email as string, name: attendee.displayName ?? null })),
    conference_url:
      event.hangoutLink ??
      event.conferenceData?.entryPoints?.find((entry) => entry.entryPointType === 'video')?.uri ??
      null,
    provider: 'google',
  };
}

/** Our event id for a request id: SHA-256 in hex (Google ids are base32hex, 5 to 1024 characters). */
export async function googleEventId(requestId: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(requestId)));
  return [...digest].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

export function googleCalendar(calendarId: string, accessToken: () => Promise<string>): CalendarProvider {
  const base = `${GOOGLE_CALENDAR_API}/calendars/${encodeURIComponent(calendarId)}/events`;

  async function call(url: string, init: RequestInit): Promise<Response> {
    const headers = { authorization: `Bearer ${await accessToken()}`, accept: 'application/json', ...init.headers };
    return providerFetch('google', url, { ...init, headers });
  }

  /** Every page of one listing; a 410 is answered as null (the sync token expired). */
  async function readPages(
    query: Record<string, string>,
  ): Promise<{ events: GoogleEvent[]; sync: string | null } | null> {
    const events: GoogleEvent[] = [];
    let pageToken: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const params = new URLSearchParams({ ...query, maxResults: String(PAGE_SIZE) });
      if (pageToken) params.set('pageToken', pageToken);
      const response = await call(`${base}?${params}`, { method: 'GET' });
      if (response.status === 410 && query.syncToken) {
        await response.body?.cancel().catch(() => undefined);
        return null;
      }
      const body = (await (await expectOk('google', response, 'calendar events')).json()) as GoogleEventList;
      events.push(...(body.items ?? []));
      if (!body.nextPageToken) return { events, sync: body.nextSyncToken ?? null };
      pageToken = body.nextPageToken;
    }
    throw new ProviderFailure('rejected', 'google', null, `google returned more than ${MAX_PAGES} pages of events`);
  }

  const rangeQuery = (range: EventRange) => ({
    singleEvents: 'true',
    timeMin: range.from.toISOString(),
    timeMax: range.to.toISOString(),
  });

  /** The fields we write on an event, the same for insert and patch. */
  function eventFields(event: NewCalendarEvent) {
    return {
      summary: event.title,
      description: event.description ?? null,
      location: event.location ?? null,
      start: { dateTime: event.start.toISOString(), timeZone: event.time_zone },
      end: { dateTime: event.end.toISOString(), timeZone: event.time_zone },
      attendees: (event.attendees ?? []).map((attendee) => ({
        email: attendee.email,
        ...(attendee.name ? { displayName: attendee.name } : {}),
      })),
    };
  }

  const eventUrl = (eventId: string) => `${base}/${encodeURIComponent(eventId)}`;
  /** 404, or 410 Gone (deleted already): the event is not there to change. */
  const gone = (response: Response) => response.status === 404 || response.status === 410;

  /** events.patch with the fields we own; null when the event is gone (404, 410, or answered cancelled). */
  async function patchEvent(eventId: string, event: NewCalendarEvent): Promise<CalendarEvent | null> {
    const response = await call(eventUrl(eventId), {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(eventFields(event)),
    });
    if (gone(response)) {
      await response.body?.cancel().catch(() => undefined);
      return null;
    }
    const updated = (await (await expectOk('google', response, 'calendar event')).json()) as GoogleEvent;
    // An event deleted in the calendar answers the patch as cancelled: it is gone all the same.
    return updated.status === 'cancelled' ? null : presentGoogleEvent(updated);
  }

  return {
    provider: 'google',
    async listEvents(range) {
      const read = await readPages({ ...rangeQuery(range), orderBy: 'startTime' });
      return (read?.events ?? []).map(presentGoogleEvent);
    },
    async syncEvents(range, syncToken): Promise<EventChanges> {
      if (syncToken) {
        const changes = await readPages({ singleEvents: 'true', syncToken });
        if (changes)
          return { full: false, events: changes.events.map(presentGoogleEvent), next_sync_token: changes.sync };
      }
      // No token, or Google expired it (410 Gone): the documented answer is a full resync.
      const full = await readPages(rangeQuery(range));
      return { full: true, events: (full?.events ?? []).map(presentGoogleEvent), next_sync_token: full?.sync ?? null };
    },
    async insertEvent(event: NewCalendarEvent) {
      const id = await googleEventId(event.request_id);
      // A new event carries no empty description or location (a patch sends null to clear them).
      const { description, location, ...fields } = eventFields(event);
      const body = {
        id,
        ...fields,
        ...(description ? { description } : {}),
        ...(location ? { location } : {}),
        ...(event.conference
          ? { conferenceData: { createRequest: { requestId: id, conferenceSolutionKey: { type: 'hangoutsMeet' } } } }
          : {}),
      };
      const url = event.conference ? `${base}?conferenceDataVersion=1` : base;
      const response = await call(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (response.status === 409) {
        // The id is taken: the event was made by an earlier attempt. Read it instead of making another.
        await response.body?.cancel().catch(() => undefined);
        const existing = await call(`${base}/${id}`, { method: 'GET' });
        const made = (await (await expectOk('google', existing, 'calendar event')).json()) as GoogleEvent;
        // Deleted since (Google keeps its id, answered as cancelled): no event is in the calendar,
        // and an insert under this request id can make none. Until 2026-12-01 the
        // cancelled event was answered as made, and the meeting stayed without its event.
        if (made.status === 'cancelled') throw new EventIdTaken(event.request_id);
        // That attempt's answer was lost, and the meeting may have changed since: the event is
        // written with the fields asked for now (its conference, made then, is kept).
        return (await patchEvent(id, event)) ?? presentGoogleEvent(made);
      }
      if (!response.ok) throw await failureOf('google', response, 'calendar event');
      return presentGoogleEvent((await response.json()) as GoogleEvent);
    },
    updateEvent: patchEvent,
    async deleteEvent(eventId) {
      const response = await call(eventUrl(eventId), { method: 'DELETE' });
      if (!response.ok && !gone(response)) throw await failureOf('google', response, 'calendar event');
      await response.body?.cancel().catch(() => undefined);
    },
    async findEvent(requestId) {
      // Our inserts carry their own id, derived from the request id: the event is read by it.
      const response = await call(eventUrl(await googleEventId(requestId)), { method: 'GET' });
      if (gone(response)) {
        await response.body?.cancel().catch(() => undefined);
        return null;
      }
      const found = (await (await expectOk('google', response, 'calendar event')).json()) as GoogleEvent;
      // A deleted event keeps its id (events.get answers it as cancelled): there is none to delete
      // here, and an insert under this request id moved on to the next one (EventIdTaken).
      if (found.status === 'cancelled') throw new EventIdTaken(requestId);
      return found.id;
    },
  };
}
