/**
 * A user's booking settings: how they are validated on POST /api/user/update/:id, how they read
 * in GET /api/user/my, and the slug chosen from a name at signup or user creation. Defaults live
 * on the columns (db/schema/organizations.ts): enabled, UTC, Monday-Friday 09:00-17:00, 30-minute
 * meetings, no buffer, 60 minutes of notice, meeting tool `none`.
 */
import { z } from '@hono/zod-openapi';
import { sql, type SQL } from 'drizzle-orm';
import { DEFAULT_WORKING_HOURS, MEETING_TOOLS, WEEKDAYS, type WorkingHours } from '../../db/schema';
import { minutesOf } from './availability';
import { ApiError } from '../../core/errors';
import { timeZone } from '../../core/schemas';

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_SLUG_LENGTH = 40;

/** "José  O'Neil" → "jose-o-neil": lower-case ASCII letters, digits and single dashes; "user" when nothing is left. */
export function slugBase(...names: (string | null | undefined)[]): string {
  const base = names
    .filter(Boolean)
    .join(' ')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/^-+|-+$/g, '');
  return base || 'user';
}

/** The insert value of a new user's slug: the base if free across all organizations, else base-2, base-3 … */
function freeSlugFor(firstName: string, lastName: string | null | undefined): SQL<string> {
  return sql<string>`free_booking_slug(${slugBase(firstName, lastName)})`;
}

/**
 * Numbered candidates (base, base-2 …) are tried this often; each retry means another writer
 * committed the slug just chosen. After that the candidate is the base with a random suffix
 * (`ada-lovelace-k3v9x2qa`), from a space (36^8) that contended writers cannot exhaust.
 */
const NUMBERED_SLUG_ATTEMPTS = 3;
/** A bound on the loop, never reached by contention: only an insert that writes nothing for another reason would. */
const SLUG_ATTEMPTS = 20;
const RANDOM_SUFFIX_LENGTH = 8;
const SLUG_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** The base cut to leave room for "-" and the suffix, so the slug stays within MAX_SLUG_LENGTH. */
function randomSlugFor(firstName: string, lastName: string | null | undefined): SQL<string> {
  const base = slugBase(firstName, lastName)
    .slice(0, MAX_SLUG_LENGTH - RANDOM_SUFFIX_LENGTH - 1)
    .replace(/-+$/, '');
  const bytes = crypto.getRandomValues(new Uint8Array(RANDOM_SUFFIX_LENGTH));
  const suffix = Array.from(bytes, (byte) => SLUG_ALPHABET[byte % SLUG_ALPHABET.length]).join('');
  return sql<string>`${`${base}-${suffix}`}::text`;
}

/**
 * Inserts a new user (signup, POST /api/user/add) with a free booking slug chosen from the name.
 * `insert` writes the row with `slug` as its booking_slug, writing nothing on a slug conflict
 * (`.onConflictDoNothing({ target: users.bookingSlug })`), and returns what it wrote.
 *
 * free_booking_slug serialises the creations of one base, but it cannot see a slug another
 * transaction has written and not yet committed: a user's hand-set slug, or a creation of another
 * base that took the same candidate ("ada-lovelace-2" for Ada Lovelace 2, and for the second Ada
 * Lovelace). The insert then waits for that writer; once it commits, the insert writes nothing
 * (instead of failing on the unique index: an anonymous 409 `duplicate` at signup, a 409
 * booking_slug_taken for a slug nobody sent at POST /api/user/add), and it is tried again: the function now sees that
 * slug and picks the next one. The uncontended insert stays one statement. Under contention that
 * outlasts NUMBERED_SLUG_ATTEMPTS the slug gets a random suffix instead, so a burst of creations
 * never ends the request in an error.
 */
