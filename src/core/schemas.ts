/**
 * Field schemas shared by many request shapes, each declared once: bounded strings (every
 * string input has a maximum), emails, id lists and the like. Modules import these rather than
 * declaring their own; builders with different meanings have different names.
 */
import { z } from '@hono/zod-openapi';
import { type SQL, sql } from 'drizzle-orm';
import { FIRST_DAY, isCalendarDate, LAST_DAY, parseTimestamp, type TimestampRules, timeZoneName } from './calendar';
import { WEB_URL_MESSAGES, webUrlProblem } from './web-url';

export const MAX_TEXT = 5_000;

/** A required string, trimmed, within bounds. */
export function text(min = 1, max = 255) {
  return z
    .string()
    .trim()
    .min(min, min === 1 ? 'is required' : `must be at least ${min} characters`)
    .max(max, `must be at most ${max} characters`);
}

/** An optional string, trimmed, within bounds; null clears it, '' is kept as ''. */
export function optionalText(max = 255) {
  return z.string().trim().max(max, `must be at most ${max} characters`).nullish();
}

/**
 * Optional free text where '' and null both mean "no value" (stored as null): for fields that
 * spreadsheet rows fill too, where an empty cell is ''.
 */
export function blankableText(max: number) {
  return z
    .string()
    .trim()
    .max(max, `must be at most ${max} characters`)
    .transform((value) => (value === '' ? null : value))
    .nullish();
}

function webUrlIssue(bareHost: boolean) {
  return (value: string | null | undefined, ctx: z.RefinementCtx) => {
    if (value === null || value === undefined) return;
    const problem = webUrlProblem(value, { bareHost });
    if (problem) ctx.addIssue({ code: 'custom', message: WEB_URL_MESSAGES[problem] });
  };
}

/**
 * Surrounding spaces go (as on every text field), but a control character or line break anywhere
 * in the raw text is refused first: trimming must not turn `…/\r\n` into an accepted value.
 */
function trimmedUrlText(max: number) {
  return z
    .string()
    .max(max, `must be at most ${max} characters`)
    .refine((value) => !/[\p{Cc}\u2028\u2029]/u.test(value), {
      message: WEB_URL_MESSAGES.unsafe,
      abort: true,
    })
    .trim();
}

/**
 * An absolute http(s) URL by the one URL rule (core/web-url.ts): click targets, form redirects and
 * any URL we later put in a header or call. Text outside ASCII is stored in its ASCII form
 * (`https://bücher.example/ä` → `https://xn--bcher-kva.example/%C3%A4`), the only form a
 * Location header can carry; ASCII input is stored as given.
 */
export function webUrl(max = 2048) {
  return trimmedUrlText(max)
    .superRefine(webUrlIssue(false))
    .transform((value) => (/^[\x21-\x7e]*$/.test(value) ? value : new URL(value).href))
    .openapi({ type: 'string', format: 'uri', maxLength: max, example: 'https://example.com/pricing' });
}

/**
 * A blankable web address by the one URL rule: an `http`/`https` URL or a bare host
 * (`example.com`, judged as `http://example.com`); any other scheme (`javascript:`, `data:`,
 * `file:`) is refused, since clients render these fields as links.
 */
export function webAddress(max: number) {
  return trimmedUrlText(max)
    .transform((value) => (value === '' ? null : value))
    .superRefine(webUrlIssue(true))
    .nullish()
    .openapi({ type: ['string', 'null'], format: 'uri', maxLength: max });
}

/** Trimmed, domain lower-cased; syntax checked. */
export const email = z
  .string()
  .trim()
  .max(254, 'must be at most 254 characters')
  .pipe(z.email('must be a valid email address'))
  .transform((value) => {
    const at = value.lastIndexOf('@');
    return `${value.slice(0, at)}@${value.slice(at + 1).toLowerCase()}`;
  })
  .openapi({ type: 'string', format: 'email', example: 'ada@example.com' });

