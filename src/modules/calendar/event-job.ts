/**
 * A meeting's event in its rep's calendar, written through the outbox: the booking's (or the add's)
 * transaction enqueues a `calendar-event` message (only for a rep with a calendar connected), and
 * this job inserts the event once.
 *
 * Once, whatever happens: the meeting has one `calendar_event_writes` row (unique by meeting), locked
 * while the job works. The job brings the event in line with the meeting as it is now, so a
 * redelivered message changes nothing more: a `created` event is patched to the meeting's fields,
 * or deleted once the meeting is cancelled or deleted (requeueMeetingEvent queues the row again on
 * every such change); a meeting without an event gets one unless it is cancelled or gone. The provider gets a request id derived from the meeting alone (`meeting:<org>:<id>`):
 * Google receives it as the event's own id (a retry gets 409 and reads the existing event), Graph
 * as transactionId (and an extended property it can be found by), the local calendar as its unique
 * request id. So even an insert whose answer was lost, or a calendar reconnected (a new connection
 * row) before the retry, makes no second event; and if the meeting is cancelled, deleted or given to
 * another rep before a retry recorded the event, the job finds it by that request id and deletes it
 * (deleteLostEvent) rather than leaving it orphaned in the calendar. For that the job never tries
 * an insert into a calendar the committed write does not name: a meeting given to another rep is
 * first committed as that rep's write (handOver), and inserted by the next run. What queues the
 * job (the outbox messages, the booking's CTEs, the pass on connect) is in event-queue.ts.
 */
import { and, desc, eq, inArray, isNull, ne, or, type SQL, sql } from 'drizzle-orm';
import { ApiError } from '../../core/errors';
import { withTenantEffects } from '../../core/transaction-effects';
import type { Transaction } from '../../db/client';
import { calendarEventWrites, connections, meetings } from '../../db/schema';
import { isTransientFault, userFacingJobError } from '../../jobs/faults';
import type { JobHandler } from '../../jobs/job-handler';
import { claimJob, finishJob, type JobSpec, lockRunningJob } from '../../jobs/lifecycle';
import { EventIdTaken } from '../../providers/calendar/interface';
import { calendarFor } from '../../providers/calendar/select';
import { requeueMeetingEvent } from './event-queue';
import { type ConnectionRow, markNeedsReconnect, poolWriter } from '../../providers/connections';
import { ProviderFailure } from '../../providers/failures';

const spec: JobSpec<typeof calendarEventWrites> = {
  table: calendarEventWrites,
  // One provider insert (its slowest answer) with margin.
  leaseSeconds: 120,
};

export const REASONS = {
  gaveUp: 'The calendar provider stayed unavailable through every retry; the event was not written',
  disconnected:
    'The calendar holding the event is disconnected; the event was not changed, and is brought in line with the meeting when the same calendar is connected again (an upcoming meeting moves to another calendar the rep connects)',
} as const;

/** Temporary: the provider (429/5xx), the server's credentials key or OAuth client, the database. */
function isTemporary(error: unknown): boolean {
  return (
    (error instanceof ProviderFailure && error.kind === 'unavailable') ||
    (error instanceof ApiError && error.status === 503) ||
    isTransientFault(error)
  );
}

/** Meeting status 4: its event is deleted from the calendar (Held and No Show keep theirs). */
const CANCELLED_MEETING = 4;

/** Request ids found taken by deleted events, at most, before an insert gives up (a permanent failure). */
const MAX_TAKEN_REQUEST_IDS = 5;

/** The request id of the meeting's next event, once the current one is deleted: `…#2`, `…#3` … */
export function nextRequestId(requestId: string): string {
  const match = /^(.*)#(\d+)$/.exec(requestId);
  return match ? `${match[1]}#${Number(match[2]) + 1}` : `${requestId}#2`;
}

/** The organization's active calendar connections matching `which`, the newest first. */
function activeCalendars(tx: Transaction, orgId: number, which: SQL | undefined) {
  return tx
    .select()
    .from(connections)
    .where(
      and(
        eq(connections.organizationId, orgId),
        eq(connections.kind, 'calendar'),
        eq(connections.state, 'active'),
        isNull(connections.deletedAt),
        which,
      ),
    )
    .orderBy(desc(connections.id));
}

/** The active calendar connection matching `which` (the newest), or undefined. */
async function liveConnection(tx: Transaction, orgId: number, which: SQL) {
  const [connection] = await activeCalendars(tx, orgId, which).limit(1);
  return connection;
}

/**
 * Whether a created event's write moves to `userId`'s calendar: the calendar holding the event was
 * disconnected (not merely needing reconnection: the rep may reconnect it, and the event is brought
 * in line then) and the rep has an active calendar now. One statement.
 */
