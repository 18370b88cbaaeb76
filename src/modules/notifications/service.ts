/**
 * Notifications of one user: listed and marked read only by that user. Other modules create
 * them through the functions here: lead assignment, and the end of the caller's own import or
 * export job. Type 4, follow-up due, is written by the minute cron (modules/lead-follow-ups/reminders.ts).
 */
import { leadAssignedData, leadNameSql, sendWebhookDeliveries, webhookDeliveriesSql } from '../webhooks';
import { and, eq, ilike, inArray, sql, type SQL } from 'drizzle-orm';
import { notifications, roles, users } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { containsPattern, defineList } from '../../core/list';
import { booleanFlag, idList } from '../../core/schemas';
import { isoTimestamp } from '../../core/schemas';

/** type_id values (see the notifications table). */
export const NOTIFICATION_TYPES = {
  leadAssigned: 1,
  importFinished: 2,
  exportReady: 3,
  followUpDue: 4,
  // Written by the intent rescoring (modules/intent/scoring.ts) in the statement that raises the alert.
  intentAlert: 5,
  // Written by the provider layer (src/providers/connections.ts, RECONNECT_NOTICE_TYPE) to a connection's owner.
  connectionNeedsReconnect: 6,
  // Written to every admin when a webhook endpoint is disabled after days of failures (modules/webhooks).
  webhookDisabled: 7,
  // Written to every admin when a verified link domain's DNS record stays missing (modules/tracking/link-domain-verification.ts).
  linkDomainUnverified: 8,
} as const;

/** Lead ids kept in one notification's data; the count says how many there were in all. */
const MAX_LEAD_IDS = 100;

/** One lead given to a user (rows without an assignee are skipped). */
export interface LeadAssignment {
  userId: number | null | undefined;
  leadId: number;
  leadName: string;
}

/** Assigned leads as rows of a FROM item (a CTE's name, a subquery or a set-returning function, with its alias). */
export interface LeadAssignmentRows {
  from: SQL;
  userId: SQL;
  leadId: SQL;
  leadName: SQL;
}

/**
 * The one writer of lead-assignment notifications, and the one place their title is worded:
 * `insert into notifications … select … from <rows>`, one notification per assignee however
 * many of the rows are theirs (the first lead ids kept, the count in full). Runs alone or
 * embedded in a data-modifying CTE, so a bulk assignment notifies in its own statement.
 * A user who assigns leads to themselves is not told of it (they did it); an API key, a web
 * form or a job assigning to the user it acts for does tell them.
 */
export function leadAssignmentNotices(
  ctx: Pick<TenantContext, 'orgId' | 'userId' | 'actor'>,
  rows: LeadAssignmentRows,
): SQL {
  const self = ctx.actor.kind === 'user' ? ctx.actor.userId : null;
  return sql`insert into ${notifications} (organization_id, user_id, type_id, title, data)
    select ${ctx.orgId}::bigint, a.user_id, ${NOTIFICATION_TYPES.leadAssigned}::int,
      case when count(*) = 1 then 'Lead assigned to you' || coalesce(': ' || min(a.lead_name), '') else count(*) || ' leads assigned to you' end,
      jsonb_build_object('lead_ids', to_jsonb((array_agg(a.lead_id order by a.lead_id))[1:${MAX_LEAD_IDS}::int]), 'count', count(*), 'assigned_by', ${ctx.userId}::bigint)
        || case when count(*) = 1 then jsonb_build_object('lead_id', min(a.lead_id)) else '{}'::jsonb end
    from (select ${rows.userId} as user_id, ${rows.leadId} as lead_id, ${leadNameSql(rows.leadName)} as lead_name from ${rows.from}) as a
    where a.user_id is not null and a.user_id is distinct from ${self}::bigint
    group by a.user_id`;
}

/**
 * A notice to every admin of an organization (live and active, of the built-in `admin` role) for
 * each row of `from` that `where` keeps, as a writer's own CTE body: a webhook endpoint disabled
 * (modules/webhooks), a link domain that lost its verification (modules/tracking). `organizationId`,
 * `title` and `data` may name the row's columns.
 */
