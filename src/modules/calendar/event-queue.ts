/**
 * The queueing side of a meeting's calendar event (the job itself is event-job.ts): the request
 * id a meeting's event carries, the `calendar-event` message a meeting's add, change, cancellation
 * or deletion queues through the outbox (one `calendar_event_writes` row per meeting), the pass
 * over a rep's upcoming meetings when a calendar is connected, and the booking confirmation's CTEs
 * that write the row and its outbox entry inside its own statement.
 */
import { type SQL, sql } from 'drizzle-orm';
import { calendarEventWrites, connections, jobOutbox, LIVE_MEETING_STATUSES, meetings } from '../../db/schema';
import type { TenantContext } from '../../db/tenant';
import type { JobMessage } from '../../jobs/messages';
import { outboxInsertSql, sendAfterCommit, sendRowsAfterCommit } from '../../jobs/outbox';

/** The deterministic request id of a meeting's event. */
export function meetingRequestId(orgId: number, meetingId: number): string {
  return `meeting:${orgId}:${meetingId}`;
}

/**
 * In a meeting update's or delete's transaction, before a delete: the meeting's event write (a
 * booking made one) queued again with its outbox row, in one statement, so the job brings the
 * event in the calendar in line with the meeting (moved, changed, or deleted when the meeting is
 * cancelled or deleted). A meeting without one costs the statement and changes nothing.
 */
export async function requeueMeetingEvent(
  ctx: Pick<TenantContext, 'db' | 'orgId' | 'effects'>,
  meetingId: number,
  /** CTEs of the caller's to run in the same statement (each `name as (…),`, trailing comma included). */
  alongside: SQL = sql``,
): Promise<void> {
  const message = sql`jsonb_build_object('kind', 'calendar-event', 'orgId', ${ctx.orgId}::bigint, 'jobId', id)`;
  const result = await ctx.db.execute<{ calendar_write_id: string | null; calendar_outbox_id: string | null }>(sql`
    with ${alongside}calendar_write as (
      update ${calendarEventWrites} set status = 'queued', error = null, started_at = null, finished_at = null,
        lease_expires_at = null, lease_resends = 0, lease_resent_at = null, created_at = now(), updated_at = now()
      where ${calendarEventWrites.organizationId} = ${ctx.orgId} and ${calendarEventWrites.meetingId} = ${meetingId}
      returning id
    ), calendar_job as (
      ${outboxInsertSql(ctx.orgId, sql`calendar_write`, message)}
    )
    select ${BOOKED_EVENT_IDS}`);
  bookedEventQueued(ctx, result.rows[0] ?? {});
}

/**
 * In a meeting add's transaction (POST /api/meeting/add), or an update's that gives the meeting to
 * another rep: for a rep with a calendar connected (the test a booking confirmation makes,
 * booking/service.ts has_calendar), the meeting's write row and its outbox row, in one statement,
 * so the event is written after the commit as a booked meeting's is, and follows the meeting's
 * changes the same way. A rep without one, or a meeting that has its write row already (which
 * requeueMeetingEvent queues): nothing.
 */
export async function enqueueMeetingEvent(
  ctx: Pick<TenantContext, 'db' | 'orgId' | 'effects' | 'userId'>,
  meeting: { id: number; userId: number },
  /** CTEs of the caller's to run in the same statement (each `name as (…),`, trailing comma included). */
  alongside: SQL = sql``,
): Promise<void> {
  const message = sql`jsonb_build_object('kind', 'calendar-event', 'orgId', ${ctx.orgId}::bigint, 'jobId', id)`;
  const result = await ctx.db.execute<{ calendar_write_id: string | null; calendar_outbox_id: string | null }>(sql`
    with ${alongside}calendar_write as (
      insert into ${calendarEventWrites} (organization_id, meeting_id, user_id, request_id, created_by)
      select ${ctx.orgId}::bigint, ${meeting.id}::bigint, ${meeting.userId}::bigint,
        ${meetingRequestId(ctx.orgId, meeting.id)}::text, ${ctx.userId ?? null}::bigint
      where exists (select 1 from ${connections} where ${connections.organizationId} = ${ctx.orgId}
        and ${connections.ownerId} = ${meeting.userId} and ${connections.kind} = 'calendar' and ${connections.deletedAt} is null)
      on conflict (organization_id, meeting_id) do nothing
      returning id
    ), calendar_job as (
      ${outboxInsertSql(ctx.orgId, sql`calendar_write`, message)}
    )
    select ${BOOKED_EVENT_IDS}`);
  bookedEventQueued(ctx, result.rows[0] ?? {});
}

