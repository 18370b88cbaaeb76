/**
 * The calendar every route accepts: days 1900-01-01 to 9999-12-31 that exist, instants within
 * them, and IANA zone names. JavaScript's Date reaches year 275760 and rolls 2026-02-30 over to
 * March; PostgreSQL takes neither `+275760-…` nor `-271821-…` as JavaScript writes them; a year
 * with more than four digits is no day a person means. So input is bounded here, once, and the
 * zod schemas in schemas.ts are built on these checks.
 */

export const FIRST_DAY = '1900-01-01';
export const LAST_DAY = '9999-12-31';
export const FIRST_INSTANT = Date.UTC(1900, 0, 1);
export const LAST_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP =
  /^(\d{4}-\d{2}-\d{2})(?:T([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.(\d{1,9}))?)?(Z|[+-](?:[01]\d|2[0-3])(?::?[0-5]\d)?)?)?$/i;

/** A day that exists, written YYYY-MM-DD, from 1900-01-01 to 9999-12-31 (2026-02-30 is none, though Date.parse takes it). */
export function isCalendarDate(value: string): boolean {
  const match = DAY.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1900 || month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The offset of `Z`, `+05:30`, `-0800` or `+05`, in minutes east of UTC. */
function offsetOf(zone: string): number {
  if (zone.toUpperCase() === 'Z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0');
  return zone.startsWith('-') ? -minutes : minutes;
}

export interface TimestampRules {
  /** A bare date (its midnight UTC) is taken. */
  dateOnly?: boolean;
  /** A date-time must say its offset (`Z`, `+02:00`); else one without is read as UTC. */
  offset: 'required' | 'optional';
}

/**
 * The instant (ms since the epoch) of an ISO 8601 timestamp whose day exists and that lies within
 * the calendar (1900-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z), or null.
 */
export function parseTimestamp(value: string, rules: TimestampRules): number | null {
  const match = TIMESTAMP.exec(value);
  if (!match) return null;
  const [, day, hour, minute, second, fraction, zone] = match;
  if (!isCalendarDate(day)) return null;
  if (hour === undefined && !rules.dateOnly) return null;
  if (hour !== undefined && zone === undefined && rules.offset === 'required') return null;
  const [year, month, date] = day.split('-').map(Number);
  const millis = fraction ? Number(fraction.slice(0, 3).padEnd(3, '0')) : 0;
  const local = Date.UTC(year, month - 1, date, Number(hour ?? 0), Number(minute ?? 0), Number(second ?? 0), millis);
  const instant = local - offsetOf(zone ?? 'Z') * 60_000;
  return instant >= FIRST_INSTANT && instant <= LAST_INSTANT ? instant : null;
}

/**
 * An instant moved inside the calendar, for bounds of a search that reach past it (the days
 * around 9999-12-31 in a zone east of UTC): nothing stored lies outside, and PostgreSQL cannot
 * read JavaScript's `+010000-…`.
 */
export function clampToCalendar(instant: number): number {
  return Math.min(Math.max(instant, FIRST_INSTANT), LAST_INSTANT);
}

let zones: Set<string> | null = null;

/** The resolved (canonical) name of a zone Intl knows, or null. */
function resolvedZone(zone: string): string | null {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/**
 * An IANA zone name (Europe/Berlin, America/Argentina/Buenos_Aires, UTC): one that Intl resolves
 * to a zone of `Intl.supportedValuesOf('timeZone')`, or to UTC. Offsets (`+05:00`) and ICU's own
 * names (`Factory`) are not; a link name (Asia/Calcutta for Asia/Kolkata) is, whichever of the two
 * the runtime lists as canonical. Written as given, except for letter case (`utc` → `UTC`).
 */
export function timeZoneName(zone: string): string | null {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/.test(zone) || zone.length > 64) return null;
  const resolved = resolvedZone(zone);
  if (resolved === null) return null;
  zones ??= new Set(Intl.supportedValuesOf('timeZone'));
  if (resolved !== 'UTC' && !zones.has(resolved)) return null;
  return resolved.toLowerCase() === zone.toLowerCase() ? resolved : zone;
}