/** `expires_in` of an OAuth access token handed to a connect route: whole seconds, up to a year. */
export const tokenLifetimeSeconds = z
  .number({ error: 'must be a number of seconds' })
  .int('must be a whole number of seconds')
  .min(1, 'must be at least 1')
  .max(31_536_000, 'must be at most 31536000');

/**
 * `organization_id` of an operator route's body (core/auth/operator.ts runAsOrganization): the
 * organization acted on, a JSON number; none such is a 404 there.
 */
export function operatorOrganizationId(description: string) {
  const message = 'must be the id of an organization (a positive integer)';
  return z
    .number({ error: message })
    .int(message)
    .positive(message)
    .max(Number.MAX_SAFE_INTEGER)
    .openapi({ description: `${description} (404 when there is none)`, example: 12 });
}

/**
 * A positive integer id, from a number or its text (query, form). Coerced like z.coerce.number(),
 * except that a missing value stays missing, so it reads "is required" rather than "must be a number".
 */
export const positiveId = z.preprocess(
  (value) => (value === undefined ? value : Number(value)),
  z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
);

/**
 * "1,2,3", 7, or [1, "2"] → [1, 2, 3]; null when any member is not a whole number ≥ 0 (or there
 * is none). Digits only: "0x10", "1e3" and "+1" are not ids.
 */
export function parseIdList(value: string | number | (string | number)[]): number[] | null {
  const parts = Array.isArray(value) ? value : typeof value === 'number' ? [value] : value.split(',');
  const ids = parts.map((part) => (typeof part === 'number' ? part : part.trim())).filter((part) => part !== '');
  const parsed = ids.map((part) => (typeof part === 'number' ? part : /^\d+$/.test(part) ? Number(part) : Number.NaN));
  if (parsed.length === 0 || parsed.some((id) => !Number.isSafeInteger(id) || id < 0)) return null;
  return parsed;
}

const idListMember = z.union([z.string().max(2_000), z.number()]);

/**
 * An optional id list: "1,2" in a query string; in JSON bodies (bulk filters, saved views) also a
 * number or an array. A non-numeric member is a 400 (query) or 422 (body) naming the parameter.
 */
export function idList(description: string) {
  return z
    .union([idListMember, z.array(idListMember).max(1_000)])
    .transform((value, ctx) => {
      const ids = parseIdList(value);
      if (!ids) {
        ctx.addIssue({ code: 'custom', message: 'must be a comma-separated list of numeric ids' });
        return z.NEVER;
      }
      return ids;
    })
    .optional()
    .openapi({ description, type: 'string', example: '1,2' });
}

/** An optional flag: "true"/"false"/"1"/"0" in a query string; in JSON bodies (bulk filters, saved views) also a boolean. */
export const booleanFlag = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0'])])
  .transform((value) => value === true || value === 'true' || value === '1')
  .optional()
  .openapi({ type: 'string', enum: ['true', 'false'] });

export const idsBody = z
  .array(positiveId)
  .min(1, 'must contain at least one id')
  .max(10_000, 'at most 10000 ids per request');

/** The answer of a delete route: the id that was deleted. */
export const DeletedId = z
  .object({ id: z.number().int().openapi({ description: 'The id of the record deleted' }) })
  .openapi('DeletedId', { description: 'The record this request deleted', example: { id: 12 } });