export async function insertWithFreeSlug<T>(
  firstName: string,
  lastName: string | null | undefined,
  insert: (slug: SQL<string>) => Promise<T[]>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const candidate =
      attempt <= NUMBERED_SLUG_ATTEMPTS ? freeSlugFor(firstName, lastName) : randomSlugFor(firstName, lastName);
    const [row] = await insert(candidate);
    if (row) return row;
    // Not contention (36^8 random candidates do not collide 17 times): the insert is broken. A
    // fault of ours, said plainly to the caller (nothing was created) and logged with the base.
    if (attempt >= SLUG_ATTEMPTS) throw noFreeSlug(slugBase(firstName, lastName), attempt);
  }
}

export const NO_FREE_SLUG_CODE = 'booking_slug_unavailable';

/**
 * The end of insertWithFreeSlug's loop: a 500 (our fault, logged) whose message says what failed
 * and that no user was created, with its own code, instead of the bare "Internal server error".
 * Contention cannot get here: after the numbered candidates, 17 random ones of 36^8 would all have
 * to be taken (each less than one chance in 10^5 with ten million users); only an insert that
 * writes nothing for another reason (an ON CONFLICT on another index, a trigger that drops the
 * row) can, and a retry would fail alike.
 */
function noFreeSlug(base: string, attempts: number): ApiError {
  return new ApiError(
    500,
    'internal_error',
    `No booking slug could be chosen for the new user (${attempts} candidates from "${base}" were refused); nothing was created. This is a fault of the service, not of the request`,
    NO_FREE_SLUG_CODE,
  );
}

/** The one time-zone schema (core/schemas.ts): IANA names and UTC. */
export const timeZoneInput = timeZone;

const clock = z
  .string()
  .max(5, 'must be a time HH:MM (00:00 to 24:00)')
  .regex(/^([01]\d|2[0-3]):[0-5]\d$|^24:00$/, 'must be a time HH:MM (00:00 to 24:00)')
  .openapi({ example: '09:00' });

const intervals = z
  .array(
    z
      .object({
        start: clock.openapi({ description: 'Start, local time HH:MM' }),
        end: clock.openapi({ description: 'End, local time HH:MM (24:00 for midnight)' }),
      })
      .refine((interval) => minutesOf(interval.start) < minutesOf(interval.end), {
        message: 'start must be before end',
        path: ['end'],
      })
      .openapi({ description: 'One working interval of the day' }),
  )
  .max(6, 'at most 6 intervals per day')
  .superRefine((list, ctx) => {
    const sorted = [...list].sort((a, b) => minutesOf(a.start) - minutesOf(b.start));
    for (let i = 1; i < sorted.length; i++) {
      if (minutesOf(sorted[i].start) < minutesOf(sorted[i - 1].end))
        ctx.addIssue({ code: 'custom', message: 'intervals of a day must not overlap' });
    }
  });

export const workingHoursInput = z
  .strictObject(
    Object.fromEntries(
      WEEKDAYS.map((day) => [day, intervals.optional().openapi({ description: `Working intervals on ${day}` })]),
    ) as Record<(typeof WEEKDAYS)[number], z.ZodOptional<typeof intervals>>,
  )
  .openapi({
    description:
      'Working hours per weekday, local time in `timezone`; a day left out (or []) is not worked. Replaces the whole week',
    example: DEFAULT_WORKING_HOURS,
  });

export const meetingToolInput = z.enum(MEETING_TOOLS);

