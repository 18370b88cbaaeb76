/**
 * The caller's own notifications (spec "Notifications, files, exports"). type_id: 1 lead
 * assigned, 2 import finished, 3 export ready, 4 follow-up due, 5 intent alert, 6 connection needs
 * reconnecting, 7 webhook endpoint disabled, 8 link domain no longer verified.
 */
import { list, ok } from '../../core/http';
import { createRouter, defineRoute, envelope, jsonBody, listEnvelope } from '../../core/routes';
import { NotificationSchema, ReadNotificationsBody, ReadNotificationsResult } from './schemas';
import { listNotifications, markNotificationsRead, NotificationListQuery } from './service';

export const notificationRoutes = createRouter();
const tags = ['Notifications'];

notificationRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/notification/list',
    operationId: 'listNotifications',
    tags,
    summary: 'The caller’s notifications',
    description:
      "The caller's own notifications (lead assignments, finished imports, ready exports), newest first by default; filter by `is_read`.",
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
    description:
      "Marks the caller's notifications with the given `ids` read (`ids` is required: 1 to 10 000 ids; an empty or missing list is a 422). Ids of other users' notifications change nothing; `data.updated` counts those marked by this request.",
    auth: 'bearer',
    // One update that stands alone: no BEGIN/COMMIT around it.
    transaction: false,
    request: { body: jsonBody(ReadNotificationsBody) },
    responses: { 200: envelope(ReadNotificationsResult, 'Notifications marked read') },
  }),
  async (c) => {
    const updated = await markNotificationsRead(c.var.tenant, c.req.valid('json').ids);
    return ok(c, { updated }, `${updated} notification${updated === 1 ? '' : 's'} marked read`);
  },
);
