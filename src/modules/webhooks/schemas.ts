/**
 * Request and response shapes of webhook endpoint management. The signing secret appears only
 * in the answers to create and rotate; it is stored sealed and never shown again.
 */
import { z } from '@hono/zod-openapi';
import { EVENT_TYPES, eventTypeSchema } from '../../core/event-types';
import { optionalText, timestamp, webUrl } from '../../core/schemas';

// The one URL rule (core/web-url.ts), then the SSRF rules for a target the server calls (service.ts).
const url = webUrl(2048).openapi({
  description:
    'Where events are POSTed: an https URL on the standard port, with a public host (no localhost, no private, loopback, link-local or CGNAT address), since the server itself makes the request',
  example: 'https://hooks.example.com/lead-events',
});

const events = z
  .array(eventTypeSchema)
  .min(1, 'must list at least one event')
  .max(EVENT_TYPES.length)
  .openapi({ description: `The events to receive, from: ${EVENT_TYPES.join(', ')}`, example: ['lead.created'] });

export const AddWebhookBody = z
  .object({
    url,
    events,
    description: optionalText(500).openapi({ description: 'A note to tell endpoints apart, at most 500 characters' }),
    enabled: z.boolean().optional().openapi({ description: 'Whether events are sent (default true)' }),
  })
  .openapi('AddWebhookRequest', {
    description: 'A new webhook endpoint',
    example: { url: 'https://hooks.example.com/lead-events', events: ['lead.created', 'deal.won'] },
  });
export type AddWebhookInput = z.infer<typeof AddWebhookBody>;

export const UpdateWebhookBody = z
  .object({
    url: url.optional(),
    events: events.optional(),
    description: optionalText(500).openapi({ description: 'A note; null clears it' }),
    enabled: z.boolean().optional().openapi({
      description: 'false stops sending; true sends again and forgets past failures (an endpoint disabled for failing)',
    }),
  })
  .openapi('UpdateWebhookRequest', { description: 'The fields to change', example: { enabled: true } });
export type UpdateWebhookInput = z.infer<typeof UpdateWebhookBody>;

const WEBHOOK_EXAMPLE = {
  id: 4,
  url: 'https://hooks.example.com/lead-events',
  events: ['lead.created'],
  description: null,
  enabled: true,
  failing_since: null,
  disabled_at: null,
  disabled_reason: null,
  created_at: '2026-11-20T09:30:00.000Z',
  updated_at: '2026-11-20T09:30:00.000Z',
};
const SECRET_EXAMPLE = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

export const WebhookSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The endpoint’s id' }),
    url: z.string().openapi({ description: 'Where events are POSTed' }),
    events: z.array(z.string()).openapi({ description: 'The events it receives' }),
    description: z.string().nullable().openapi({ description: 'The note, or null' }),
    enabled: z.boolean().openapi({ description: 'Whether events are sent' }),
    failing_since: timestamp('The first failed attempt since the last success; null while healthy').nullable(),
    disabled_at: timestamp('When it was disabled for failing; null otherwise').nullable(),
    disabled_reason: z.string().nullable().openapi({ description: 'Why it was disabled for failing, or null' }),
    created_at: timestamp('When it was created'),
    updated_at: timestamp('When it last changed'),
  })
  .openapi('Webhook', { description: 'A webhook endpoint, without its secret', example: WEBHOOK_EXAMPLE });

const secret = z.string().openapi({
  description:
    'The signing secret (`whsec_` + base64), shown in this response only: verify each request’s `webhook-signature` with it (Standard Webhooks)',
  example: SECRET_EXAMPLE,
});

// Its own example: the Webhook example lacks the secret this schema requires.
export const CreatedWebhookSchema = WebhookSchema.extend({ secret }).openapi('CreatedWebhook', {
  description: 'The new endpoint, with its secret',
  example: { ...WEBHOOK_EXAMPLE, secret: SECRET_EXAMPLE },
});

/** How long a replaced secret keeps signing by default (Svix's 24 hours), and at most (Stripe's 7 days). */
export const PREVIOUS_SECRET_DEFAULT_HOURS = 24;
export const PREVIOUS_SECRET_MAX_HOURS = 168;

export const RotateSecretQuery = z.object({
  previous_valid_hours: z.coerce
    .number({ error: 'must be a whole number of hours' })
    .int('must be a whole number of hours')
    .min(0, 'must be at least 0')
    .max(PREVIOUS_SECRET_MAX_HOURS, `must be at most ${PREVIOUS_SECRET_MAX_HOURS}`)
    .default(PREVIOUS_SECRET_DEFAULT_HOURS)
    .openapi({
      description: `Hours the replaced secret keeps signing beside the new one (0 to ${PREVIOUS_SECRET_MAX_HOURS}, default ${PREVIOUS_SECRET_DEFAULT_HOURS}); 0 ends it at once (a leaked secret)`,
      example: 24,
    }),
});

export const RotatedSecretSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The endpoint’s id' }),
    secret,
    previous_secret_expires_at: timestamp(
      'Until when the replaced secret still signs (a second `v1,` signature); null when it stopped at once',
    ).nullable(),
  })
  .openapi('RotatedWebhookSecret', {
    description: 'The endpoint’s new secret, and until when the replaced one signs beside it',
    example: { id: 4, secret: SECRET_EXAMPLE, previous_secret_expires_at: '2025-03-16T14:30:00.000Z' },
  });

export const WebhookAttemptSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The attempt’s id' }),
    delivery_id: z
      .number()
      .int()
      .openapi({ description: 'The delivery (for POST /api/webhooks/deliveries/{id}/replay)' }),
    message_id: z
      .string()
      .openapi({ description: 'The `webhook-id` header sent: the same on every attempt and replay' }),
    event_type: z.string().openapi({ description: 'The event' }),
    attempt: z.number().int().openapi({ description: 'Which attempt of the delivery (1 to 8)' }),
    attempted_at: timestamp('When the attempt was made'),
    status_code: z.number().int().nullable().openapi({ description: 'The receiver’s status; null when none came' }),
    latency_ms: z.number().int().openapi({ description: 'How long the receiver took, in milliseconds' }),
    response_body: z.string().nullable().openapi({ description: 'The first 1 KB of the response body' }),
    error: z.string().nullable().openapi({ description: 'Why the attempt failed; null on success' }),
  })
  .openapi('WebhookAttempt', {
    description: 'One attempt to deliver an event',
    example: {
      id: 120,
      delivery_id: 88,
      message_id: 'msg_2b7a3c9e0d1f4a5b8c6d7e9f0a1b2c3d',
      event_type: 'lead.created',
      attempt: 2,
      attempted_at: '2026-11-20T09:30:05.000Z',
      status_code: 503,
      latency_ms: 142,
      response_body: 'Service Unavailable',
      error: 'the receiver answered 503',
    },
  });

export const ReplayedDeliverySchema = z
  .object({
    id: z.number().int().openapi({ description: 'The new delivery’s id' }),
    replay_of: z.number().int().openapi({ description: 'The delivery replayed' }),
    message_id: z.string().openapi({ description: 'The `webhook-id` it is sent with: the original’s' }),
    status: z.string().openapi({ description: 'queued' }),
  })
  .openapi('ReplayedWebhookDelivery', {
    description: 'A delivery queued again with the same message id',
    example: { id: 131, replay_of: 88, message_id: 'msg_2b7a3c9e0d1f4a5b8c6d7e9f0a1b2c3d', status: 'queued' },
  });
