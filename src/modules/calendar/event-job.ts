/**
 * A booked meeting's event in its rep's calendar, written through the outbox: the booking's
 * transaction enqueues a `calendar-event` message (only for a rep with a calendar connected), and
 * this job inserts the event once.
 *
 * Once, whatever happens: the meeting has one `calendar_event_writes` row (unique by meeting), locked
 * while the job works; a row already `created` is left alone, so a redelivered message does
 * nothing. The provider gets a request id derived from the meeting alone (`meeting:<org>:<id>`):
 * Google receives it as the event's own id (a retry gets 409 and reads the existing event), Graph
 * as transactionId, the local calendar as its unique request id. So even an insert whose answer was
 * lost, or a calendar reconnected (a new connection row) before the retry, makes no second event.
 */
import { and, desc, eq, isNull, type SQL, sql } from 'drizzle-orm';
import { ApiError } from '../../core/errors';
import { withTenant } from '../../db/client';
import { calendarEventWrites, connections, meetings } from '../../db/schema';
import type { TenantContext } from '../../db/tenant';
import { isTransientFault, userFacingJobError } from '../../jobs/faults';
import type { JobHandler } from '../../jobs/job-handler';
import { claimJob, finishJob, type JobSpec, lockRunningJob } from '../../jobs/lifecycle';
import { enqueueJob, outboxInsertSql, sendAfterCommit } from '../../jobs/outbox';
import { calendarFor } from '../../providers/calendar/select';
import { markNeedsReconnect, poolWriter } from '../../providers/connections';
import { ProviderFailure } from '../../providers/failures';

/** The deterministic request id of a meeting's event. */
export function meetingRequestId(orgId: number, meetingId: number): string {
  return `meeting:${orgId}:${meetingId}`;
}

/**
 * In the booking's transaction: the meeting's write row (the job, queued again if it exists: a
 * reconnect retries a pending write under its request id) and one outbox row; the event is
 * written after the commit.
 */
export async function enqueueCalendarEvent(
  ctx: Pick<TenantContext, 'db' | 'orgId' | 'effects' | 'userId'>,
  meeting: { id: number; userId: number },
) {
  const [write] = await ctx.db
    .insert(calendarEventWrites)
    .values({
      organizationId: ctx.orgId,
      meetingId: meeting.id,
      userId: meeting.userId,
      requestId: meetingRequestId(ctx.orgId, meeting.id),
      createdBy: ctx.userId ?? null,
    })
    .onConflictDoUpdate({
      target: [calendarEventWrites.organizationId, calendarEventWrites.meetingId],
      set: {
        status: 'queued',
        finishedAt: null,
        leaseExpiresAt: null,
        leaseResends: 0,
        leaseResentAt: null,
        updatedAt: sql`now()`,
      },
    })
    .returning({ id: calendarEventWrites.id });
  await enqueueJob(ctx, { kind: 'calendar-event', jobId: write.id });
}

/**
 * The booking confirmation's share of its one write statement (booking/confirm.ts), for a rep with
 * a calendar connected: CTEs after its `meeting` CTE writing the meeting's write row (the job) and
 * its outbox row, so the confirmation keeps its four round trips. `calendar_event_ids()` selects
 * both ids for bookedEventQueued.
 */
export function bookedEventCtes(orgId: number, repId: number): SQL {
  const message = sql`jsonb_build_object('kind', 'calendar-event', 'orgId', ${orgId}::bigint, 'jobId', id)`;
  return sql`calendar_write as (
      insert into ${calendarEventWrites} (organization_id, meeting_id, user_id, request_id)
      select ${orgId}, id, ${repId}, ${`meeting:${orgId}:`}::text || id from meeting
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

const spec: JobSpec<typeof calendarEventWrites> = {
  table: calendarEventWrites,
  // One provider insert (its slowest answer) with margin.
  leaseSeconds: 120,
};

export const REASONS = {
  gaveUp: 'The calendar provider stayed unavailable through every retry; the event was not written',
} as const;

/** Temporary: the provider (429/5xx), the server's credentials key or OAuth client, the database. */
function isTemporary(error: unknown): boolean {
  return (
    (error instanceof ProviderFailure && error.kind === 'unavailable') ||
    (error instanceof ApiError && error.status === 503) ||
    isTransientFault(error)
  );
}

export const calendarEventJobHandler: JobHandler<'calendar-event', typeof calendarEventWrites> = {
  ...spec,
  retry: {
    permanentReason: (error) =>
      isTemporary(error) ? null : `The calendar event was not written: ${userFacingJobError(error)}.`,
  },
  reasons: { deadLettered: REASONS.gaveUp, stalled: REASONS.gaveUp },
  async run(message, { db, env }) {
    const claimed = await claimJob(db, spec, message);
    if (!claimed) return;
    const orgId = message.orgId;
    const writer = poolWriter(db);
    await withTenant(db, orgId, async (tx) => {
      const write = await lockRunningJob(tx, spec, message);
      const finish = (values: Partial<typeof calendarEventWrites.$inferInsert> = {}) =>
        finishJob(tx, spec, message, values);
      if (write.state === 'created') return void (await finish());
      const [meeting] = await tx
        .select()
        .from(meetings)
        .where(and(eq(meetings.organizationId, orgId), eq(meetings.id, write.meetingId)));
      if (!meeting) return void (await finish()); // deleted meanwhile: nothing to write
      const [connection] = await tx
        .select()
        .from(connections)
        .where(
          and(
            eq(connections.organizationId, orgId),
            eq(connections.kind, 'calendar'),
            eq(connections.ownerId, meeting.userId),
            eq(connections.state, 'active'),
            isNull(connections.deletedAt),
          ),
        )
        .orderBy(desc(connections.id))
        .limit(1);
      if (!connection) {
        await finish({ state: 'skipped', error: 'No active calendar is connected for the rep' });
        return;
      }
      try {
        const event = await calendarFor({ db: tx, env, writer }, connection).insertEvent({
          title: meeting.title,
          start: meeting.startTime,
          end: meeting.endTime,
          time_zone: meeting.timezone,
          description: meeting.description,
          location: meeting.location,
          attendees: meeting.attendees.map((attendee) => ({ email: attendee.email, name: attendee.name ?? null })),
          conference: meeting.meetingTool !== 'none' && !meeting.meetingUrl,
          request_id: write.requestId,
        });
        await finish({
          state: 'created',
          connectionId: connection.id,
          provider: connection.provider,
          providerEventId: event.id,
        });
      } catch (error) {
        if (!(error instanceof ProviderFailure) || error.kind === 'unavailable') throw error; // retried
        if (error.kind === 'auth')
          await writer.run(orgId, (other) => markNeedsReconnect(other, connection, error.reason));
        // Kept pending with the reason: reconnecting the calendar writes it again (same request id).
        await finish({ error: error.reason, connectionId: connection.id, provider: connection.provider });
      }
    });
  },
};
