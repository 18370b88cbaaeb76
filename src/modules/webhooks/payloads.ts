/**
 * The documented body of each event, registered as OpenAPI 3.1 `webhooks` (one entry per event
 * name): what a receiver gets, with the signing headers. The SQL that writes each `data` is in
 * event-data.ts and the emitting services; test/webhooks-payloads.test.ts checks emitted bodies
 * against these schemas.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from '@hono/zod-openapi';
import { EVENT_DESCRIPTIONS, EVENT_TYPES, type EventType } from '../../core/event-types';

const id = (description: string) => z.number().int().openapi({ description });
const nullableId = (description: string) => z.number().int().nullable().openapi({ description });
/** A timestamp as every API response writes it: ISO 8601 in UTC with milliseconds (`…Z`), never Postgres' `+00:00`. */
const at = (description: string) =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, 'must be ISO 8601 UTC with milliseconds')
    .openapi({ description: `${description}: ISO 8601 UTC with milliseconds`, example: '2026-11-20T09:30:00.000Z' });

export const EVENT_DATA: Record<EventType, z.ZodObject> = {
  'lead.created': z.object({
    lead_id: id('The new lead'),
    first_name: z.string().openapi({ description: 'First name (may be empty for captured leads)' }),
    last_name: z.string().openapi({ description: 'Last name (may be empty)' }),
    email: z.string().nullable().openapi({ description: 'Email, or null' }),
    company: z.string().nullable().openapi({ description: 'Company name, or null' }),
    status: z.number().int().openapi({ description: 'The status lookup id' }),
    assigned_to: nullableId('The assignee, or null'),
    created_at: at('When the lead was created'),
  }),
  'lead.assigned': z.object({
    lead_id: id('The lead'),
    lead_name: z.string().nullable().openapi({ description: 'The lead’s name' }),
    assigned_to: id('The new assignee'),
    assigned_by: nullableId(
      'The user who assigned it (the creator of the API key or job when one did); null when unknown',
    ),
  }),
  'intent.hot': z.object({
    alert_id: id('The intent alert raised'),
    lead_id: id('The lead that turned hot'),
    lead_name: z.string().openapi({ description: 'The lead’s name' }),
    email: z.string().nullable().openapi({ description: 'The lead’s email, or null' }),
    score: z.number().openapi({ description: 'The intent score that crossed the threshold' }),
    assigned_to: nullableId('The lead’s assignee, or null'),
  }),
  'booking.confirmed': z.object({
    meeting_id: id('The meeting booked'),
    lead_id: nullableId('The lead found or created for the visitor'),
    user_id: id('The rep booked'),
    title: z.string().openapi({ description: 'The meeting’s title' }),
    start: at('Start (UTC)'),
    end: at('End (UTC)'),
    timezone: z.string().openapi({ description: 'The rep’s booking time zone', example: 'Europe/Berlin' }),
    name: z.string().openapi({ description: 'The visitor’s name' }),
    email: z.string().openapi({ description: 'The visitor’s email' }),
  }),
  'deal.won': dealData('won'),
  'deal.lost': dealData('lost'),
  'import.finished': z.object({
    import_job_id: id('The import job'),
    status: z.literal('completed').openapi({ description: 'Always completed (a failed import is not announced)' }),
    file_name: z.string().openapi({ description: 'The uploaded file’s name' }),
    total_rows: z.number().int().openapi({ description: 'Rows read' }),
    created: z.number().int().openapi({ description: 'Leads created' }),
    updated: z.number().int().openapi({ description: 'Leads updated by a merge' }),
    skipped: z.number().int().openapi({ description: 'Rows skipped as duplicates' }),
    failed: z.number().int().openapi({ description: 'Rows refused as invalid' }),
    finished_at: at('When it finished'),
  }),
};

function dealData(outcome: 'won' | 'lost') {
  return z.object({
    deal_id: id(`The deal ${outcome}`),
    title: z.string().openapi({ description: 'The deal’s title' }),
    value: z.number().openapi({ description: 'The deal’s value' }),
    lead_id: id('The deal’s lead'),
    pipeline_id: id('Its pipeline'),
    stage_id: id(`The ${outcome} stage it moved to`),
    owner_id: nullableId('The deal’s owner, or null'),
    closed_at: at('When it closed'),
  });
}

