/**
 * Request and response shapes of the lead follow-up endpoints, and the follow-up statuses.
 */
import { z } from '@hono/zod-openapi';
import { parseTimestamp } from '../../core/calendar';
import { optionalText, positiveId, timestamp } from '../../core/schemas';

/**
 * Follow-up status (the spec only says 1 to 6). Any status may follow any other: the spec
 * states no transition rule, and moving the date does not change the status by itself.
 */
export const FOLLOW_UP_STATUSES = {
  1: 'Pending',
  2: 'Completed',
  3: 'Rescheduled',
  4: 'Cancelled',
  5: 'Missed',
  6: 'No response',
} as const;

const statusDescription = Object.entries(FOLLOW_UP_STATUSES)
  .map(([value, label]) => `${value}=${label}`)
  .join(', ');

const status = z.coerce
  .number()
  .int()
  .min(1, 'must be 1 to 6')
  .max(6, 'must be 1 to 6')
  .openapi({ description: statusDescription, example: 1 });

/** The calendar's rule (core/calendar.ts): a day that exists, within 1900 to 9999. */
function isIsoInstant(value: string): boolean {
  return parseTimestamp(value, { dateOnly: true, offset: 'required' }) !== null;
}

/** ISO 8601: a date-time with offset (2026-03-01T09:30:00Z) or a date (midnight UTC). */
const isoInstant = z
  .string()
  .trim()
  .max(40)
  .refine(isIsoInstant, 'must be an ISO 8601 date or date-time with offset, from 1900-01-01 to 9999-12-31');

export const isDateOnly = (value: string) => value.length === 10;

const followUpDate = isoInstant
  .transform((value) => new Date(value))
  .openapi({
    type: 'string',
    anyOf: [{ format: 'date-time' }, { format: 'date' }],
    description: 'An ISO 8601 date-time with offset, or a date alone (midnight UTC)',
    example: '2026-03-01T09:30:00Z',
  });

const leadId = positiveId.openapi({ description: 'A lead of the organization', example: 1 });

export const AddFollowUpBody = z
  .object({
    lead_id: leadId,
    follow_up_date: followUpDate,
    notes: optionalText(5_000).openapi({ description: 'Notes, up to 5 000 characters; optional' }),
    status: status.default(1),
  })
  .openapi('AddFollowUpRequest', {
    description: 'A follow-up to schedule on a lead',
    example: { lead_id: 1, follow_up_date: '2026-03-01T09:30:00Z', notes: 'Send the proposal', status: 1 },
  });

export const UpdateFollowUpBody = z
  .object({
    follow_up_date: followUpDate.optional(),
    notes: optionalText(5_000).openapi({ description: 'Notes, up to 5 000 characters; null clears them' }),
    status: status.optional(),
  })
  .refine((body) => body.follow_up_date !== undefined || body.notes !== undefined || body.status !== undefined, {
    message: 'give follow_up_date, notes or status',
    path: ['status'],
  })
  .openapi('UpdateFollowUpRequest', {
    description: 'The follow-up fields to change (at least one); omitted ones keep their value',
    example: { follow_up_date: '2026-03-08', status: 3 },
  });

const statusList = z
  .string()
  .max(20)
  .transform((value, ctx) => {
    const values = value.split(',').map((part) => Number(part.trim()));
    if (values.length === 0 || values.some((n) => !Number.isInteger(n) || n < 1 || n > 6)) {
      ctx.addIssue({ code: 'custom', message: 'must be a status 1 to 6, or a comma-separated list of them' });
      return z.NEVER;
    }
    return values;
  })
  .optional()
  .openapi({
    type: 'string',
    description: `One status or a comma-separated list (${statusDescription})`,
    example: '1,3',
  });

/** Filters of the list beyond the standard list parameters (the list itself: service.ts). */
export const followUpListFilters = {
  lead_id: leadId,
  status: statusList,
  follow_up_from: isoInstant
    .optional()
    .openapi({ description: 'follow_up_date on or after this instant (a date means its midnight UTC)' }),
  follow_up_to: isoInstant
    .optional()
    .openapi({ description: 'follow_up_date on or before this instant (a date means the end of that day, UTC)' }),
};

export const FollowUpSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The follow-up’s id' }),
    lead_id: z.number().int().openapi({ description: 'The lead it is on' }),
    follow_up_date: timestamp('When to follow up (UTC; a date given alone is its midnight UTC)'),
    notes: z.string().nullable().openapi({ description: 'Notes; null when none' }),
    status: z.number().int().openapi({ description: statusDescription }),
    status_text: z.string().openapi({ description: 'The status’s label (Pending, Completed …)' }),
    created_by: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Id of the user who created it; null when that user is gone' }),
    created_at: timestamp('When it was scheduled'),
    updated_at: timestamp('When it last changed'),
  })
  .openapi('FollowUp', {
    description: 'A scheduled follow-up on a lead',
    example: {
      id: 5,
      lead_id: 1,
      follow_up_date: '2026-03-01T09:30:00.000Z',
      notes: 'Send the proposal',
      status: 1,
      status_text: 'Pending',
      created_by: 1,
      created_at: '2026-01-15T09:30:00.000Z',
      updated_at: '2026-01-15T09:30:00.000Z',
    },
  });

export type AddFollowUpInput = z.infer<typeof AddFollowUpBody>;
export type UpdateFollowUpInput = z.infer<typeof UpdateFollowUpBody>;