/** The booking fields of UpdateUserRequest (all optional; an omitted one keeps its value). */
export const bookingSettingsInput = {
  job_title: z
    .string()
    .trim()
    .max(100, 'must be at most 100 characters')
    .nullish()
    .openapi({ description: 'Job title shown on the public booking page, up to 100 characters; null clears it' }),
  booking_slug: z
    .string()
    .trim()
    .toLowerCase()
    .min(3, 'must be at least 3 characters')
    .max(MAX_SLUG_LENGTH, `must be at most ${MAX_SLUG_LENGTH} characters`)
    .regex(SLUG_PATTERN, 'must be lower-case letters, digits and single dashes (e.g. ada-lovelace)')
    .optional()
    .openapi({
      description:
        'The booking page address (/book/{slug}), unique across all organizations (409 booking_slug_taken); 3 to 40 lower-case letters, digits and dashes',
      example: 'ada-lovelace',
    }),
  booking_enabled: z.boolean().optional().openapi({ description: 'false hides the booking page and its API (404)' }),
  working_hours: workingHoursInput.optional(),
  meeting_duration: z
    .number()
    .int('must be a whole number of minutes')
    .min(5, 'must be at least 5 minutes')
    .max(480, 'must be at most 480 minutes')
    .optional()
    .openapi({ description: 'Default length of a booked meeting, 5 to 480 minutes' }),
  buffer_minutes: z
    .number()
    .int('must be a whole number of minutes')
    .min(0, 'must not be negative')
    .max(240, 'must be at most 240 minutes')
    .optional()
    .openapi({ description: 'Free minutes kept before and after every meeting, 0 to 240' }),
  min_notice_minutes: z
    .number()
    .int('must be a whole number of minutes')
    .min(0, 'must not be negative')
    .max(43_200, 'must be at most 43200 minutes (30 days)')
    .optional()
    .openapi({ description: 'How soon a visitor may book: no slot starts sooner than this from now (0 to 43200)' }),
  booking_meeting_tool: meetingToolInput
    .optional()
    .openapi({ description: 'meeting_tool of meetings booked on the page: tool_a, tool_b, tool_c, custom or none' }),
};

/** The booking fields of User / MyProfile. */
export const bookingSettingsRead = {
  job_title: z.string().nullable().openapi({ description: 'Job title shown on the booking page; null: none' }),
  booking_slug: z
    .string()
    .nullable()
    .openapi({ description: 'Booking page address: /book/{booking_slug} and /api/v1/booking/{booking_slug}' }),
  booking_enabled: z.boolean().openapi({ description: 'Whether the public booking page answers (else 404)' }),
  working_hours: z
    .record(
      z.string(),
      z.array(
        z
          .object({
            start: z.string().openapi({ description: 'Start, local time HH:MM' }),
            end: z.string().openapi({ description: 'End, local time HH:MM (24:00: midnight)' }),
          })
          .openapi({ description: 'One working interval' }),
      ),
    )
    .openapi({
      description: 'Working intervals per weekday (monday … sunday), local time in timezone',
      example: DEFAULT_WORKING_HOURS,
    }),
  meeting_duration: z.number().int().openapi({ description: 'Default booked meeting length, minutes' }),
  buffer_minutes: z.number().int().openapi({ description: 'Minutes kept free before and after each meeting' }),
  min_notice_minutes: z.number().int().openapi({ description: 'Minimum minutes between now and a bookable slot' }),
  booking_meeting_tool: z.enum(MEETING_TOOLS).openapi({ description: 'meeting_tool of meetings booked on the page' }),
};

export interface BookingSettingsRow {
  jobTitle: string | null;
  bookingSlug: string | null;
  bookingEnabled: boolean;
  workingHours: WorkingHours;
  meetingDuration: number;
  bufferMinutes: number;
  minNoticeMinutes: number;
  bookingMeetingTool: string;
}

export function presentBookingSettings(row: BookingSettingsRow) {
  return {
    job_title: row.jobTitle,
    booking_slug: row.bookingSlug,
    booking_enabled: row.bookingEnabled,
    working_hours: Object.fromEntries(WEEKDAYS.map((day) => [day, row.workingHours[day] ?? []])),
    meeting_duration: row.meetingDuration,
    buffer_minutes: row.bufferMinutes,
    min_notice_minutes: row.minNoticeMinutes,
    booking_meeting_tool: row.bookingMeetingTool as (typeof MEETING_TOOLS)[number],
  };
}