/** At most this many upcoming meetings are written into a calendar per connect: the nearest first. */
export const CONNECT_BACKFILL_LIMIT = 500;

/**
 * In a calendar connect's transaction, one statement:
 * - the caller's writes that wait for a calendar (pending or skipped, their meeting still there
 *   and starting after now: past meetings are not written, as below) and the writes of the calendar this connection replaced that missed a change (`error` set on
 *   an event made or being made: changed while it was disconnected or needed reconnecting, or
 *   refused; not one its owner deleted), queued again (at most 100);
 * - the caller's upcoming meetings that have no write row (made before their first calendar, or
 *   while none was connected): scheduled or rescheduled, starting after now, at most
 *   CONNECT_BACKFILL_LIMIT, the nearest first; a write row each, under the meeting's request id.
 *   A meeting with a write row already is left to it (ON CONFLICT DO NOTHING against the unique
 *   (organization_id, meeting_id) index), so a repeated or concurrent connect writes none twice;
 *   past, held and cancelled meetings are not written;
 * - the caller's upcoming meetings (live, starting after now) whose event sits in a calendar since
 *   disconnected (a different one: the same calendar connected again had its writes moved to this
 *   connection by replaceEarlierConnections), queued again, at most CONNECT_BACKFILL_LIMIT, the
 *   nearest first: the job moves each to this calendar (a new event under the next request id),
 *   as HubSpot and Salesforce do; past ones stay where they are. Disjoint from the first set
 *   (`created` on a disconnected connection), so no row is updated twice in the statement;
 * with their outbox rows, so the job writes each meeting as it is now under the write's own
 * request id. `connectionId`: the new connection. A requeued row's creation time moves too (as in
 * requeueMeetingEvent): the lease sweep counts a never-claimed job's deadline from it, and would
 * otherwise fail at once a row made long ago.
 */
