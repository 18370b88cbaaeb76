import { sql } from 'drizzle-orm';
import { bigint, check, index, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { connections } from './connections';
import { meetings, type MeetingAttendee } from './meetings';
import { organizations, users } from './organizations';
import { endedJobsIndex, jobRun, openJobsIndex } from './job-lease';
import { createdAt, id, organizationRef, tenantPolicy } from './tenancy';

/**
 * Busy time of a rep's connected calendar, copied from the provider by the calendar sync job
 * (modules/calendar/busy-sync.ts), so availability and the public booking page subtract it
 * without calling the provider. A sync replaces a connection's blocks in its window.
 */
export const calendarBusyBlocks = pgTable(
  'calendar_busy_blocks',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    connectionId: bigint({ mode: 'number' })
      .notNull()
      .references(() => connections.id, { onDelete: 'cascade' }),
    userId: bigint({ mode: 'number' })
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    startsAt: timestamp({ withTimezone: true }).notNull(),
    endsAt: timestamp({ withTimezone: true }).notNull(),
    providerEventId: text(),
  },
  (table) => [
    // Availability reads one rep's busy blocks in a window, like its meetings.
    index('calendar_busy_blocks_user_start_idx').on(table.organizationId, table.userId, table.startsAt),
    index('calendar_busy_blocks_connection_idx').on(table.organizationId, table.connectionId, table.startsAt),
    check('calendar_busy_blocks_end_after_start', sql`${table.endsAt} > ${table.startsAt}`),
    tenantPolicy('calendar_busy_blocks'),
  ],
);

/**
 * The local calendar provider's events (src/providers/calendar/local.ts): a calendar kept in
 * Postgres, so calendars work offline and in tests. `request_id` makes an insert idempotent, as
 * Google's client-chosen event id and Graph's transactionId do for the real ones.
 */
export const localCalendarEvents = pgTable(
  'local_calendar_events',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    connectionId: bigint({ mode: 'number' })
      .notNull()
      .references(() => connections.id, { onDelete: 'cascade' }),
    requestId: text().notNull(),
    title: text().notNull(),
    description: text(),
    location: text(),
    startsAt: timestamp({ withTimezone: true }).notNull(),
    endsAt: timestamp({ withTimezone: true }).notNull(),
    timeZone: text().notNull().default('UTC'),
    attendees: jsonb().$type<MeetingAttendee[]>().notNull().default([]),
    conferenceUrl: text(),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex('local_calendar_events_request_idx').on(table.organizationId, table.connectionId, table.requestId),
    index('local_calendar_events_start_idx').on(table.organizationId, table.connectionId, table.startsAt),
    tenantPolicy('local_calendar_events'),
  ],
);

/**
 * pending → created (the provider's event id stored) | skipped (no calendar connected) | failed;
 * deleted: the meeting was cancelled or deleted, and its event (if one was made) deleted from the
 * calendar. A meeting change queues the row again (modules/calendar/event-queue.ts).
 */
export const CALENDAR_WRITE_STATES = ['pending', 'created', 'skipped', 'failed', 'deleted'] as const;
export type CalendarWriteState = (typeof CALENDAR_WRITE_STATES)[number];

/**
 * A meeting's event in its rep's calendar, written through the outbox by the calendar-event job:
 * one row per meeting (so a redelivered message or a reconnected calendar never makes a second
 * event), the deterministic `request_id` sent to the provider, and the provider's event id once
 * it exists. `meeting_id` becomes null when the meeting is deleted (the row outlives it, so the
 * job can still delete the event from the calendar).
 */
export const calendarEventWrites = pgTable(
  'calendar_event_writes',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    meetingId: bigint({ mode: 'number' }).references(() => meetings.id, { onDelete: 'set null' }),
    userId: bigint({ mode: 'number' })
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    requestId: text().notNull(),
    state: text().$type<CalendarWriteState>().notNull().default('pending'),
    connectionId: bigint({ mode: 'number' }).references(() => connections.id, { onDelete: 'set null' }),
    provider: text(),
    providerEventId: text(),
    createdBy: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    // The calendar-event job's lifecycle (src/jobs): the row is the job (`status`); `state` is the
    // write's outcome, `error` its reason.
    ...jobRun(),
  },
  (table) => [
    // Parent deletes find this table's rows by it (the foreign key's check or cascade): migration 0066.
    index('calendar_event_writes_meeting_id_idx').on(table.meetingId),
    openJobsIndex('calendar_event_writes_open_lease_idx', table),
    uniqueIndex('calendar_event_writes_meeting_idx').on(table.organizationId, table.meetingId),
    check(
      'calendar_event_writes_state_check',
      sql`${table.state} in ('pending', 'created', 'skipped', 'failed', 'deleted')`,
    ),
    tenantPolicy('calendar_event_writes'),
  ],
);

/**
 * One sync of a calendar connection's busy times (modules/calendar/busy-sync.ts), a job row of the
 * shared lifecycle (src/jobs): queued by the cron (at most one open per connection) or the sync route.
 */
export const calendarSyncJobs = pgTable(
  'calendar_sync_jobs',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    connectionId: bigint({ mode: 'number' })
      .notNull()
      .references(() => connections.id, { onDelete: 'cascade' }),
    createdBy: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    ...jobRun(),
  },
  (table) => [
    index('calendar_sync_jobs_connection_idx').on(table.organizationId, table.connectionId, table.id),
    openJobsIndex('calendar_sync_jobs_open_lease_idx', table),
    endedJobsIndex('calendar_sync_jobs_ended_idx', table),
    tenantPolicy('calendar_sync_jobs'),
  ],
);
