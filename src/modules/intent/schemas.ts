/**
 * Request and response shapes of the intent signal and intent alert endpoints.
 */
import { z } from '@hono/zod-openapi';
import { jsonObject, positiveId, timestamp } from '../../core/schemas';
import { SIGNAL_TYPES } from './scoring';

/** How far in the future occurred_at may be (clock skew of the sender). */
const FUTURE_SKEW_MS = 5 * 60_000;

const leadId = positiveId.openapi({ description: 'A lead of the organization', example: 1, type: 'integer' });

export const signalType = z
  .enum(SIGNAL_TYPES, { error: `must be one of ${SIGNAL_TYPES.join(', ')}` })
  .openapi({ description: 'What happened', example: 'demo_requested' });

const occurredAt = z
  .string()
  .max(40)
  .refine((value) => !Number.isNaN(Date.parse(value)), 'must be an ISO 8601 date or date-time')
  .refine((value) => Date.parse(value) <= Date.now() + FUTURE_SKEW_MS, 'must not be in the future')
  .transform((value) => new Date(value))
  .openapi({
    type: 'string',
    format: 'date-time',
    description: 'When it happened (ISO 8601); defaults to now; at most 5 minutes in the future',
    example: '2026-01-15T09:30:00Z',
  });

const signalDetail = jsonObject({ maxKeyLength: 100, maxChars: 10_000 }).openapi({
  description: 'Free-form detail of the event (page URL, form name …)',
  example: { url: 'https://example.com/pricing' },
});

export const ApiKeySignalBody = z
  .object({
    lead_id: leadId,
    signal_type: signalType,
    signal_detail: signalDetail.optional(),
    occurred_at: occurredAt.optional(),
  })
  .openapi('IntentSignalRequest');

export const AppSignalBody = ApiKeySignalBody.extend({
  source: z
    .string()
    .trim()
    .min(1, 'is required')
    .max(50, 'must be at most 50 characters')
    .optional()
    .openapi({ description: 'Where the signal comes from (default app)', example: 'sales_call' }),
}).openapi('RecordIntentSignalRequest');

export type SignalInput = z.infer<typeof AppSignalBody>;

export const IntentSignalSchema = z
  .object({
    id: z.number().int(),
    lead_id: z.number().int(),
    signal_type: z.string().openapi({ description: 'One of the nine signal types' }),
    signal_detail: z.record(z.string(), z.unknown()).openapi({ type: 'object', additionalProperties: true }),
    source: z.string().nullable(),
    occurred_at: timestamp(),
    created_at: timestamp(),
  })
  .openapi('IntentSignal');

export const RecordedSignalSchema = IntentSignalSchema.extend({
  intent_score: z.number().openapi({ description: "The lead's intent score after this signal", example: 45.5 }),
  is_hot: z.boolean().openapi({ description: 'Whether the score is at or above the hot threshold' }),
  alert_id: z
    .number()
    .int()
    .nullable()
    .openapi({ description: 'The intent alert this signal raised (the lead just became hot), else null' }),
}).openapi('RecordedIntentSignal');

const ReasonSchema = z.object({
  signal_type: z.string(),
  occurred_at: timestamp(),
  points: z.number().openapi({ description: 'What the signal was worth at the crossing' }),
});

export const IntentAlertSchema = z
  .object({
    id: z.number().int(),
    lead_id: z.number().int(),
    lead_name: z.string(),
    assigned_to_id: z.number().int().nullable(),
    score: z.number().openapi({ description: 'The intent score when the lead crossed the hot threshold' }),
    reasons: z.array(ReasonSchema).openapi({ description: 'The signals that contributed most, largest first' }),
    created_at: timestamp(),
    acknowledged_at: timestamp().nullable(),
    acknowledged_by: z.number().int().nullable(),
  })
  .openapi('IntentAlert');

export const HotLeadSchema = z
  .object({
    lead_id: z.number().int(),
    first_name: z.string(),
    last_name: z.string(),
    email: z.string().nullable(),
    assigned_to_id: z.number().int().nullable(),
    intent_score: z.number(),
    hot_since: timestamp().nullable().openapi({ description: 'When the lead last crossed the hot threshold' }),
    reasons: z.array(z.string()).openapi({
      description: 'Why it is hot: its largest contributions now, e.g. "demo_requested 2 days ago (+32.8)"',
      example: ['demo_requested 2 days ago (+32.8)', 'pricing_page_visit 3 hours ago (+19.6)'],
    }),
    recent_signals: z
      .array(IntentSignalSchema)
      .openapi({ description: 'Its latest signals (at most 5), newest first' }),
  })
  .openapi('HotLead');

export const HotLeadsQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(10)
    .openapi({ description: 'At most this many leads (1 to 100)', type: 'integer' }),
  assigned_to_id: positiveId.optional().openapi({ description: 'Leads assigned to this user', type: 'integer' }),
  signal_type: signalType.optional().openapi({ description: 'Leads with a signal of this type in the last 30 days' }),
});

/** Filters of the alert list beyond the standard list parameters. */
export const alertListFilters = {
  lead_id: positiveId.optional().openapi({ description: 'Alerts of this lead', type: 'integer' }),
  assigned_to_id: positiveId
    .optional()
    .openapi({ description: 'Alerts of leads assigned to this user', type: 'integer' }),
  from_date: z.iso.date('must be a date YYYY-MM-DD').optional().openapi({ description: 'Raised on or after this day' }),
  to_date: z.iso.date('must be a date YYYY-MM-DD').optional().openapi({ description: 'Raised on or before this day' }),
};
