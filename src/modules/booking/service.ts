/**
 * Public booking: a rep's profile, free slots and confirmation, reached by the rep's slug before
 * any organization is known. A profile or a cold availability read is one statement before any
 * tenant scope (the slug, unique across organizations, is the key, as an API key's hash is; the
 * meetings are selected by the rep's own organization and id). A confirmation (confirm.ts) locks
 * the rep in its scope statement, then checks the slot and writes in one statement, so of two
 * confirmations of one slot exactly one commits.
 */
import { clampToCalendar } from '../../core/calendar';
import { eq, sql, type SQL } from 'drizzle-orm';
import { BadRequest, NotFound } from '../../core/errors';
import type { Database, OrganizationLookup } from '../../db/client';
import {
  calendarBusyBlocks,
  connections,
  LIVE_MEETING_STATUSES,
  meetings,
  organizations,
  users,
} from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import type { Interval } from './availability';
import {
  availabilityFrom,
  availabilityOf,
  type AvailabilityParams,
  MAX_PUBLIC_RANGE_DAYS,
  liveCalendar,
  type RepScheduleRow,
} from './availability-query';

/** A rep whose page answers: enabled, active, not deleted, in an active organization. */
export function liveRep(slug: string): SQL {
  return sql`${users.bookingSlug} = ${slug.toLowerCase()} and ${users.bookingEnabled} and ${users.deletedAt} is null and ${users.stateId} = 1
    and exists (select 1 from ${organizations} where ${organizations.id} = ${users.organizationId} and ${organizations.stateId} = 1)`;
}

/** The organization of the slug's rep, found by the scoping statement (slugs are unique across organizations). */
export function organizationOfSlug(slug: string): OrganizationLookup {
  return { sql: sql`select ${users.organizationId} from ${users} where ${liveRep(slug)}` };
}

export interface BookingRep extends RepScheduleRow {
  name: string;
  booking_slug: string;
  booking_version: number;
  booking_meeting_tool: string;
  /** The rep has a calendar connected: a confirmed booking is written into it (modules/calendar/event-job.ts). */
  has_calendar?: boolean;
}

/** The rep's schedule and booking fields as one JSON value (of the `users` row in scope). */
export function repJson(): SQL {
  return sql`json_build_object(
      'id', ${users.id},
      'name', concat_ws(' ', ${users.firstName}, ${users.lastName}),
      'booking_slug', ${users.bookingSlug},
      'booking_version', ${users.bookingVersion},
      'booking_meeting_tool', ${users.bookingMeetingTool},
      'timezone', ${users.timezone},
      'working_hours', ${users.workingHours},
      'meeting_duration', ${users.meetingDuration},
      'buffer_minutes', ${users.bufferMinutes},
      'min_notice_minutes', ${users.minNoticeMinutes},
      'has_calendar', exists (select 1 from ${connections} where ${connections.organizationId} = ${users.organizationId}
        and ${connections.ownerId} = ${users.id} and ${connections.kind} = 'calendar' and ${connections.deletedAt} is null))`;
}

/** GET /api/v1/booking/{slug}: one statement, before any tenant scope (the slug is the key). */
export async function bookingProfile(db: Database, slug: string) {
  const [row] = await db
    .select({
      slug: users.bookingSlug,
      firstName: users.firstName,
      lastName: users.lastName,
      title: users.jobTitle,
      organizationName: organizations.name,
      duration: users.meetingDuration,
      timezone: users.timezone,
      version: users.bookingVersion,
    })
    .from(users)
    .innerJoin(organizations, eq(organizations.id, users.organizationId))
    .where(liveRep(slug));
  if (!row) throw new NotFound('Booking page', slug);
  return {
    version: row.version,
    profile: {
      slug: row.slug as string,
      name: [row.firstName, row.lastName].filter(Boolean).join(' '),
      title: row.title,
      organization_name: row.organizationName,
      duration: row.duration,
      timezone: row.timezone ?? 'UTC',
    },
  };
}

const DAY_MS = 86_400_000;

/**
 * A window that surely holds the request's days in any zone (offsets lie within ±14 hours), the
 * rep's buffer (at most 4 hours) and a slot (at most 8 hours): the exact window needs the rep's
 * zone, which the same statement reads. Meetings outside the exact window change no slot.
 */
