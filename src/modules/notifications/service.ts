/**
 * Notifications of one user: listed and marked read only by that user. Other modules create
 * them through the functions here: lead assignment, and the end of the caller's own import or
 * export job (type 4, follow-up reminders, is reserved for the scheduler).
 */
import type { z } from '@hono/zod-openapi';
import { and, eq, ilike, inArray, sql } from 'drizzle-orm';
import { notifications } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { containsPattern, defineList } from '../../core/list';
import { booleanFlag, idList } from '../../core/schemas';
import { isoTimestamp } from '../../core/schemas';

/** type_id values (see the notifications table). */
export const NOTIFICATION_TYPES = { leadAssigned: 1, importFinished: 2, exportReady: 3, followUpDue: 4 } as const;

/** Lead ids kept in one notification's data; the count says how many there were in all. */
const MAX_LEAD_IDS = 100;

export interface LeadAssignment {
  userId: number;
  leadIds: number[];
  /** Name of the lead, when one lead was assigned. */
  leadName?: string;
}

/** One notification per assignee, however many leads it was given in one action. */
export async function notifyLeadAssignments(ctx: Pick<TenantContext, 'db' | 'orgId' | 'userId'>, assignments: LeadAssignment[]): Promise<void> {
  const rows = assignments
    .filter((assignment) => assignment.leadIds.length > 0)
    .map((assignment) => {
      const single = assignment.leadIds.length === 1;
      return {
        organizationId: ctx.orgId,
        userId: assignment.userId,
        typeId: NOTIFICATION_TYPES.leadAssigned,
        title: single ? `Lead assigned to you${assignment.leadName ? `: ${assignment.leadName}` : ''}` : `${assignment.leadIds.length} leads assigned to you`,
        data: {
          ...(single ? { lead_id: assignment.leadIds[0] } : {}),
          lead_ids: assignment.leadIds.slice(0, MAX_LEAD_IDS),
          count: assignment.leadIds.length,
          assigned_by: ctx.userId,
        },
      };
    });
  if (rows.length > 0) await ctx.db.insert(notifications).values(rows);
}

export interface JobNotice {
  orgId: number;
  /** Who started the job; jobs started by an API key notify nobody. */
  userId: number | null;
  typeId: (typeof NOTIFICATION_TYPES)['importFinished' | 'exportReady'];
  title: string;
  data: Record<string, unknown>;
}

/**
 * Tells a job's creator it has ended. Callers send it only from the statement that moved the
 * job to its final status, so a redelivered message cannot notify twice.
 */
export async function notifyJobEnded(db: Pick<TenantContext, 'db'>['db'], notice: JobNotice): Promise<void> {
  if (notice.userId === null) return;
  await db.insert(notifications).values({ organizationId: notice.orgId, userId: notice.userId, typeId: notice.typeId, title: notice.title, data: notice.data });
}

const notificationFields = {
  id: notifications.id,
  typeId: notifications.typeId,
  title: notifications.title,
  body: notifications.body,
  data: notifications.data,
  isRead: notifications.isRead,
  readAt: notifications.readAt,
  createdAt: notifications.createdAt,
};

type NotificationRow = { id: number; typeId: number; title: string; body: string | null; data: Record<string, unknown>; isRead: boolean; readAt: Date | null; createdAt: Date };

function presentNotification(row: NotificationRow) {
  return {
    id: row.id,
    type_id: row.typeId,
    title: row.title,
    body: row.body,
    data: row.data,
    is_read: row.isRead,
    read_at: isoTimestamp(row.readAt),
    created_at: isoTimestamp(row.createdAt) as string,
  };
}

export const notificationList = defineList({
  sort: { id: notifications.id, created_at: notifications.createdAt },
  filters: {
    is_read: booleanFlag.openapi({ type: 'string', enum: ['true', 'false'], description: 'true: read only; false: unread only' }),
    type_id: idList('Types, comma-separated: 1 lead assigned, 2 import finished, 3 export ready, 4 follow-up due'),
  },
  search: (term) => ilike(notifications.title, containsPattern(term)),
  createdAt: notifications.createdAt,
  // The caller's own notifications: per user, so the total is a bounded count, never the organization's.
  base: (ctx, params) => ({
    rows: (columns) => ctx.db.select({ ...notificationFields, ...columns }).from(notifications).$dynamic(),
    where: tenantWhere(
      ctx,
      notifications,
      eq(notifications.userId, ctx.userId ?? 0),
      params.is_read === undefined ? undefined : eq(notifications.isRead, params.is_read),
      params.type_id ? inArray(notifications.typeId, params.type_id) : undefined,
    ),
  }),
});
export const NotificationListQuery = notificationList.query;

export async function listNotifications(ctx: TenantContext, params: z.output<typeof NotificationListQuery>) {
  const page = await notificationList.run(ctx, params);
  return { ...page, rows: page.rows.map(presentNotification) };
}

/** Marks the caller's own notifications read; ids of anyone else's change nothing. */
export async function markNotificationsRead(ctx: TenantContext, ids: number[]): Promise<number> {
  const updated = await ctx.db
    .update(notifications)
    .set({ isRead: true, readAt: sql`coalesce(${notifications.readAt}, now())` })
    .where(tenantWhere(ctx, notifications, and(eq(notifications.userId, ctx.userId ?? 0), inArray(notifications.id, ids), eq(notifications.isRead, false))))
    .returning({ id: notifications.id });
  return updated.length;
}