async function movesToNewCalendar(
  tx: Transaction,
  orgId: number,
  write: typeof calendarEventWrites.$inferSelect,
  userId: number,
): Promise<boolean> {
  const result = await tx.execute<{ moves: boolean }>(sql`
    select not exists (select 1 from ${connections} where ${connections.organizationId} = ${orgId}
        and ${connections.id} = ${write.connectionId} and ${connections.deletedAt} is null)
      and exists (select 1 from ${connections} where ${connections.organizationId} = ${orgId}
        and ${connections.kind} = 'calendar' and ${connections.ownerId} = ${userId}
        and ${connections.state} = 'active' and ${connections.deletedAt} is null) as moves`);
  return result.rows[0]?.moves === true;
}

/**
 * A provider failure of a write: temporary ones are thrown (retried); a refusal keeps the row as
 * it is with the reason (a 401/403 also marks the connection needs_reconnect): reconnecting the
 * calendar writes pending events again under the same request id.
 */
async function keepOnFailure(
  error: unknown,
  orgId: number,
  connection: ConnectionRow,
  writer: ReturnType<typeof poolWriter>,
  finish: (values: Partial<typeof calendarEventWrites.$inferInsert>) => Promise<unknown>,
) {
  if (!(error instanceof ProviderFailure) || error.kind === 'unavailable') throw error; // retried
  if (error.kind === 'auth') await writer.run(orgId, (other) => markNeedsReconnect(other, connection, error.reason));
  await finish({ error: error.reason });
}

/**
 * The live event inserted under `requestId` in `calendar`, looked for as the insert made it: under
 * the id itself, and, while Google answers an id as held by a deleted event (EventIdTaken), under
 * the next ones, as the insert moved on to them (at most MAX_TAKEN_REQUEST_IDS); until 2026-12-01
 * an insert made under `#2` whose answer was lost was looked for under the first id only, and
 * stayed in the calendar. `requestId`: the id it was found under, or the last one asked.
 */
async function findLostEvent(
  calendar: ReturnType<typeof calendarFor>,
  firstRequestId: string,
): Promise<{ eventId: string | null; requestId: string }> {
  let requestId = firstRequestId;
  for (let tries = 1; ; tries++) {
    try {
      return { eventId: await calendar.findEvent(requestId), requestId };
    } catch (error) {
      if (!(error instanceof EventIdTaken)) throw error;
      // Every id an insert may try is taken: it made no event.
      if (tries >= MAX_TAKEN_REQUEST_IDS) return { eventId: null, requestId };
      requestId = nextRequestId(requestId);
    }
  }
}

/** How far `requestId` is along its meeting's chain of request ids (`…` 1, `…#2` 2 …). */
function requestIdRank(requestId: string): number {
  const match = /#(\d+)$/.exec(requestId);
  return match ? Number(match[1]) : 1;
}

/**
 * An insert whose answer was lost (the provider made the event; our write of its id failed or timed
 * out, so the transaction that would have recorded it rolled back) leaves an event we hold no id
 * of. Before a write without an event is finished as deleted (its meeting cancelled or gone) or
 * moved to another rep's calendar, the calendars such an insert may have reached are asked for the
 * event made under the write's request id (findLostEvent), and it is deleted. The job records the
 * calendar it wrote to only with the insert's answer (`connection_id`, in the transaction a lost
 * answer rolls back), and inserts into the rep's newest active calendar as it is at that run: so
 * every calendar a run may have chosen is asked, read in one statement: the write's recorded
 * connection and every active calendar of the write's rep and of the meeting's rep (until
 * 2026-12-01 only each rep's newest one: an event made before the rep connected another calendar,
 * or in the older of two, stayed in the calendar for good), but never a calendar of `keepOwner`
 * (the rep whose own insert is about to look for it). 'deleted': one was found and deleted, and
 * `next` is the request id after the furthest one found; 'none': none was found; 'kept': a calendar
 * refused, the reason is recorded (keepOnFailure) and the job has ended.
 */