function coarseWindow(params: AvailabilityParams, now: number): Interval {
  const first = params.date ?? params.from;
  const startDay = first ? Date.parse(`${first}T00:00:00Z`) : now;
  const last = params.date ?? params.to;
  const endDay = last ? Date.parse(`${last}T00:00:00Z`) : startDay + 6 * DAY_MS;
  return { start: startDay - 2 * DAY_MS, end: Math.max(endDay, startDay) + 3 * DAY_MS };
}

/**
 * GET /api/v1/booking/{slug}/availability: one statement, before any tenant scope (the slug is the
 * key, as for the profile): the rep and its live meetings in a window wide enough for any zone,
 * the meetings selected by the rep's own organization and id.
 */
export async function bookingAvailability(db: Database, slug: string, params: AvailabilityParams, now = Date.now()) {
  const window = coarseWindow(params, now);
  type Busy = { start: string; end: string }[];
  const result = await db.execute<{ rep: BookingRep; busy: Busy; calendar_busy: Busy }>(sql`
    select ${repJson()} as rep,
      (select coalesce(json_agg(json_build_object('start', ${meetings.startTime}, 'end', ${meetings.endTime})), '[]'::json)
         from ${meetings}
        where ${meetings.organizationId} = ${users.organizationId} and ${meetings.userId} = ${users.id}
          and ${meetings.status} in (${sql.join(
            LIVE_MEETING_STATUSES.map((status) => sql`${status}`),
            sql`, `,
          )})
          and ${meetings.startTime} < ${new Date(clampToCalendar(window.end)).toISOString()}
          and ${meetings.endTime} > ${new Date(clampToCalendar(window.start)).toISOString()}) as busy,
      (select coalesce(json_agg(json_build_object('start', ${calendarBusyBlocks.startsAt}, 'end', ${calendarBusyBlocks.endsAt})), '[]'::json)
         from ${calendarBusyBlocks}
        where ${calendarBusyBlocks.organizationId} = ${users.organizationId} and ${calendarBusyBlocks.userId} = ${users.id}
          and ${calendarBusyBlocks.startsAt} < ${new Date(clampToCalendar(window.end)).toISOString()}
          and ${calendarBusyBlocks.endsAt} > ${new Date(clampToCalendar(window.start)).toISOString()}
          and ${liveCalendar()}) as calendar_busy
    from ${users} where ${liveRep(slug)}`);
  const row = result.rows[0];
  if (!row) throw new NotFound('Booking page', slug);
  // Visitors see (and book) the rep's own meeting length only.
  if (params.duration !== undefined && params.duration !== row.rep.meeting_duration)
    throw new BadRequest(
      `duration: must be the rep's meeting length (${row.rep.meeting_duration} minutes)`,
      'duration',
    );
  // Synced calendar busy times count like meetings (copied by the calendar sync: no provider call here).
  const busy = [...row.busy, ...row.calendar_busy].map((meeting) => ({
    start: Date.parse(meeting.start),
    end: Date.parse(meeting.end),
  }));
  return {
    version: row.rep.booking_version,
    availability: availabilityFrom(row.rep, params, busy, now, MAX_PUBLIC_RANGE_DAYS),
  };
}

/** GET /api/calendar/availability: the caller's own slots, same engine. */
export async function callerAvailability(ctx: TenantContext, params: AvailabilityParams) {
  const [rep] = await ctx.db
    .select({
      id: users.id,
      timezone: users.timezone,
      working_hours: users.workingHours,
      meeting_duration: users.meetingDuration,
      buffer_minutes: users.bufferMinutes,
      min_notice_minutes: users.minNoticeMinutes,
      // Qualified by hand: a one-table select names its columns bare, which the subquery would take for its own.
      has_calendar: sql<boolean>`exists (select 1 from ${connections} c where c.organization_id = ${users}.organization_id
        and c.owner_id = ${users}.id and c.kind = 'calendar' and c.deleted_at is null)`,
    })
    .from(users)
    .where(tenantWhere(ctx, users, eq(users.id, ctx.userId as number)));
  if (!rep) throw new NotFound('User', ctx.userId as number);
  return availabilityOf(ctx, rep, params);
}
