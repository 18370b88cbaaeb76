/**
 * Request and response shapes of the intent signal and intent alert endpoints.
 */
import { z } from '@hono/zod-openapi';
import { dateInput, jsonObject, positiveId, timestamp, timestampInput } from '../../core/schemas';
import { SIGNAL_TYPES } from './scoring';

/** How far in the future occurred_at may be (clock skew of the sender). */
const FUTURE_SKEW_MS = 5 * 60_000;

const leadId = positiveId.openapi({ description: 'A lead of the organization', example: 1, type: 'integer' });

export const signalType = z
  .enum(SIGNAL_TYPES, { error: `must be one of ${SIGNAL_TYPES.join(', ')}` })
  .openapi({ description: 'What happened', example: 'demo_requested' });

const occurredAt = timestampInput({ dateOnly: true, offset: 'optional' })
  .refine((value) => value.getTime() <= Date.now() + FUTURE_SKEW_MS, 'must not be in the future')
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
  .openapi('IntentSignalRequest', {
    description: 'A behavioural signal sent with an API key (recorded with source api)',
    example: { lead_id: 1, signal_type: 'demo_requested', signal_detail: { form: 'demo' } },
  });

export const AppSignalBody = ApiKeySignalBody.extend({
  source: z
    .string()
    .trim()
    .min(1, 'is required')
    .max(50, 'must be at most 50 characters')
    .optional()
    .openapi({ description: 'Where the signal comes from (default app)', example: 'sales_call' }),
}).openapi('RecordIntentSignalRequest', {
  description: 'A behavioural signal recorded from the app (source defaults to app)',
  example: { lead_id: 1, signal_type: 'pricing_page_visit', source: 'website', occurred_at: '2026-01-15T09:30:00Z' },
});

export type SignalInput = z.infer<typeof AppSignalBody>;

export const IntentSignalSchema = z
  .object({
    id: z.number().int().openapi({ description: 'Id of the signal', example: 41 }),
    lead_id: z.number().int().openapi({ description: 'The lead it concerns', example: 1 }),
    signal_type: z.string().openapi({ description: 'One of the nine signal types', example: 'demo_requested' }),
    signal_detail: z.record(z.string(), z.unknown()).openapi({
      type: 'object',
      additionalProperties: true,
      description: 'Free-form detail sent with the signal (tracking hits carry campaign and token hash)',
      example: { url: 'https://example.com/pricing' },
    }),
    source: z
      .string()
      .nullable()
      .openapi({ description: 'Where it came from: api, app, tracking or the sender’s own label', example: 'api' }),
    occurred_at: timestamp().openapi({ description: 'When it happened' }),
    created_at: timestamp().openapi({ description: 'When it was recorded' }),
  })
  .openapi('IntentSignal', {
    description: 'A behavioural event on a lead, weighted into its intent score',
    example: {
      id: 41,
      lead_id: 1,
      signal_type: 'demo_requested',
      signal_detail: { form: 'demo' },
      source: 'api',
      occurred_at: '2026-01-15T09:30:00.000Z',
      created_at: '2026-01-15T09:30:01.000Z',
    },
  });

export const RecordedSignalSchema = IntentSignalSchema.extend({
  intent_score: z.number().openapi({ description: "The lead's intent score after this signal", example: 45.5 }),
  is_hot: z.boolean().openapi({ description: 'Whether the score is at or above the hot threshold' }),
  alert_id: z
    .number()
    .int()
    .nullable()
    .openapi({ description: 'The intent alert this signal raised (the lead just became hot), else null' }),
}).openapi('RecordedIntentSignal', {
  description: "The recorded signal with the lead's new intent score",
  example: {
    id: 41,
    lead_id: 1,
    signal_type: 'demo_requested',
    signal_detail: {},
    source: 'api',
    occurred_at: '2026-01-15T09:30:00.000Z',
    created_at: '2026-01-15T09:30:01.000Z',
    intent_score: 52.5,
    is_hot: true,
    alert_id: 7,
  },
});

const ReasonSchema = z.object({
  signal_type: z.string().openapi({ description: 'The type of the contributing signal', example: 'demo_requested' }),
  occurred_at: timestamp().openapi({ description: 'When that signal happened' }),
  points: z.number().openapi({ description: 'What the signal was worth at the crossing' }),
});

export const IntentAlertSchema = z
  .object({
    id: z.number().int().openapi({ description: 'Id of the alert', example: 7 }),
    lead_id: z.number().int().openapi({ description: 'The lead that became hot', example: 1 }),
    lead_name: z.string().openapi({ description: "The lead's first and last name", example: 'Ada Lovelace' }),
    assigned_to_id: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'The user the lead is assigned to (notified of the alert), or null', example: 3 }),
    score: z.number().openapi({ description: 'The intent score when the lead crossed the hot threshold' }),
    reasons: z.array(ReasonSchema).openapi({ description: 'The signals that contributed most, largest first' }),
    created_at: timestamp().openapi({ description: 'When the lead crossed the threshold' }),
    acknowledged_at: timestamp().nullable().openapi({ description: 'When a user acknowledged it, or null' }),
    acknowledged_by: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'The user who acknowledged it, or null', example: null }),
  })
  .openapi('IntentAlert', {
    description: "One upward crossing of the hot threshold by a lead's intent score",
    example: {
      id: 7,
      lead_id: 1,
      lead_name: 'Ada Lovelace',
      assigned_to_id: 3,
      score: 52.5,
      reasons: [{ signal_type: 'demo_requested', occurred_at: '2026-01-15T09:30:00.000Z', points: 40 }],
      created_at: '2026-01-15T09:30:01.000Z',
      acknowledged_at: null,
      acknowledged_by: null,
    },
  });

export const HotLeadSchema = z
  .object({
    lead_id: z.number().int().openapi({ description: 'Id of the lead', example: 1 }),
    first_name: z.string().openapi({ description: "The lead's first name", example: 'Ada' }),
    last_name: z.string().openapi({ description: "The lead's last name", example: 'Lovelace' }),
    email: z.string().nullable().openapi({ description: "The lead's email, or null", example: 'ada@example.com' }),
    assigned_to_id: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'The user the lead is assigned to, or null', example: 3 }),
    intent_score: z.number().openapi({ description: 'The decayed intent score now', example: 52.5 }),
    hot_since: timestamp().nullable().openapi({ description: 'When the lead last crossed the hot threshold' }),
    reasons: z.array(z.string()).openapi({
      description: 'Why it is hot: its largest contributions now, e.g. "demo_requested 2 days ago (+32.8)"',
      example: ['demo_requested 2 days ago (+32.8)', 'pricing_page_visit 3 hours ago (+19.6)'],
    }),
    recent_signals: z
      .array(IntentSignalSchema)
      .openapi({ description: 'Its latest signals (at most 5), newest first' }),
  })
  .openapi('HotLead', {
    description: 'A lead whose decayed intent score is at or above the hot threshold now',
    example: {
      lead_id: 1,
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: 'ada@example.com',
      assigned_to_id: 3,
      intent_score: 52.5,
      hot_since: '2026-01-15T09:30:01.000Z',
      reasons: ['demo_requested 2 days ago (+32.8)'],
      recent_signals: [],
    },
  });

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
  from_date: dateInput('Raised on or after this day').optional(),
  to_date: dateInput('Raised on or before this day').optional(),
};
