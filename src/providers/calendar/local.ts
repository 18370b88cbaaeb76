/**
 * The local calendar: events kept in Postgres (`local_calendar_events`), so calendars work with no
 * outside account (npm start, tests). Deterministic: an insert under a request id already used
 * answers the event made then; ids are `local_<row id>`; every event is busy and marked
 * `provider: "local"`. It has no sync token: a sync always reads the full range. Updating or
 * deleting an event changes its row; one already gone is no failure.
 */
import { and, eq, gt, lt } from 'drizzle-orm';
import type { Queryable } from '../../db/client';
import { localCalendarEvents } from '../../db/schema';
import type { CalendarEvent, CalendarProvider, EventRange, NewCalendarEvent } from './interface';

type LocalRow = typeof localCalendarEvents.$inferSelect;

function present(row: LocalRow): CalendarEvent {
  return {
    id: `local_${row.id}`,
    title: row.title,
    start: row.startsAt.toISOString(),
    end: row.endsAt.toISOString(),
    all_day: false,
    busy: true,
    cancelled: false,
    location: row.location,
    description: row.description,
    attendees: row.attendees.map((attendee) => ({ email: attendee.email, name: attendee.name ?? null })),
    conference_url: row.conferenceUrl,
    provider: 'local',
  };
}

/** The row id of a local event id (`local_<id>`); 0, which no row has, for anything else. */
/** The columns an event's details fill, on insert and on update. */
function eventColumns(event: Omit<NewCalendarEvent, 'request_id' | 'conference'>) {
  return {
    title: event.title,
    description: event.description ?? null,
    location: event.location ?? null,
    startsAt: event.start,
    endsAt: event.end,
    timeZone: event.time_zone,
    attendees: event.attendees ?? [],
  };
}

function localRowId(eventId: string): number {
  const match = /^local_(\d{1,15})$/.exec(eventId);
  return match ? Number(match[1]) : 0;
}

export function localCalendar(db: Queryable, connection: { organizationId: number; id: number }): CalendarProvider {
  const scope = and(
    eq(localCalendarEvents.organizationId, connection.organizationId),
    eq(localCalendarEvents.connectionId, connection.id),
  );
  async function listEvents(range: EventRange) {
    const rows = await db
      .select()
      .from(localCalendarEvents)
      .where(and(scope, lt(localCalendarEvents.startsAt, range.to), gt(localCalendarEvents.endsAt, range.from)))
      .orderBy(localCalendarEvents.startsAt, localCalendarEvents.id);
    return rows.map(present);
  }
  return {
    provider: 'local',
    listEvents,
    async syncEvents(range) {
      return { full: true, events: await listEvents(range), next_sync_token: null };
    },
    async insertEvent(event: NewCalendarEvent) {
      const [inserted] = await db
        .insert(localCalendarEvents)
        .values({
          organizationId: connection.organizationId,
          connectionId: connection.id,
          requestId: event.request_id,
          ...eventColumns(event),
          conferenceUrl: event.conference ? `https://meet.local.invalid/${event.request_id}` : null,
        })
        .onConflictDoNothing()
        .returning();
      if (inserted) return present(inserted);
      const [existing] = await db
        .select()
        .from(localCalendarEvents)
        .where(and(scope, eq(localCalendarEvents.requestId, event.request_id)));
      return present(existing);
    },
    async updateEvent(eventId, event) {
      const [updated] = await db
        .update(localCalendarEvents)
        .set(eventColumns(event))
        .where(and(scope, eq(localCalendarEvents.id, localRowId(eventId))))
        .returning();
      return updated ? present(updated) : null;
    },
    async deleteEvent(eventId) {
      await db.delete(localCalendarEvents).where(and(scope, eq(localCalendarEvents.id, localRowId(eventId))));
    },
    async findEvent(requestId) {
      const [row] = await db
        .select({ id: localCalendarEvents.id })
        .from(localCalendarEvents)
        .where(and(scope, eq(localCalendarEvents.requestId, requestId)));
      return row ? `local_${row.id}` : null;
    },
  };
}