export function isoTimestamp(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/**
 * isoTimestamp in SQL, for timestamps a statement writes into jsonb (webhook and chat payloads,
 * notices, nested objects of a response): ISO 8601 in UTC with milliseconds,
 * `2026-11-20T09:30:00.123Z`. A timestamptz put in jsonb as is reads
 * `2026-11-20T09:30:00.123456+00:00`. Every such timestamp goes through this one function.
 */
export function isoTimestampSql(at: SQL): SQL {
  return sql`to_char(${at} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** Free-form JSON is nested at most this deep: deeper values break Postgres and the clients that read them back. */
export const MAX_JSON_DEPTH = 32;

/** The nesting depth of a JSON value (a scalar is 0), counted without recursion so no input can exhaust the stack. */
export function jsonDepth(value: unknown): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop() as [unknown, number];
    if (node === null || typeof node !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > MAX_JSON_DEPTH) return deepest;
    for (const child of Object.values(node)) pending.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * A free-form JSON object (AI enrichment data, saved filters): keys bounded, at most
 * MAX_JSON_DEPTH levels deep and `maxChars` characters of JSON in all.
 */
export function jsonObject(options: { maxKeyLength: number; maxChars: number }) {
  return z
    .record(
      z.string().max(options.maxKeyLength, `keys must be at most ${options.maxKeyLength} characters`),
      z.unknown(),
    )
    .refine((value) => jsonDepth(value) <= MAX_JSON_DEPTH, `must be nested at most ${MAX_JSON_DEPTH} levels deep`)
    .refine(
      (value) => JSON.stringify(value).length <= options.maxChars,
      `is too large (${options.maxChars.toLocaleString('en-US').replace(/,/g, ' ')} characters of JSON at most)`,
    );
}

export { isCalendarDate };

const DAY_MESSAGE = `must be a real date YYYY-MM-DD from ${FIRST_DAY} to ${LAST_DAY}`;

/** A day that exists, YYYY-MM-DD, within the calendar (core/calendar.ts): every date field and date parameter. */
export function dateInput(description?: string) {
  return z
    .string()
    .trim()
    .max(10, DAY_MESSAGE)
    .refine(isCalendarDate, DAY_MESSAGE)
    .openapi({ format: 'date', example: '2026-06-30', description });
}

/**
 * An ISO 8601 instant within the calendar (core/calendar.ts), as a Date: every timestamp field and
 * parameter. `offset: 'required'` for times a person books (meetings), `'optional'` where a
 * date-time without one has always meant UTC; `dateOnly` also takes a bare date (its midnight UTC).
 */
export function timestampInput(rules: TimestampRules, description?: string) {
  const form = rules.offset === 'required' ? 'an ISO 8601 date-time with a time zone' : 'an ISO 8601 date-time';
  const message = `must be ${rules.dateOnly ? `a date or ${form.slice(3)}` : form} (2026-03-09T09:00:00-04:00) from ${FIRST_DAY} to ${LAST_DAY}`;
  return z
    .string()
    .trim()
    .max(40, message)
    .refine((value) => parseTimestamp(value, rules) !== null, message)
    .transform((value) => new Date(parseTimestamp(value, rules) as number))
    .openapi({
      type: 'string',
      format: 'date-time',
      maxLength: 40,
      example: '2026-03-09T09:00:00-04:00',
      description,
    });
}

/** An IANA zone name or UTC (core/calendar.ts); `utc` is written `UTC`. Offsets (`+05:00`) and `Factory` are refused. */
export const timeZone = z
  .string()
  .trim()
  .max(64, 'must be at most 64 characters')
  .refine((value) => timeZoneName(value) !== null, 'must be an IANA time zone such as Europe/Berlin, or UTC')
  .transform((value) => timeZoneName(value) as string)
  .openapi({ type: 'string', maxLength: 64, example: 'Europe/Berlin' });

/** A response instant: ISO 8601 in UTC with milliseconds (`2026-01-15T09:30:00.000Z`). */
export function timestamp(description?: string) {
  return z.string().openapi({ format: 'date-time', example: '2026-01-15T09:30:00.000Z', description });
}

/**
 * Keeps `null` in the document for a nullish schema whose inner schema overrides its OpenAPI type
 * (the override would otherwise hide that null is accepted).
 */
export function nullishAs<T extends z.ZodType>(schema: T, type: 'integer' | 'number' | 'string') {
  return schema.nullish().openapi({ type: [type, 'null'] });
}
