/**
 * The events the service announces to the outside: outbound webhooks (modules/webhooks) now,
 * team-chat channel subscriptions later. One list, so a subscription, a test notification and an
 * emitted event can never disagree on a name; an unknown name is a 422 listing these.
 */
import { z } from '@hono/zod-openapi';

export const EVENT_TYPES = [
  'lead.created',
  'lead.assigned',
  'intent.hot',
  'booking.confirmed',
  'deal.won',
  'deal.lost',
  'import.finished',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** What each event means, for the OpenAPI document and the docs. */
export const EVENT_DESCRIPTIONS: Record<EventType, string> = {
  'lead.created': 'A lead was created (by a user, an API key, a web form, a booking or an import).',
  'lead.assigned': 'A lead was given to a user (on create, by assignment, or in bulk).',
  'intent.hot': "A lead's intent score crossed the hot threshold and an intent alert was raised.",
  'booking.confirmed': 'A visitor booked a meeting through a public booking page.',
  'deal.won': 'A deal moved to a won stage.',
  'deal.lost': 'A deal moved to a lost stage.',
  'import.finished': 'A lead import job completed, with its counts.',
};

/** An event name; anything else fails with `must be one of: …` naming every event. */
export const eventTypeSchema = z.enum(EVENT_TYPES).openapi({ description: 'An event name', example: 'lead.created' });