export async function requeueWritesOnConnect(
  ctx: Pick<TenantContext, 'db' | 'orgId' | 'effects'>,
  userId: number,
  connectionId: number,
): Promise<void> {
  const liveStatuses = sql.join(
    LIVE_MEETING_STATUSES.map((status) => sql`${status}`),
    sql`, `,
  );
  const result = await ctx.db.execute<{ id: string; message: JobMessage }>(sql`
    with calendar_write as (
      update ${calendarEventWrites} set status = 'queued', error = null, started_at = null, finished_at = null,
        lease_expires_at = null, lease_resends = 0, lease_resent_at = null, created_at = now(), updated_at = now()
      where ${calendarEventWrites.organizationId} = ${ctx.orgId} and ${calendarEventWrites.id} in (
        select ${calendarEventWrites.id} from ${calendarEventWrites}
        where ${calendarEventWrites.organizationId} = ${ctx.orgId} and (
          (${calendarEventWrites.userId} = ${userId} and ${calendarEventWrites.state} in ('pending', 'skipped')
            and exists (select 1 from ${meetings} m where m.organization_id = ${ctx.orgId}
              and m.id = ${calendarEventWrites.meetingId} and m.start_time > now()))
          or (${calendarEventWrites.connectionId} = ${connectionId} and ${calendarEventWrites.error} is not null
            and ${calendarEventWrites.state} in ('created', 'pending')))
        order by ${calendarEventWrites.id}
        limit 100)
      returning id
    ), followed_write as (
      update ${calendarEventWrites} set status = 'queued', error = null, started_at = null, finished_at = null,
        lease_expires_at = null, lease_resends = 0, lease_resent_at = null, created_at = now(), updated_at = now()
      where ${calendarEventWrites.organizationId} = ${ctx.orgId} and ${calendarEventWrites.id} in (
        select w.id from ${calendarEventWrites} w
        join ${meetings} m on m.organization_id = ${ctx.orgId} and m.id = w.meeting_id
        where w.organization_id = ${ctx.orgId} and w.user_id = ${userId} and w.state = 'created'
          and m.status in (${liveStatuses}) and m.start_time > now()
          and exists (select 1 from ${connections} c where c.organization_id = ${ctx.orgId}
            and c.id = w.connection_id and c.deleted_at is not null)
        order by m.start_time, m.id
        limit ${CONNECT_BACKFILL_LIMIT})
      returning id
    ), upcoming_write as (
      insert into ${calendarEventWrites} (organization_id, meeting_id, user_id, request_id, created_by)
      select ${ctx.orgId}::bigint, m.id, m.user_id, ${`meeting:${ctx.orgId}:`}::text || m.id, ${userId}::bigint
      from ${meetings} m
      where m.organization_id = ${ctx.orgId} and m.user_id = ${userId}
        and m.status in (${liveStatuses})
        and m.start_time > now()
        and not exists (select 1 from ${calendarEventWrites} w
          where w.organization_id = ${ctx.orgId} and w.meeting_id = m.id)
      order by m.start_time, m.id
      limit ${CONNECT_BACKFILL_LIMIT}
      on conflict (organization_id, meeting_id) do nothing
      returning id
    )
    insert into ${jobOutbox} (organization_id, message)
    select ${ctx.orgId}::bigint, jsonb_build_object('kind', 'calendar-event', 'orgId', ${ctx.orgId}::bigint, 'jobId', id)
    from (select id from calendar_write union all select id from followed_write
      union all select id from upcoming_write) queued
    returning id, message`);
  sendRowsAfterCommit(ctx, result.rows);
}

/**
 * The booking confirmation's share of its one write statement (booking/confirm.ts): CTEs after its
 * `meeting` CTE writing the meeting's write row (the job) and its outbox row when the rep has a
 * calendar connected, so the confirmation keeps its four round trips. Whether they have one is
 * read here, in the write's snapshot (taken after the confirmation holds the rep's row), not from
 * the scope statement's: a scope statement that waited for a calendar connect's lock on the rep
 * reads as of before that connect committed, and the connect's own pass over the rep's meetings
 * (requeueWritesOnConnect) ran before this meeting existed; until 2026-12-01 such a booking was
 * never written into the calendar. `BOOKED_EVENT_IDS` selects both ids for bookedEventQueued.
 */
export function bookedEventCtes(orgId: number, repId: number): SQL {
  const message = sql`jsonb_build_object('kind', 'calendar-event', 'orgId', ${orgId}::bigint, 'jobId', id)`;
  return sql`calendar_write as (
      insert into ${calendarEventWrites} (organization_id, meeting_id, user_id, request_id)
      select ${orgId}, id, ${repId}, ${`meeting:${orgId}:`}::text || id from meeting
      where exists (select 1 from ${connections} where ${connections.organizationId} = ${orgId}
        and ${connections.ownerId} = ${repId} and ${connections.kind} = 'calendar' and ${connections.deletedAt} is null)
      returning id
    ), calendar_job as (
      ${outboxInsertSql(orgId, sql`calendar_write`, message)}
    )`;
}

/** The select list entry naming the ids bookedEventCtes wrote (null when the meeting was not written). */
export const BOOKED_EVENT_IDS = sql`(select id from calendar_write) as calendar_write_id, (select id from calendar_job) as calendar_outbox_id`;

/** After the confirmation's statement: its outbox row is sent after the commit. */
export function bookedEventQueued(
  ctx: Pick<TenantContext, 'orgId' | 'effects'>,
  ids: { calendar_write_id?: string | number | null; calendar_outbox_id?: string | number | null },
) {
  if (ids.calendar_write_id == null || ids.calendar_outbox_id == null) return;
  sendAfterCommit(ctx, Number(ids.calendar_outbox_id), {
    kind: 'calendar-event',
    orgId: ctx.orgId,
    jobId: Number(ids.calendar_write_id),
  });
}
