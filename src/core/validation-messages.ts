/**
 * Plain validation messages, the same wording everywhere: zod's global error map, installed once
 * (imported by app.ts). The error envelope prefixes the field: `lead_id: is required`,
 * `score: must be a number`, `status: must be one of: open, done`. A message written in a schema
 * (`.min(2, 'must be at least 2 characters')`, `{ error: … }`) outranks this map; zod's own
 * English ("Invalid input: expected number, received NaN") never reaches a caller.
 */
import { z } from 'zod';

type Issue = z.core.$ZodRawIssue;

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  bigint: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  record: 'an object',
  array: 'a list',
  tuple: 'a list',
  set: 'a list',
  date: 'a date',
  file: 'a file',
  null: 'null',
};

const FORMATS: Record<string, string> = {
  email: 'must be a valid email address',
  url: 'must be a valid URL',
  uuid: 'must be a UUID',
  guid: 'must be a UUID',
  date: 'must be a date (YYYY-MM-DD)',
  datetime: 'must be a date-time (ISO 8601, e.g. 2026-01-31T09:30:00Z)',
  time: 'must be a time (HH:MM or HH:MM:SS)',
  duration: 'must be an ISO 8601 duration',
  ipv4: 'must be an IPv4 address',
  ipv6: 'must be an IPv6 address',
  cidrv4: 'must be an IPv4 range',
  cidrv6: 'must be an IPv6 range',
  e164: 'must be a phone number in E.164 form (+15551234567)',
  base64: 'must be base64',
  base64url: 'must be base64url',
  json_string: 'must be JSON text',
  regex: 'has an invalid format',
};

const UNITS: Record<string, [string, string]> = {
  string: ['character', 'characters'],
  array: ['item', 'items'],
  set: ['item', 'items'],
  file: ['byte', 'bytes'],
};

function quantity(count: number | bigint, origin: string): string {
  const unit = UNITS[origin];
  if (!unit) return String(count);
  return `${count} ${count === 1 || count === 1n ? unit[0] : unit[1]}`;
}

function listed(value: unknown): string {
  return typeof value === 'string' ? value : String(value);
}

function tooSmall(issue: Extract<Issue, { code: 'too_small' }>): string {
  const { origin, minimum } = issue;
  const amount = quantity(minimum, origin);
  const verb = UNITS[origin] && origin !== 'string' ? 'must have' : 'must be';
  if (issue.exact) return `${verb} exactly ${amount}`;
  if (UNITS[origin] && Number(minimum) <= 1) return 'must not be empty';
  if (origin === 'date') return `must be on or after ${new Date(Number(minimum)).toISOString()}`;
  if (issue.inclusive === false)
    return UNITS[origin] ? `${verb} more than ${amount}` : `must be greater than ${amount}`;
  return `${verb} at least ${amount}`;
}

function tooBig(issue: Extract<Issue, { code: 'too_big' }>): string {
  const { origin, maximum } = issue;
  const amount = quantity(maximum, origin);
  const verb = UNITS[origin] && origin !== 'string' ? 'must have' : 'must be';
  if (issue.exact) return `${verb} exactly ${amount}`;
  if (origin === 'date') return `must be on or before ${new Date(Number(maximum)).toISOString()}`;
  if (issue.inclusive === false) return UNITS[origin] ? `${verb} fewer than ${amount}` : `must be less than ${amount}`;
  return `${verb} at most ${amount}`;
}

/**
 * A union none of whose options took the value. The one option of the value's type says what is
 * wrong with it ("abc" for a number or digits: "must be a whole number"); when every option wanted
 * another type, the types are named.
 */
function noUnionMatch(issue: Extract<Issue, { code: 'invalid_union' }>): string {
  const options = (issue as { options?: unknown[] }).options;
  if (options && options.length > 0) return `must be one of: ${options.map(listed).join(', ')}`;
  const ofItsType = issue.errors.filter((errors) => errors[0] && errors[0].code !== 'invalid_type');
  if (ofItsType.length === 1 && ofItsType[0][0].message) return ofItsType[0][0].message;
  const expected = issue.errors.map((errors) => (errors[0]?.code === 'invalid_type' ? errors[0].expected : null));
  if (expected.length > 0 && expected.every((type) => type !== null && TYPE_NAMES[type])) {
    const names = [...new Set(expected.map((type) => TYPE_NAMES[type as string]))];
    return `must be ${names.join(' or ')}`;
  }
  return 'is not valid';
}

export function plainMessage(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined || issue.expected === 'nonoptional') return 'is required';
      return TYPE_NAMES[issue.expected] ? `must be ${TYPE_NAMES[issue.expected]}` : 'has the wrong type';
    case 'too_small':
      return tooSmall(issue);
    case 'too_big':
      return tooBig(issue);
    case 'invalid_value':
      if (issue.values.length === 1) return `must be ${listed(issue.values[0])}`;
      return `must be one of: ${issue.values.map(listed).join(', ')}`;
    case 'invalid_format':
      if (issue.format === 'starts_with') return `must start with "${issue.prefix}"`;
      if (issue.format === 'ends_with') return `must end with "${issue.suffix}"`;
      if (issue.format === 'includes') return `must include "${issue.includes}"`;
      return FORMATS[issue.format] ?? `must be a valid ${issue.format.replaceAll('_', ' ')}`;
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'unrecognized_keys':
      return `has unknown field${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}`;
    case 'invalid_union':
      if (issue.input === undefined) return 'is required';
      return issue.inclusive === false ? 'matches more than one allowed form' : noUnionMatch(issue);
    case 'invalid_key':
      return 'has an invalid key';
    case 'invalid_element':
      return 'has an invalid item';
    default:
      return 'is not valid';
  }
}

z.config({ customError: plainMessage });
