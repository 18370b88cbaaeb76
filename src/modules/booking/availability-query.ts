/**
 * The availability request both routes take (GET /api/v1/booking/{slug}/availability and
 * GET /api/calendar/availability), its defaults, and the answer. Reading it costs one statement:
 * the rep's live meetings and synced calendar busy blocks in the window (the rep's schedule comes
 * with the caller or slug check).
 */
import { z } from '@hono/zod-openapi';
import { and, eq, gt, inArray, lt, sql, type SQL } from 'drizzle-orm';
import { clampToCalendar, LAST_DAY } from '../../core/calendar';
import { BadRequest } from '../../core/errors';
import { dateInput, timeZone } from '../../core/schemas';
import { calendarBusyBlocks, connections, LIVE_MEETING_STATUSES, meetings, type WorkingHours } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import {
  type AvailabilityRequest,
  busyWindow,
  formatSlots,
  freeSlots,
  type Interval,
  MAX_RANGE_DAYS,
  type RepSchedule,
} from './availability';
import { dayIn, dayNumber, dayString } from './time-zones';
import { SYNC_AHEAD_DAYS } from '../calendar';

/** Most slots one answer lists (both routes): a bounded answer however long the range and short the slots. */
export const MAX_SLOTS = 1000;
/** The longest range the public route answers (days, inclusive); the caller's own calendar may ask MAX_RANGE_DAYS. */
export const MAX_PUBLIC_RANGE_DAYS = 31;

const day = (description: string) => dateInput().optional().openapi({ description, example: '2026-03-09' });

export const AvailabilityQuery = z.object({
  date: day('One day to list (YYYY-MM-DD, in tz); overrides from/to'),
  from: day('First day (YYYY-MM-DD, in tz); default today'),
  to: day(`Last day, inclusive (YYYY-MM-DD, in tz); default from + 6 days; at most ${MAX_RANGE_DAYS} days from from`),
  duration: z.coerce
    .number({ error: 'must be a whole number of minutes' })
    .int('must be a whole number of minutes')
    .min(5, 'must be at least 5 minutes')
    .max(480, 'must be at most 480 minutes')
    .optional()
    .openapi({ type: 'integer', description: 'Slot length in minutes (5 to 480); default the rep’s meeting_duration' }),
  tz: timeZone.optional().openapi({
    description: 'Zone the days are read in and the slots written in (offset form); default the rep’s timezone',
    example: 'America/New_York',
  }),
});
export type AvailabilityParams = z.output<typeof AvailabilityQuery>;

const SlotSchema = z
  .object({
    start: z.string().openapi({ description: 'Start, ISO 8601 in tz', example: '2026-03-09T09:00:00-04:00' }),
    end: z.string().openapi({ description: 'End, ISO 8601 in tz', example: '2026-03-09T09:30:00-04:00' }),
  })
  .openapi('AvailabilitySlot', {
    description: 'A free slot',
    example: { start: '2026-03-09T09:00:00-04:00', end: '2026-03-09T09:30:00-04:00' },
  });

export const AvailabilitySchema = z
  .object({
    timezone: z.string().openapi({ description: 'The zone of the days and slots (the tz asked for)' }),
    duration: z.number().int().openapi({ description: 'Slot length in minutes' }),
    from: z.string().openapi({ description: 'First day listed (YYYY-MM-DD)' }),
    to: z.string().openapi({ description: 'Last day listed, inclusive' }),
    slots: z
      .array(SlotSchema)
      .openapi({ description: `Free slots, earliest first; at most ${MAX_SLOTS} (see truncated)` }),
    truncated: z.boolean().openapi({
      description: `true when the range held more than ${MAX_SLOTS} free slots: these are the first ${MAX_SLOTS}; ask again from the day of the last one`,
    }),
  })
  .openapi('Availability', {
    description: 'Free slots of a rep',
    example: {
      timezone: 'America/New_York',
      duration: 30,
      from: '2026-03-09',
      to: '2026-03-09',
      slots: [{ start: '2026-03-09T09:00:00-04:00', end: '2026-03-09T09:30:00-04:00' }],
      truncated: false,
    },
  });

/** A rep's schedule as read from the database. */
export interface RepScheduleRow {
  id: number;
  timezone: string | null;
  working_hours: WorkingHours;
  meeting_duration: number;
  buffer_minutes: number;
  min_notice_minutes: number;
  /** The rep has a calendar connected: slots stop at its synced horizon (scheduleOf). */
  has_calendar?: boolean;
}

/**
 * The rep's schedule. A rep with a calendar connected is offered no slot past the calendar's synced
 * window (modules/calendar/busy-sync.ts reads SYNC_AHEAD_DAYS ahead; one day is kept back for the
 * time between syncs): past it the calendar's busy times are unknown, and a slot there could
 * double-book the rep.
 */
