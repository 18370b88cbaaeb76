/**
 * The period an analytics request covers and the previous period it is compared with, both as
 * whole UTC days, plus the value/previous/change shape every compared number takes.
 */
import { LAST_DAY } from '../../core/calendar';
import { BadRequest } from '../../core/errors';

export const DEFAULT_PERIOD_DAYS = 30;
/** A longer range is refused: it would compare against a period as long again before it. */
export const MAX_PERIOD_DAYS = 366;
/** Days of the engagement window of GET /api/dashboard/top-accounts. */
export const ENGAGEMENT_DAYS = 30;
/** A meeting weighs as much as this many intent signals in the engagement score. */
export const MEETING_WEIGHT = 3;

/** Lead-aging buckets in whole days; the last has no upper bound. */
export const AGING_BUCKETS = [
  { name: '0-7', min: 0, max: 7 },
  { name: '8-30', min: 8, max: 30 },
  { name: '31-90', min: 31, max: 90 },
  { name: '90+', min: 91, max: null },
] as const;

const DAY_MS = 86_400_000;
const dayNumber = (day: string) => Date.parse(`${day}T00:00:00Z`) / DAY_MS;
const dayString = (n: number) => new Date(n * DAY_MS).toISOString().slice(0, 10);

export interface Period {
  start_date: string;
  end_date: string;
  days: number;
}

export interface ResolvedPeriods {
  current: Period;
  previous: Period;
  /** Instants bounding the periods: previous [previousFrom, from), current [from, to). */
  previousFrom: string;
  from: string;
  to: string;
}

/** Defaults: end today, start 29 days before the end. 400 on start_date after end_date or a range over the cap. */
export function resolvePeriods(query: { start_date?: string; end_date?: string }, now: Date): ResolvedPeriods {
  const today = Math.floor(now.getTime() / DAY_MS);
  const end = query.end_date ? dayNumber(query.end_date) : today;
  const start = query.start_date ? dayNumber(query.start_date) : end - (DEFAULT_PERIOD_DAYS - 1);
  if (start > end) throw new BadRequest('start_date: must not be after end_date', 'start_date');
  // The period is bounded by the day after it, which must be a day of the calendar (core/calendar.ts).
  if (end >= dayNumber(LAST_DAY)) throw new BadRequest(`end_date: must be before ${LAST_DAY}`, 'end_date');
  const days = end - start + 1;
  if (days > MAX_PERIOD_DAYS) {
    throw new BadRequest(`end_date: the period may span at most ${MAX_PERIOD_DAYS} days`, 'end_date');
  }
  const instant = (n: number) => new Date(n * DAY_MS).toISOString();
  return {
    current: { start_date: dayString(start), end_date: dayString(end), days },
    previous: { start_date: dayString(start - days), end_date: dayString(start - 1), days },
    previousFrom: instant(start - days),
    from: instant(start),
    to: instant(end + 1),
  };
}

const round = (value: number, decimals: number) => Math.round(value * 10 ** decimals) / 10 ** decimals;

/** A number and its previous-period value, with the change and the change in percent. */
export function compared(value: number | null, previous: number | null) {
  const change = value === null || previous === null ? null : round(value - previous, 2);
  return {
    value,
    previous,
    change,
    change_percent: change === null || !previous ? null : round((100 * change) / previous, 2),
  };
}

/** A numeric column from the database (numeric and bigint arrive as strings), null kept. */
export function numberOrNull(value: number | string | null | undefined): number | null {
  return value === null || value === undefined ? null : Number(value);
}
