/**
 * Request and response shapes of the caller's notifications. type_id: 1 lead assigned,
 * 2 import finished, 3 export ready, 4 follow-up due, 5 intent alert, 6 connection needs
 * reconnecting, 7 webhook endpoint disabled, 8 link domain no longer verified.
 */
import { z } from '@hono/zod-openapi';
import { idsBody, timestamp } from '../../core/schemas';

export const NotificationSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The notification’s id (for POST /api/notification/read)' }),
    type_id: z.number().int().openapi({
      description:
        '1 = lead assigned, 2 = import finished, 3 = export ready, 4 = follow-up due, 5 = intent alert, 6 = a connection needs reconnecting, 7 = a webhook endpoint was disabled, 8 = a link domain lost its DNS verification (its record stayed missing for 3 days)',
    }),
    title: z.string().openapi({ description: 'One line for display, e.g. “Lead assigned to you: Ada Lovelace”' }),
    body: z.string().nullable().openapi({ description: 'Longer text; null when the title says it all' }),
    data: z
      .record(z.string(), z.unknown())
      .openapi({ description: 'For lead assignments: lead_id (one lead), lead_ids, count, assigned_by' }),
    is_read: z.boolean().openapi({ description: 'Whether the user marked it read' }),
    read_at: timestamp('When it was marked read; null while unread').nullable(),
    created_at: timestamp('When it was sent'),
  })
  .openapi('Notification', {
    description: 'A notice to the calling user',
    example: {
      id: 31,
      type_id: 1,
      title: 'Lead assigned to you: Ada Lovelace',
      body: null,
      data: { lead_id: 1, lead_ids: [1], count: 1, assigned_by: 2 },
      is_read: false,
      read_at: null,
      created_at: '2026-01-15T09:30:00.000Z',
    },
  });

export const ReadNotificationsBody = z
  .object({
    ids: idsBody.openapi({ description: 'Ids of the caller’s notifications to mark read (1 to 10 000)' }),
  })
  .openapi('ReadNotificationsRequest', { description: 'Notifications to mark read', example: { ids: [31, 32] } });

export const ReadNotificationsResult = z
  .object({
    updated: z.number().int().openapi({ description: 'How many notifications this request marked read' }),
  })
  .openapi({ description: 'The outcome' });