export function scheduleOf(rep: RepScheduleRow, now = Date.now()): RepSchedule {
  return {
    timezone: rep.timezone ?? 'UTC',
    workingHours: rep.working_hours,
    bufferMinutes: rep.buffer_minutes,
    minNoticeMinutes: rep.min_notice_minutes,
    ...(rep.has_calendar ? { horizon: now + (SYNC_AHEAD_DAYS - 1) * 86_400_000 } : {}),
  };
}

/** The request with its defaults; a range over `maxDays` days, or one ending before it starts: 400 on `to`. */
export function resolveRequest(
  rep: RepScheduleRow,
  params: AvailabilityParams,
  now: number,
  maxDays = MAX_RANGE_DAYS,
): AvailabilityRequest {
  const timezone = params.tz ?? rep.timezone ?? 'UTC';
  const from = params.date ?? params.from ?? dayString(dayIn(now, timezone));
  // The default week stops at the calendar's last day (core/calendar.ts).
  const to = params.date ?? params.to ?? dayString(Math.min(dayNumber(from) + 6, dayNumber(LAST_DAY)));
  const days = dayNumber(to) - dayNumber(from) + 1;
  if (days < 1) throw new BadRequest('to: must not be before from', 'to');
  if (days > maxDays) throw new BadRequest(`to: the range may span at most ${maxDays} days`, 'to');
  return { from, to, timezone, durationMinutes: params.duration ?? rep.meeting_duration };
}

/**
 * What holds the rep's time overlapping `window`, in one statement: their Scheduled and
 * Rescheduled meetings, and the busy blocks synced from their connected calendars
 * (modules/calendar/busy-sync.ts) of connections that are still connected.
 */
export async function busyIntervals(
  ctx: Pick<TenantContext, 'db' | 'orgId'>,
  repId: number,
  window: Interval,
): Promise<Interval[]> {
  const meetingsBusy = ctx.db
    .select({ start: meetings.startTime, end: meetings.endTime })
    .from(meetings)
    .where(
      tenantWhere(
        ctx,
        meetings,
        and(
          eq(meetings.userId, repId),
          inArray(meetings.status, [...LIVE_MEETING_STATUSES]),
          lt(meetings.startTime, new Date(clampToCalendar(window.end))),
          gt(meetings.endTime, new Date(clampToCalendar(window.start))),
        ),
      ),
    );
  const calendarBusy = ctx.db
    .select({ start: calendarBusyBlocks.startsAt, end: calendarBusyBlocks.endsAt })
    .from(calendarBusyBlocks)
    .where(
      tenantWhere(
        ctx,
        calendarBusyBlocks,
        and(
          eq(calendarBusyBlocks.userId, repId),
          lt(calendarBusyBlocks.startsAt, new Date(clampToCalendar(window.end))),
          gt(calendarBusyBlocks.endsAt, new Date(clampToCalendar(window.start))),
          liveCalendar(),
        ),
      ),
    );
  const rows = await meetingsBusy.unionAll(calendarBusy);
  return rows.map((row) => ({ start: new Date(row.start).getTime(), end: new Date(row.end).getTime() }));
}

/** A busy block counts while its calendar is connected and usable (disconnecting frees the time at once). */
export function liveCalendar(): SQL {
  return sql`exists (select 1 from ${connections} where ${connections.organizationId} = ${calendarBusyBlocks.organizationId}
    and ${connections.id} = ${calendarBusyBlocks.connectionId} and ${connections.deletedAt} is null)`;
}

/** The free slots of `rep` for the request: one statement. */
export async function availabilityOf(
  ctx: Pick<TenantContext, 'db' | 'orgId'>,
  rep: RepScheduleRow,
  params: AvailabilityParams,
  now = Date.now(),
) {
  const request = resolveRequest(rep, params, now);
  const busy = await busyIntervals(ctx, rep.id, busyWindow(scheduleOf(rep), request));
  return availabilityFrom(rep, params, busy, now);
}

/** The free slots of `rep` given its busy intervals (read by the caller, over at least the request's window). */
export function availabilityFrom(
  rep: RepScheduleRow,
  params: AvailabilityParams,
  busy: readonly Interval[],
  now = Date.now(),
  maxDays = MAX_RANGE_DAYS,
) {
  const schedule = scheduleOf(rep, now);
  const request = resolveRequest(rep, params, now, maxDays);
  const free = freeSlots(schedule, request, busy, now);
  return {
    timezone: request.timezone,
    duration: request.durationMinutes,
    from: request.from,
    to: request.to,
    slots: formatSlots(free.slice(0, MAX_SLOTS), request.timezone),
    truncated: free.length > MAX_SLOTS,
  };
}
