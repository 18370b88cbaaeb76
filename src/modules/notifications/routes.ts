/**
 * The caller's own notifications (spec "Notifications, files, exports"). type_id: 1 lead
 * assigned, 2 import finished, 3 export ready, 4 follow-up due.
 */
import { z } from '@hono/zod-openapi';
import { list, ok } from '../../core/http';
import { createRouter, defineRoute, envelope, jsonBody, listEnvelope } from '../../core/routes';
import { idsBody } from '../../core/schemas';
import { listNotifications, markNotificationsRead, NotificationListQuery } from './service';

export const notificationRoutes = createRouter();
const tags = ['Notifications'];

const NotificationSchema = z
  .object({
    id: z.number().int(),
    type_id: z.number().int(),
    title: z.string(),
    body: z.string().nullable(),
    data: z.record(z.string(), z.unknown()).openapi({ description: 'For lead assignments: lead_id (one lead), lead_ids, count, assigned_by' }),
    is_read: z.boolean(),
    read_at: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi('Notification');

const ReadNotificationsBody = z.object({ ids: idsBody }).openapi('ReadNotificationsRequest');

notificationRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/notification/list',
    operationId: 'listNotifications',
    tags,
    summary: 'The caller’s notifications',
    auth: 'bearer',
    request: { query: NotificationListQuery },
    responses: { 200: listEnvelope(NotificationSchema) },
  }),
  async (c) => list(c, await listNotifications(c.var.tenant, c.req.valid('query'))),
);

notificationRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/notification/read',
    operationId: 'readNotifications',
    tags,
    summary: 'Mark the caller’s notifications read; anyone else’s ids change nothing',
    auth: 'bearer',
    request: { body: jsonBody(ReadNotificationsBody) },
    responses: { 200: envelope(z.object({ updated: z.number().int() }), 'Notifications marked read') },
  }),
  async (c) => {
    const updated = await markNotificationsRead(c.var.tenant, c.req.valid('json').ids);
    return ok(c, { updated }, `${updated} notification${updated === 1 ? '' : 's'} marked read`);
  },
);