const AT = '2026-11-20T09:30:00.000Z';
const DEAL_EXAMPLE = {
  deal_id: 31,
  title: 'Annual licence',
  value: 12000,
  lead_id: 812,
  pipeline_id: 2,
  owner_id: 5,
  closed_at: AT,
};
const EVENT_EXAMPLES: Record<EventType, Record<string, unknown>> = {
  'lead.created': {
    lead_id: 812,
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: 'ada@example.com',
    company: 'Analytical Engines',
    status: 1,
    assigned_to: 5,
    created_at: AT,
  },
  'lead.assigned': { lead_id: 812, lead_name: 'Ada Lovelace', assigned_to: 5, assigned_by: 2 },
  'intent.hot': {
    alert_id: 77,
    lead_id: 812,
    lead_name: 'Ada Lovelace',
    email: 'ada@example.com',
    score: 61.5,
    assigned_to: 5,
  },
  'booking.confirmed': {
    meeting_id: 40,
    lead_id: 812,
    user_id: 5,
    title: 'Meeting with Ada Lovelace',
    start: AT,
    end: '2026-11-20T10:00:00.000Z',
    timezone: 'Europe/Berlin',
    name: 'Ada Lovelace',
    email: 'ada@example.com',
  },
  'deal.won': { ...DEAL_EXAMPLE, stage_id: 6 },
  'deal.lost': { ...DEAL_EXAMPLE, stage_id: 7 },
  'import.finished': {
    import_job_id: 9,
    status: 'completed',
    file_name: 'leads.csv',
    total_rows: 1200,
    created: 1100,
    updated: 50,
    skipped: 40,
    failed: 10,
    finished_at: AT,
  },
};

/** The whole body of one event: Standard Webhooks' `{ type, timestamp, data }`. */
export function eventPayloadSchema(type: EventType) {
  return z
    .object({
      type: z.literal(type).openapi({ description: 'The event name' }),
      timestamp: at('When the event happened (UTC)'),
      data: EVENT_DATA[type].openapi({ description: `What the ${type} event is about` }),
    })
    .openapi(`WebhookEvent_${type.replace('.', '_')}`, {
      description: EVENT_DESCRIPTIONS[type],
      example: { type, timestamp: AT, data: EVENT_EXAMPLES[type] },
    });
}

const signingHeaders = z.object({
  'webhook-id': z.string().openapi({
    description: 'The message id: the same on every retry and on a replay, so a receiver can drop repeats',
    example: 'msg_2b7a3c9e0d1f4a5b8c6d7e9f0a1b2c3d',
  }),
  'webhook-timestamp': z.string().openapi({ description: 'Seconds since the epoch when this attempt was signed' }),
  'webhook-signature': z.string().openapi({
    description:
      '`v1,` + base64 of HMAC-SHA256 over `webhook-id.webhook-timestamp.body`, keyed by the base64-decoded part of the endpoint’s secret after `whsec_` (Standard Webhooks)',
  }),
});

export function registerWebhookPayloads(registry: OpenAPIHono['openAPIRegistry']): void {
  for (const type of EVENT_TYPES) {
    registry.registerWebhook({
      method: 'post',
      path: type,
      operationId: `webhook_${type.replace('.', '_')}`,
      tags: ['Webhooks'],
      // We call the receiver: no scheme of ours applies; the receiver checks the signature headers.
      security: [],
      summary: `${type}`,
      description: `${EVENT_DESCRIPTIONS[type]} Sent to every enabled endpoint subscribed to \`${type}\`; retried on a failure status (anything but 2xx) or no answer within 15 s, after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h.`,
      request: {
        headers: signingHeaders,
        body: { content: { 'application/json': { schema: eventPayloadSchema(type) } } },
      },
      responses: { 200: { description: 'Any 2xx acknowledges the event; anything else is retried' } },
    });
  }
}
