/**
 * Request and response shapes of the caller's notifications. type_id: 1 lead assigned,
 * 2 import finished, 3 export ready, 4 follow-up due.
 */
import { z } from '@hono/zod-openapi';
import { idsBody, timestamp } from '../../core/schemas';

export const NotificationSchema = z
  .object({
    id: z.number().int(),
    type_id: z.number().int(),
    title: z.string(),
    body: z.string().nullable(),
    data: z
      .record(z.string(), z.unknown())
      .openapi({ description: 'For lead assignments: lead_id (one lead), lead_ids, count, assigned_by' }),
    is_read: z.boolean(),
    read_at: timestamp().nullable(),
    created_at: timestamp(),
  })
  .openapi('Notification');

export const ReadNotificationsBody = z.object({ ids: idsBody }).openapi('ReadNotificationsRequest');

export const ReadNotificationsResult = z.object({ updated: z.number().int() });
