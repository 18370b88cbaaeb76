/**
 * Time-zone arithmetic with nothing but Intl.DateTimeFormat (workerd ships full ICU data), so no
 * tz library is bundled: the offset of a zone at an instant, the wall clock of an instant in a
 * zone, the instant of a wall-clock time in a zone (daylight-saving gaps and overlaps resolved
 * as documented on `instantOf`), and ISO 8601 with the zone's offset.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      weekday: 'long',
    });
    formatters.set(zone, format);
  }
  return format;
}

/** True for a zone Intl knows (IANA names such as Europe/Berlin, and UTC). */
export function isValidTimeZone(zone: string): boolean {
  if (zone.length === 0 || zone.length > 64) return false;
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** monday … sunday */
  weekday: string;
}

export function wallClockOf(instant: number, zone: string): WallClock {
  const parts: Record<string, string> = {};
  for (const part of formatter(zone).formatToParts(new Date(instant))) parts[part.type] = part.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: parts.weekday.toLowerCase(),
  };
}

/** The zone's offset from UTC at `instant`, in minutes (east positive: Berlin in summer is 120). */
export function offsetMinutes(instant: number, zone: string): number {
  const wall = wallClockOf(instant, zone);
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  return Math.round((asUtc - Math.floor(instant / 1000) * 1000) / 60_000);
}

/** A calendar day, YYYY-MM-DD, as days since the epoch (and back): day arithmetic without zones. */
export function dayNumber(date: string): number {
  return Math.round(Date.parse(`${date}T00:00:00Z`) / 86_400_000);
}

export function dayString(day: number): string {
  return new Date(day * 86_400_000).toISOString().slice(0, 10);
}

/** The calendar day of `instant` in `zone`, as a day number. */
export function dayIn(instant: number, zone: string): number {
  const wall = wallClockOf(instant, zone);
  return Math.round(Date.UTC(wall.year, wall.month - 1, wall.day) / 86_400_000);
}

const WEEKDAY_NAMES = ['thursday', 'friday', 'saturday', 'sunday', 'monday', 'tuesday', 'wednesday'];

/** The weekday of a day number (day 0, 1970-01-01, was a Thursday). */
export function weekdayOf(day: number): string {
  return WEEKDAY_NAMES[((day % 7) + 7) % 7];
}

/**
 * The instant at which the wall clock in `zone` shows `minutes` past midnight of `day` (minutes
 * may reach 1440: midnight ending the day). Offsets are read a day before and after, so a
 * transition is seen from both sides:
 * - a time that exists once has one consistent offset;
 * - a time that exists twice (clocks back, 02:30 on an autumn night in Berlin) is the EARLIER instant;
 * - a time that does not exist (clocks forward, 02:30 on a spring night in Berlin) is read with the
 *   offset in force before the change, i.e. it moves forward by the gap (02:30 → 03:30 CEST).
 */
export function instantOf(day: number, minutes: number, zone: string): number {
  const naive = day * 86_400_000 + minutes * 60_000;
  const before = naive - offsetMinutes(naive - 86_400_000, zone) * 60_000;
  const after = naive - offsetMinutes(naive + 86_400_000, zone) * 60_000;
  const shows = (instant: number) => {
    const wall = wallClockOf(instant, zone);
    const wallDay = Math.round(Date.UTC(wall.year, wall.month - 1, wall.day) / 86_400_000);
    return (wallDay - day) * 1440 + wall.hour * 60 + wall.minute === minutes;
  };
  const candidates = [before, after].filter(shows);
  if (candidates.length > 0) return Math.min(...candidates);
  return before;
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}

/** ISO 8601 with the zone's offset at that instant: 2026-03-09T09:00:00-04:00 (UTC: +00:00). */
export function isoInZone(instant: number, zone: string): string {
  const wall = wallClockOf(instant, zone);
  const offset = offsetMinutes(instant, zone);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${wall.year}-${pad(wall.month)}-${pad(wall.day)}T${pad(wall.hour)}:${pad(wall.minute)}:${pad(wall.second)}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}
