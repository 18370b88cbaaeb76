/**
 * Public booking: a rep's profile, free slots and confirmation, reached by the rep's slug before
 * any organization is known. A profile or a cold availability read is one statement before any
 * tenant scope (the slug, unique across organizations, is the key, as an API key's hash is; the
 * meetings are selected by the rep's own organization and id). A confirmation runs in one transaction that first bumps the rep's booking
 * version (a row lock: concurrent confirmations of one rep queue there), then re-reads the
 * meetings and re-computes the slot, so of two confirmations of one slot exactly one commits.
 */
import { clampToCalendar } from '../../core/calendar';
import { eq, sql, type SQL } from 'drizzle-orm';
import { Conflict, NotFound, ValidationFailed } from '../../core/errors';
import type { Database, OrganizationLookup } from '../../db/client';
import { LIVE_MEETING_STATUSES, meetings, organizations, users } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { touchLeadActivity } from '../leads/access';
import { createLeadsBatch } from '../leads/service';
import type { AddLeadInput } from '../leads/schemas';
import { busyWindow, freeSlots, type Interval } from './availability';
import {
  availabilityFrom,
  availabilityOf,
  type AvailabilityParams,
  busyIntervals,
  type RepScheduleRow,
  scheduleOf,
} from './availability-query';
import { bumpBookingVersion } from './booking-version';
import type { ConfirmBookingInput } from './schemas';
import { dayIn, dayString, isoInZone } from './time-zones';

/** A rep whose page answers: enabled, active, not deleted, in an active organization. */
function liveRep(slug: string): SQL {
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
}

/** The rep's schedule and booking fields as one JSON value, for the scoping statement's caller check. */
/** The rep's schedule and booking fields as one JSON value (of the `users` row in scope). */
function repJson(): SQL {
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
      'min_notice_minutes', ${users.minNoticeMinutes})`;
}

/** The rep as the scoping statement's caller check (confirmations). */
export function repOfSlug(slug: string): SQL {
  return sql`(select ${repJson()} from ${users} where ${liveRep(slug)}) as caller`;
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
  const result = await db.execute<{ rep: BookingRep; busy: { start: string; end: string }[] }>(sql`
    select ${repJson()} as rep,
      (select coalesce(json_agg(json_build_object('start', ${meetings.startTime}, 'end', ${meetings.endTime})), '[]'::json)
         from ${meetings}
        where ${meetings.organizationId} = ${users.organizationId} and ${meetings.userId} = ${users.id}
          and ${meetings.status} in (${sql.join(
            LIVE_MEETING_STATUSES.map((status) => sql`${status}`),
            sql`, `,
          )})
          and ${meetings.startTime} < ${new Date(clampToCalendar(window.end)).toISOString()}
          and ${meetings.endTime} > ${new Date(clampToCalendar(window.start)).toISOString()}) as busy
    from ${users} where ${liveRep(slug)}`);
  const row = result.rows[0];
  if (!row) throw new NotFound('Booking page', slug);
  const busy = row.busy.map((meeting) => ({ start: Date.parse(meeting.start), end: Date.parse(meeting.end) }));
  return { version: row.rep.booking_version, availability: availabilityFrom(row.rep, params, busy, now) };
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
    })
    .from(users)
    .where(tenantWhere(ctx, users, eq(users.id, ctx.userId as number)));
  if (!rep) throw new NotFound('User', ctx.userId as number);
  return availabilityOf(ctx, rep, params);
}

/** "Grace Brewster Hopper" → first "Grace", last "Brewster Hopper"; one word leaves last_name empty. */
function splitName(name: string): { first: string; last: string } {
  const words = name.split(/\s+/).filter(Boolean);
  if (words.length < 2) return { first: name.slice(0, 50), last: '' };
  return { first: words[0].slice(0, 50), last: words.slice(1).join(' ').slice(0, 50) };
}

/**
 * POST /api/v1/booking/{slug}/confirm, inside the request's transaction as the rep's organization:
 * lock the rep (version bump), re-check the slot against fresh meetings, find or create the lead
 * by email (the leads module's one creation path and its dedupe), create the meeting.
 */
export async function confirmBooking(
  ctx: TenantContext,
  rep: BookingRep,
  input: ConfirmBookingInput,
  now = Date.now(),
) {
  const minutes = (input.end.getTime() - input.start.getTime()) / 60_000;
  if (!Number.isInteger(minutes) || minutes < 5 || minutes > 480)
    throw ValidationFailed.field('end', 'must be 5 to 480 whole minutes after start');
  await bumpBookingVersion(ctx, [rep.id]);
  const schedule = scheduleOf(rep);
  const day = dayString(dayIn(input.start.getTime(), schedule.timezone));
  const request = { from: day, to: day, timezone: schedule.timezone, durationMinutes: minutes };
  const busy = await busyIntervals(ctx, rep.id, busyWindow(schedule, request));
  const free = freeSlots(schedule, request, busy, now).some(
    (slot) => slot.start === input.start.getTime() && slot.end === input.end.getTime(),
  );
  if (!free) throw new Conflict('This slot is no longer available', 'slot_unavailable');

  const { first, last } = splitName(input.name);
  const lead: AddLeadInput = {
    first_name: first,
    last_name: last,
    email: input.email,
    phone_number: input.phone ?? null,
    company: input.company ?? null,
    assigned_to: rep.id,
  } as AddLeadInput;
  const outcome = await createLeadsBatch(ctx, [{ rowNumber: 1, input: lead }], { onDuplicate: 'skip' });
  if (outcome.errors.length > 0)
    throw new ValidationFailed(outcome.errors.map(({ field, message }) => ({ field, message })));
  const leadId = outcome.createdLeads[0]?.leadId ?? outcome.skipped[0]?.leadId;

  const title = `Meeting with ${input.name}`;
  const [meeting] = await ctx.db
    .insert(meetings)
    .values({
      organizationId: ctx.orgId,
      userId: rep.id,
      leadId,
      title,
      description: input.notes ?? null,
      startTime: input.start,
      endTime: input.end,
      timezone: schedule.timezone,
      attendees: [{ email: input.email, name: input.name }],
      meetingTool: rep.booking_meeting_tool as (typeof meetings.$inferInsert)['meetingTool'],
      status: 1,
      source: 'booking',
      createdBy: rep.id,
    })
    .returning({ id: meetings.id });
  if (leadId) await touchLeadActivity(ctx, [leadId]);
  return {
    meeting_id: meeting.id,
    title,
    start: isoInZone(input.start.getTime(), schedule.timezone),
    end: isoInZone(input.end.getTime(), schedule.timezone),
    timezone: schedule.timezone,
    with: rep.name,
  };
}
