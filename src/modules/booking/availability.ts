/**
 * The availability engine, pure (no database, no clock of its own), shared by the public booking
 * page and GET /api/calendar/availability:
 *
 * 1. The requested days are read in the CALLER's zone (`tz`): the window is [midnight starting
 *    the first day, midnight ending the last day) there.
 * 2. For every day of the REP's zone that touches the window, each working interval of its
 *    weekday becomes the instants [start, end) in the rep's zone (time-zones.ts `instantOf`), and
 *    is cut into back-to-back slots of `duration` minutes from its start; a slot that would run
 *    past the interval's end is dropped. Steps are in real minutes, so on a daylight-saving day a
 *    9-hour working day in local time is 8 or 10 real hours, and slots stay `duration` long.
 * 3. A slot is free when it starts inside the window, no sooner than `minNotice` minutes from
 *    now, ends by the schedule's horizon (if any), and [start − buffer, end + buffer) overlaps no
 *    busy meeting (Scheduled or Rescheduled).
 * 4. Slots are returned as instants; `formatSlots` writes them in the caller's zone.
 */
import type { WorkingHours } from '../../db/schema';
import { dayIn, dayNumber, instantOf, isoInZone, weekdayOf } from './time-zones';

export interface Interval {
  /** Epoch milliseconds, inclusive. */
  start: number;
  /** Epoch milliseconds, exclusive. */
  end: number;
}

export interface RepSchedule {
  timezone: string;
  workingHours: WorkingHours;
  bufferMinutes: number;
  minNoticeMinutes: number;
  /** Epoch milliseconds no slot may end after (the synced calendar's horizon); none: no limit. */
  horizon?: number;
}

export interface AvailabilityRequest {
  /** First and last requested day (YYYY-MM-DD, inclusive), in `timezone`. */
  from: string;
  to: string;
  /** The caller's zone: it defines the days asked for and the offsets of the answer. */
  timezone: string;
  durationMinutes: number;
}

/** The longest range one request may ask for (days, inclusive). */
export const MAX_RANGE_DAYS = 62;

/** "HH:MM" → minutes past midnight ("24:00" → 1440). */
export function minutesOf(clock: string): number {
  const [hours, minutes] = clock.split(':').map(Number);
  return hours * 60 + minutes;
}

/** The instants the requested days cover in the caller's zone. */
export function requestWindow(request: Pick<AvailabilityRequest, 'from' | 'to' | 'timezone'>): Interval {
  return {
    start: instantOf(dayNumber(request.from), 0, request.timezone),
    end: instantOf(dayNumber(request.to) + 1, 0, request.timezone),
  };
}

/** Every slot of the rep's working hours that starts inside `window`, ignoring meetings and notice. */
export function workingSlots(schedule: RepSchedule, window: Interval, durationMinutes: number): Interval[] {
  const step = durationMinutes * 60_000;
  const slots: Interval[] = [];
  // A rep's day can start before the window's first instant (zones far apart): take one day either side.
  const first = dayIn(window.start, schedule.timezone) - 1;
  const last = dayIn(window.end, schedule.timezone) + 1;
  for (let day = first; day <= last; day++) {
    const intervals = schedule.workingHours[weekdayOf(day) as keyof WorkingHours] ?? [];
    for (const interval of intervals) {
      const start = instantOf(day, minutesOf(interval.start), schedule.timezone);
      const end = instantOf(day, minutesOf(interval.end), schedule.timezone);
      for (let slot = start; slot + step <= end; slot += step) {
        if (slot >= window.start && slot < window.end) slots.push({ start: slot, end: slot + step });
      }
    }
  }
  return slots.sort((a, b) => a.start - b.start);
}

/** The free slots: working slots minus minimum notice and busy meetings widened by the buffer. */
export function freeSlots(
  schedule: RepSchedule,
  request: AvailabilityRequest,
  busy: readonly Interval[],
  now: number,
): Interval[] {
  const buffer = schedule.bufferMinutes * 60_000;
  const earliest = now + schedule.minNoticeMinutes * 60_000;
  return workingSlots(schedule, requestWindow(request), request.durationMinutes).filter(
    (slot) =>
      slot.start >= earliest &&
      (schedule.horizon === undefined || slot.end <= schedule.horizon) &&
      !busy.some((meeting) => slot.start - buffer < meeting.end && meeting.start < slot.end + buffer),
  );
}

/** The window busy meetings must be read for: the request's, widened by the buffer. */
export function busyWindow(schedule: RepSchedule, request: AvailabilityRequest): Interval {
  const window = requestWindow(request);
  const buffer = schedule.bufferMinutes * 60_000;
  return { start: window.start - buffer, end: window.end + request.durationMinutes * 60_000 + buffer };
}

export function formatSlots(slots: readonly Interval[], timezone: string): { start: string; end: string }[] {
  return slots.map((slot) => ({ start: isoInZone(slot.start, timezone), end: isoInZone(slot.end, timezone) }));
}
