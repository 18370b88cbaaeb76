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
import { and, desc, eq, isNull } from 'drizzle-orm';
import { withTenant } from '../../db/client';
import { calendarEventWrites, connections, meetings } from '../../db/schema';
import type { TenantContext } from '../../db/tenant';
import type { JobHandler } from '../../jobs/job-handler';
import { enqueueJob } from '../../jobs/outbox';
import { calendarFor } from '../../providers/calendar/select';
import { markNeedsReconnect, poolWriter } from '../../providers/connections';
import { ProviderFailure } from '../../providers/failures';

/** The deterministic request id of a meeting's event. */
export function meetingRequestId(orgId: number, meetingId: number): string {
  return `meeting:${orgId}:${meetingId}`;
}

/** In the booking's transaction: one outbox row; the event is written after the commit. */
export function enqueueCalendarEvent(ctx: Pick<TenantContext, 'db' | 'orgId' | 'effects'>, meetingId: number) {
  return enqueueJob(ctx, { kind: 'calendar-event', meetingId });
}

export const calendarEventJobHandler: JobHandler<'calendar-event'> = {
  async run(message, { db, env }) {
    const { orgId, meetingId } = message;
    const writer = poolWriter(db);
    await withTenant(db, orgId, async (tx) => {
      const [meeting] = await tx
        .select()
        .from(meetings)
        .where(and(eq(meetings.organizationId, orgId), eq(meetings.id, meetingId)));
      if (!meeting) return; // deleted meanwhile: nothing to write
      await tx
        .insert(calendarEventWrites)
        .values({
          organizationId: orgId,
          meetingId,
          userId: meeting.userId,
          requestId: meetingRequestId(orgId, meetingId),
        })
        .onConflictDoNothing();
      const [write] = await tx
        .select()
        .from(calendarEventWrites)
        .where(and(eq(calendarEventWrites.organizationId, orgId), eq(calendarEventWrites.meetingId, meetingId)))
        .for('update');
      if (write.state === 'created') return;
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
      const done = (values: Partial<typeof calendarEventWrites.$inferInsert>) =>
        tx
          .update(calendarEventWrites)
          .set({ ...values, updatedAt: new Date() })
          .where(and(eq(calendarEventWrites.organizationId, orgId), eq(calendarEventWrites.id, write.id)));
      if (!connection) {
        await done({ state: 'skipped', error: 'No active calendar is connected for the rep' });
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
        await done({
          state: 'created',
          connectionId: connection.id,
          provider: connection.provider,
          providerEventId: event.id,
          error: null,
        });
      } catch (error) {
        if (!(error instanceof ProviderFailure) || error.kind === 'unavailable') throw error; // retried
        if (error.kind === 'auth')
          await writer.run(orgId, (other) => markNeedsReconnect(other, connection, error.reason));
        // Kept pending with the reason: reconnecting the calendar writes it again (same request id).
        await done({ error: error.reason, connectionId: connection.id, provider: connection.provider });
      }
    });
  },
  // The queue gave up (the provider stayed down): the write stays pending with no second attempt
  // until the calendar is reconnected; nothing else to end.
  async deadLettered() {},
};
