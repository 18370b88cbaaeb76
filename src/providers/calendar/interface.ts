/**
 * What the rest of the code may ask of a calendar, whichever provider holds it: its events in a
 * range (every page read), the changes since a sync token (for the busy sync), a new event,
 * inserted idempotently under a request id the caller derives deterministically, and changing or
 * deleting an event it made (a booked meeting moved or cancelled).
 */
export const CALENDAR_PROVIDERS = ['google', 'outlook', 'local'] as const;

/**
 * An insert whose event id (derived from `requestId`) is taken by an event deleted since: Google
 * keeps a deleted event's id, answering it as `status: "cancelled"`, and refuses another insert
 * under it (409 duplicate). Nothing was made; the request id is spent, and the caller moves on to
 * the next one (the calendar event job's `nextRequestId`).
 */
export class EventIdTaken extends Error {
  constructor(readonly requestId: string) {
    super(`The calendar event id of ${requestId} is taken by a deleted event`);
    this.name = 'EventIdTaken';
  }
}
export type CalendarProviderName = (typeof CALENDAR_PROVIDERS)[number];

export interface CalendarAttendee {
  email: string;
  name: string | null;
}

export interface CalendarEvent {
  /** The provider's event id. */
  id: string;
  title: string;
  /** ISO 8601 instants (all-day events: midnight UTC of their dates). */
  start: string;
  end: string;
  all_day: boolean;
  /** Whether the event holds the calendar owner's time (Google: not transparent; Graph: showAs not free). */
  busy: boolean;
  cancelled: boolean;
  location: string | null;
  description: string | null;
  attendees: CalendarAttendee[];
  conference_url: string | null;
  provider: CalendarProviderName;
}

export interface EventRange {
  from: Date;
  to: Date;
}

export interface NewCalendarEvent {
  title: string;
  start: Date;
  end: Date;
  /** IANA zone the event is written in (Graph's Prefer: outlook.timezone, Google's start.timeZone). */
  time_zone: string;
  description?: string | null;
  location?: string | null;
  attendees?: CalendarAttendee[];
  /** Ask the provider for a video conference (Google Meet, Teams). */
  conference?: boolean;
  /** Deterministic per logical event: a retry with the same id creates no second event. */
  request_id: string;
}

/** The changes since the last sync, or (full) every event of the range. */
export interface EventChanges {
  /** true: `events` is the whole range (the token was absent or expired); replace what is stored. */
  full: boolean;
  events: CalendarEvent[];
  /** The token for the next incremental sync (null: the provider gives none). */
  next_sync_token: string | null;
}

export interface CalendarProvider {
  readonly provider: CalendarProviderName;
  listEvents(range: EventRange): Promise<CalendarEvent[]>;
  /** With a token: the changes since it; without one, or when the provider expired it (Google 410): the full range. */
  syncEvents(range: EventRange, syncToken: string | null): Promise<EventChanges>;
  insertEvent(event: NewCalendarEvent): Promise<CalendarEvent>;
  /**
   * Writes `event`'s fields (title, times, zone, description, location, attendees) onto an event
   * we made (its provider id); the same call twice changes nothing more. null: the event is gone
   * from the calendar (deleted there).
   */
  updateEvent(eventId: string, event: NewCalendarEvent): Promise<CalendarEvent | null>;
  /** Deletes an event we made; one already gone is no failure (a retry, or deleted in the calendar). */
  deleteEvent(eventId: string): Promise<void>;
  /**
   * The provider id of the live event inserted under `requestId`, or null when the calendar holds
   * none: how an insert whose answer was lost (the provider made the event, our write of its id
   * failed or timed out) is found again, to delete it when its meeting is cancelled meanwhile.
   * Throws EventIdTaken when the id is held by an event deleted since (Google), as insertEvent
   * does: an insert under it moved on to the next request id, where the caller looks next.
   */
  findEvent(requestId: string): Promise<string | null>;
}

/** Pages read at most per listing: a runaway nextLink never loops forever. */
export const MAX_PAGES = 50;