async function deleteLostEvent(
  tx: Transaction,
  deps: { env: Parameters<typeof calendarFor>[0]['env']; writer: ReturnType<typeof poolWriter> },
  orgId: number,
  write: typeof calendarEventWrites.$inferSelect,
  ownerIds: number[],
  finish: (values: Partial<typeof calendarEventWrites.$inferInsert>) => Promise<unknown>,
  keepOwner?: number,
): Promise<{ outcome: 'deleted'; next: string } | { outcome: 'none' | 'kept' }> {
  const candidates = await activeCalendars(
    tx,
    orgId,
    and(
      or(
        inArray(connections.ownerId, ownerIds),
        write.connectionId === null ? undefined : eq(connections.id, write.connectionId),
      ),
      keepOwner === undefined ? undefined : or(isNull(connections.ownerId), ne(connections.ownerId, keepOwner)),
    ),
  );
  let furthest: string | undefined;
  for (const connection of candidates) {
    try {
      const calendar = calendarFor({ db: tx, env: deps.env, writer: deps.writer }, connection);
      const lost = await findLostEvent(calendar, write.requestId);
      if (lost.eventId === null) continue;
      await calendar.deleteEvent(lost.eventId);
      if (furthest === undefined || requestIdRank(lost.requestId) > requestIdRank(furthest)) furthest = lost.requestId;
    } catch (error) {
      await keepOnFailure(error, orgId, connection, deps.writer, (values) =>
        finish({ ...values, connectionId: connection.id, provider: connection.provider }),
      );
      return { outcome: 'kept' };
    }
  }
  return furthest === undefined ? { outcome: 'none' } : { outcome: 'deleted', next: nextRequestId(furthest) };
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
    await withTenantEffects(db, env, orgId, async (tx, effects) => {
      const write = await lockRunningJob(tx, spec, message);
      const finish = (values: Partial<typeof calendarEventWrites.$inferInsert> = {}) =>
        finishJob(tx, spec, message, values);
      /**
       * The meeting was given to another rep: the write, now the new rep's, committed before any
       * insert into their calendar, and queued again for that insert. An insert is only ever tried
       * from a committed write naming the rep whose calendar it reaches, so one whose answer is
       * lost (its transaction rolled back) is found again in that rep's calendar (deleteLostEvent)
       * when the meeting is given to yet another rep or cancelled before a retry records it; until
       * 2026-12-01 the rollback went back to the former rep, and the lost event stayed for good.
       */
      const handOver = async (meetingId: number, values: Partial<typeof calendarEventWrites.$inferInsert>) => {
        await finish({ state: 'pending', providerEventId: null, connectionId: null, error: null, ...values });
        await requeueMeetingEvent({ db: tx, orgId, effects }, meetingId);
      };
      const [meeting] =
        write.meetingId === null
          ? []
          : await tx
              .select()
              .from(meetings)
              .where(and(eq(meetings.organizationId, orgId), eq(meetings.id, write.meetingId)));
      // The event the meeting wants now: none once it is deleted or cancelled; in its rep's calendar otherwise.
      const wanted = meeting !== undefined && meeting.status !== CANCELLED_MEETING;
      const event = meeting && {
        title: meeting.title,
        start: meeting.startTime,
        end: meeting.endTime,
        time_zone: meeting.timezone,
        description: meeting.description,
        location: meeting.location,
        attendees: meeting.attendees.map((attendee) => ({ email: attendee.email, name: attendee.name ?? null })),
      };

      if (write.state === 'deleted' && write.providerEventId !== null) {
        // Its owner deleted the event in the calendar (updateEvent found it gone): while the meeting
        // stays this rep's, no change of it makes the event again (until 2026-12-01 the next change
        // inserted it anew). Cancelled or deleted, or given to another rep, the meeting is done with
        // that event: a later one (scheduled again, or the new rep's) is new, under the next request id.
        const next = nextRequestId(write.requestId);
        if (wanted && meeting.userId === write.userId) return void (await finish());
        if (!wanted || !meeting) return void (await finish({ providerEventId: null, requestId: next, error: null }));
        await handOver(meeting.id, { requestId: next, userId: meeting.userId });
        return;
      }

      if (write.state === 'created' && write.providerEventId !== null) {
        const made =
          write.connectionId === null
            ? undefined
            : await liveConnection(tx, orgId, eq(connections.id, write.connectionId));
        if (!made) {
          // An upcoming meeting whose calendar was disconnected follows its rep to the calendar they
          // have connected now: a new event there, under the next request id, inserted by the next
          // run (handOver), as for a meeting given to another rep. The old event stays in the
          // disconnected calendar, which nothing reaches any more.
          if (
            wanted &&
            meeting.startTime > new Date() &&
            (await movesToNewCalendar(tx, orgId, write, meeting.userId))
          ) {
            await handOver(meeting.id, { requestId: nextRequestId(write.requestId), userId: meeting.userId });
            return;
          }
          // Otherwise (a past meeting, a calendar needing reconnection, or no calendar connected now)
          // the event stays as it was; connecting the same calendar again queues this write
          // (requeueWritesOnConnect), and so does connecting another one while the meeting is upcoming.
          await finish({ error: REASONS.disconnected });
          return;
        }
        try {
          const calendar = calendarFor({ db: tx, env, writer }, made);
          if (wanted && event && meeting.userId === write.userId) {
            // Moved, renamed, attendees changed …: the same event, patched (the same patch twice changes nothing).
            const updated = await calendar.updateEvent(write.providerEventId, {
              ...event,
              request_id: write.requestId,
            });
            if (updated) return void (await finish({ error: null }));
            // Deleted in the calendar by its owner: not made again.
            return void (await finish({ state: 'deleted', error: 'The event was deleted in the calendar' }));
          }
          await calendar.deleteEvent(write.providerEventId);
        } catch (error) {
          return void (await keepOnFailure(error, orgId, made, writer, finish));
        }
        // Deleted: a later event of this meeting (cancelled, then scheduled again; or given to another
        // rep) is a new one, under the next request id (Google keeps a deleted event's id taken).
        const next = nextRequestId(write.requestId);
        if (!wanted || !meeting) {
          await finish({ state: 'deleted', providerEventId: null, requestId: next, error: null });
          return;
        }
        await handOver(meeting.id, { requestId: next, userId: meeting.userId });
        return;
      }

      if (!wanted || !meeting || !event) {
        // Cancelled or deleted before its event was made: none is made (a connection added later
        // writes none either), and one an insert made without our hearing of it is deleted.
        const lost = await deleteLostEvent(
          tx,
          { env, writer },
          orgId,
          write,
          meeting ? [write.userId, meeting.userId] : [write.userId],
          finish,
        );
        if (lost.outcome === 'kept') return;
        // Google keeps a deleted event's id taken: a later event of the meeting takes the next request id.
        const next = lost.outcome === 'deleted' ? { requestId: lost.next, providerEventId: null } : {};
        await finish({ state: 'deleted', error: null, ...next });
        return;
      }
      if (meeting.userId !== write.userId) {
        // Given to another rep before its event was made: one made in the former rep's calendar
        // without our hearing of it goes (the new rep's own insert, under the same request id,
        // finds one made there instead of making a second).
        const lost = await deleteLostEvent(tx, { env, writer }, orgId, write, [write.userId], finish, meeting.userId);
        if (lost.outcome === 'kept') return;
        await handOver(meeting.id, { userId: meeting.userId });
        return;
      }
      // The rep's active calendars, the newest first: the insert goes to the newest.
      const [connection, ...older] = await activeCalendars(tx, orgId, eq(connections.ownerId, meeting.userId));
      if (!connection) {
        await finish({
          state: 'skipped',
          userId: meeting.userId,
          error: 'No active calendar is connected for the rep',
        });
        return;
      }
      // An earlier run's insert whose answer was lost went to the rep's newest calendar then: one of
      // the older ones, if the rep connected another since. Found there, that event is the
      // meeting's, brought in line and recorded, rather than a second one made in the newest
      // (until 2026-12-01 the retry made a duplicate). A provider read per older calendar, only for
      // a rep with several.
      for (const other of older) {
        try {
          const calendar = calendarFor({ db: tx, env, writer }, other);
          const lost = await findLostEvent(calendar, write.requestId);
          if (lost.eventId === null) continue;
          const updated = await calendar.updateEvent(lost.eventId, { ...event, request_id: lost.requestId });
          if (!updated) continue;
          await finish({
            state: 'created',
            userId: meeting.userId,
            connectionId: other.id,
            provider: other.provider,
            providerEventId: updated.id,
            requestId: lost.requestId,
            error: null,
          });
          return;
        } catch (error) {
          return void (await keepOnFailure(error, orgId, other, writer, (values) =>
            finish({ ...values, connectionId: other.id, provider: other.provider }),
          ));
        }
      }
      try {
        const calendar = calendarFor({ db: tx, env, writer }, connection);
        let requestId = write.requestId;
        let made: Awaited<ReturnType<typeof calendar.insertEvent>> | undefined;
        for (let tries = 1; made === undefined; tries++) {
          try {
            made = await calendar.insertEvent({
              ...event,
              conference: meeting.meetingTool !== 'none' && !meeting.meetingUrl,
              request_id: requestId,
            });
          } catch (error) {
            // Its id is taken by an event deleted since (Google keeps it): the next request id
            // makes the event, as after a delete we saw (until 2026-12-01 the deleted event was
            // recorded as made, and the meeting had none in the calendar).
            if (!(error instanceof EventIdTaken) || tries >= MAX_TAKEN_REQUEST_IDS) throw error;
            requestId = nextRequestId(requestId);
          }
        }
        await finish({
          state: 'created',
          userId: meeting.userId,
          connectionId: connection.id,
          provider: connection.provider,
          providerEventId: made.id,
          requestId,
          error: null,
        });
      } catch (error) {
        await keepOnFailure(error, orgId, connection, writer, (values) =>
          finish({ ...values, connectionId: connection.id, provider: connection.provider }),
        );
      }
    });
  },
};