export function adminNoticesSql(notice: {
  from: SQL;
  organizationId: SQL;
  typeId: number;
  title: SQL;
  data: SQL;
  where: SQL;
}): SQL {
  return sql`insert into ${notifications} (organization_id, user_id, type_id, title, data)
    select ${notice.organizationId}, u.id, ${notice.typeId}::int, ${notice.title}, ${notice.data}
    from ${notice.from}
    join ${users} u on u.organization_id = ${notice.organizationId} and u.deleted_at is null and u.state_id = 1
    join ${roles} admin_role on admin_role.id = u.role_id and lower(admin_role.name) = 'admin'
    where ${notice.where}`;
}

/** Assignments known in TypeScript, in one statement (through `leadAssignmentNotices`). */
export async function notifyLeadAssignments(
  ctx: Pick<TenantContext, 'db' | 'orgId' | 'userId' | 'actor' | 'effects'>,
  assignments: LeadAssignment[],
): Promise<void> {
  const rows = assignments
    .filter((row) => row.userId != null)
    .map((row) => ({ user_id: row.userId, lead_id: row.leadId, lead_name: row.leadName }));
  if (rows.length === 0) return;
  const from = sql`jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(user_id bigint, lead_id bigint, lead_name text)`;
  // The notices and the `lead.assigned` webhooks in one statement.
  const result = await ctx.db.execute<{ id: number }>(sql`
    with notices as (
      ${leadAssignmentNotices(ctx, { from, userId: sql`r.user_id`, leadId: sql`r.lead_id`, leadName: sql`r.lead_name` })}
    )
    ${webhookDeliveriesSql(ctx, 'lead.assigned', { from, data: leadAssignedData(ctx, sql`r.lead_id`, sql`r.lead_name`, sql`r.user_id`) })}`);
  sendWebhookDeliveries(
    ctx,
    result.rows.map((row) => row.id),
  );
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
export function notifyJobEnded(db: Pick<TenantContext, 'db'>['db'], notice: JobNotice): Promise<void> {
  return notifyJobsEnded(db, [notice]);
}

/** notifyJobEnded for several jobs, in one statement. */
export async function notifyJobsEnded(db: Pick<TenantContext, 'db'>['db'], notices: JobNotice[]): Promise<void> {
  const rows = notices.flatMap((notice) =>
    notice.userId === null
      ? []
      : [
          {
            organizationId: notice.orgId,
            userId: notice.userId,
            typeId: notice.typeId,
            title: notice.title,
            data: notice.data,
          },
        ],
  );
  if (rows.length > 0) await db.insert(notifications).values(rows);
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

type NotificationRow = {
  id: number;
  typeId: number;
  title: string;
  body: string | null;
  data: Record<string, unknown>;
  isRead: boolean;
  readAt: Date | null;
  createdAt: Date;
};

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
    is_read: booleanFlag.openapi({
      type: 'string',
      enum: ['true', 'false'],
      description: 'true: read only; false: unread only',
    }),
    type_id: idList(
      'Types, comma-separated: 1 lead assigned, 2 import finished, 3 export ready, 4 follow-up due, 5 intent alert, 6 connection needs reconnecting, 7 webhook endpoint disabled',
    ),
  },
  search: (term) => ilike(notifications.title, containsPattern(term)),
  createdAt: notifications.createdAt,
  // The caller's own notifications: per user, so the total is a bounded count, never the organization's.
  base: (ctx, params) => ({
    rows: (columns) =>
      ctx.db
        .select({ ...notificationFields, ...columns })
        .from(notifications)
        .$dynamic(),
    where: tenantWhere(
      ctx,
      notifications,
      eq(notifications.userId, ctx.userId ?? 0),
      params.is_read === undefined ? undefined : eq(notifications.isRead, params.is_read),
      params.type_id ? inArray(notifications.typeId, params.type_id) : undefined,
    ),
  }),
  present: (row) => presentNotification(row),
});
export const NotificationListQuery = notificationList.query;

export const listNotifications = notificationList.run;

/** Marks the caller's own notifications read; ids of anyone else's change nothing. */
export async function markNotificationsRead(ctx: TenantContext, ids: number[]): Promise<number> {
  const updated = await ctx.db
    .update(notifications)
    .set({ isRead: true, readAt: sql`coalesce(${notifications.readAt}, now())` })
    .where(
      tenantWhere(
        ctx,
        notifications,
        and(eq(notifications.userId, ctx.userId ?? 0), inArray(notifications.id, ids), eq(notifications.isRead, false)),
      ),
    )
    .returning({ id: notifications.id });
  return updated.length;
}
