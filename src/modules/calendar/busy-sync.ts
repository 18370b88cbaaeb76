/**
 * Busy times of connected calendars, copied into `calendar_busy_blocks` so that availability and
 * the public booking page subtract them without calling a provider.
 *
 * - The cron trigger (every minute) queues a `calendar-sync` job for each active calendar
 *   connection not synced for SYNC_EVERY_SECONDS; POST /api/calendar/connections/{id}/sync does
 *   one at once. The job reads the provider's events in the window [now − 1 day, now + 60 days]:
 *   the changes since the stored sync token (Google), else the whole window, which then replaces
 *   the connection's blocks. Google's 410 on an expired token is that full resync, and so is a
 *   sync a day after the last full one (a token gives changes, not events time moved into the window).
 * - Staleness bound: while the provider answers, a rep's blocks are at most SYNC_EVERY_SECONDS
 *   plus one cron minute and the queue's delivery old (about 7 minutes); `last_synced_at` on the
 *   connection says when. A provider that fails leaves the last blocks in place (never empties
 *   them) and the job retries with backoff; 401/403 marks the connection needs_reconnect.
 * - Redelivery is harmless: a sync replaces or patches by provider event id.
 * - A sync that changes the rep's busy time bumps their booking_version (booking page cache dropped).
 */
import { and, eq, inArray, isNull, lt, notExists, or, sql } from 'drizzle-orm';
import { ApiError } from '../../core/errors';
import { withOwnDatabase, withTenant, type Database, type Transaction } from '../../db/client';
import { calendarBusyBlocks, calendarSyncJobs, connections, users } from '../../db/schema';
import { bumpBookingVersion, instantOf } from '../booking';
import { type TransactionEffects, withTenantEffects } from '../../core/transaction-effects';
import type { TenantContext } from '../../db/tenant';
import { readConfig, type Bindings } from '../../env';
import type { JobHandler } from '../../jobs/job-handler';
import { isTransientFault, userFacingJobError } from '../../jobs/faults';
import { OPEN_JOB_STATUSES } from '../../jobs/job-status';
import { claimJob, finishJob, type JobSpec } from '../../jobs/lifecycle';
import { insertJob } from '../../jobs/outbox';
import type { CalendarEvent, EventChanges, EventRange } from '../../providers/calendar/interface';
import { calendarFor } from '../../providers/calendar/select';
import { type ConnectionRow, markNeedsReconnect, poolWriter } from '../../providers/connections';
import { ProviderFailure } from '../../providers/failures';

export const SYNC_EVERY_SECONDS = 5 * 60;
const DAY_MS = 86_400_000;
export const SYNC_PAST_DAYS = 1;
export const SYNC_AHEAD_DAYS = 60;
/** How often the window is read whole even with a sync token: the days it gained since are read too. */
export const FULL_SYNC_EVERY_MS = DAY_MS;

export function syncWindow(now = Date.now()): EventRange {
  return { from: new Date(now - SYNC_PAST_DAYS * DAY_MS), to: new Date(now + SYNC_AHEAD_DAYS * DAY_MS) };
}

/**
 * The instants an event holds. An all-day event's dates (Google's `start.date`, read as midnight
 * UTC by the adapter) are days of the rep: midnight to midnight in the rep's zone, where working
 * hours are read, not in UTC (which would free the end of a Los Angeles rep's day off and block the
 * evening before).
 */
function spanOf(event: CalendarEvent, zone: string): { start: number; end: number } {
  const start = Date.parse(event.start);
  const end = Date.parse(event.end);
  if (!event.all_day || start % DAY_MS !== 0 || end % DAY_MS !== 0) return { start, end };
  return { start: instantOf(start / DAY_MS, 0, zone), end: instantOf(end / DAY_MS, 0, zone) };
}

function blocksOf(connection: ConnectionRow, events: CalendarEvent[], zone: string) {
  return events
    .filter((event) => event.busy && !event.cancelled)
    .map((event) => ({ event, span: spanOf(event, zone) }))
    .filter(({ span }) => span.end > span.start)
    .map(({ event, span }) => ({
      organizationId: connection.organizationId,
      connectionId: connection.id,
      userId: connection.ownerId as number,
      startsAt: new Date(span.start),
      endsAt: new Date(span.end),
      providerEventId: event.id,
    }));
}

/** Whether two sets of blocks hold the same time spans (as multisets; the order and the events' ids aside). */
function sameSpans(before: { startsAt: Date; endsAt: Date }[], after: { startsAt: Date; endsAt: Date }[]): boolean {
  if (before.length !== after.length) return false;
  const keys = (blocks: { startsAt: Date; endsAt: Date }[]) =>
    blocks.map((block) => `${block.startsAt.getTime()}-${block.endsAt.getTime()}`).sort();
  const [a, b] = [keys(before), keys(after)];
  return a.every((key, index) => key === b[index]);
}

/**
 * Writes what a sync read: the window replaced (full) or the changed events patched, and the token
 * stored; when that changed the rep's busy time, their booking version is bumped.
 */
async function storeChanges(
  tx: Transaction,
  effects: TransactionEffects,
  connection: ConnectionRow,
  changes: EventChanges,
  zone: string,
  now: number,
) {
  const scope = and(
    eq(calendarBusyBlocks.organizationId, connection.organizationId),
    eq(calendarBusyBlocks.connectionId, connection.id),
  );
  const stored = { startsAt: calendarBusyBlocks.startsAt, endsAt: calendarBusyBlocks.endsAt };
  let removed: { startsAt: Date; endsAt: Date }[] = [];
  if (changes.full) {
    removed = await tx.delete(calendarBusyBlocks).where(scope).returning(stored);
  } else if (changes.events.length > 0) {
    removed = await tx
      .delete(calendarBusyBlocks)
      .where(
        and(
          scope,
          inArray(
            calendarBusyBlocks.providerEventId,
            changes.events.map((event) => event.id),
          ),
        ),
      )
      .returning(stored);
  }
  const blocks = blocksOf(connection, changes.events, zone);
  if (blocks.length > 0) await tx.insert(calendarBusyBlocks).values(blocks);
  // The rep's busy time changed (not merely an event's title): their booking page's cached slots
  // are stale. The version bump moves the edge cache's key on and drops it in this data centre
  // now and after the commit, as a meeting write does (booking/booking-version.ts).
  if (connection.ownerId !== null && !sameSpans(removed, blocks)) {
    await bumpBookingVersion({ db: tx, orgId: connection.organizationId, effects }, [connection.ownerId]);
  }
  await tx
    .update(connections)
    .set({
      lastSuccessAt: sql`now()`,
      lastError: null,
      settings: sql`${connections.settings} || ${JSON.stringify({
        sync_token: changes.next_sync_token,
        ...(changes.full ? { full_synced_at: new Date(now).toISOString() } : {}),
      })}::jsonb`,
    })
    .where(and(eq(connections.organizationId, connection.organizationId), eq(connections.id, connection.id)));
}

/** One sync of one connection (nothing for one that is gone, off or ownerless); throws ProviderFailure. */
export async function syncConnection(
  db: Database,
  env: Bindings,
  orgId: number,
  connectionId: number,
  now = Date.now(),
) {
  // The owner's zone comes with the connection: all-day events are days of the rep.
  const [found] = await withTenant(db, orgId, (tx) =>
    tx
      .select({ connection: connections, zone: users.timezone })
      .from(connections)
      .leftJoin(users, and(eq(users.organizationId, connections.organizationId), eq(users.id, connections.ownerId)))
      .where(
        and(
          eq(connections.organizationId, orgId),
          eq(connections.id, connectionId),
          eq(connections.kind, 'calendar'),
          isNull(connections.deletedAt),
        ),
      ),
  );
  const connection = found?.connection;
  if (connection?.state !== 'active' || connection.ownerId === null) return false;
  const writer = poolWriter(db);
  // A sync token gives the changes since it, whatever their dates: an event made long ago that
  // time has brought inside the window since the last full read is not among them. So the window
  // is read whole again once a day (FULL_SYNC_EVERY_MS), and the token is used in between.
  const fullAt = Date.parse(String(connection.settings.full_synced_at ?? ''));
  const fullDue = !(fullAt > now - FULL_SYNC_EVERY_MS);
  const token = fullDue ? null : ((connection.settings.sync_token as string | null | undefined) ?? null);
  await withTenantEffects(db, env, orgId, async (tx, effects) => {
    const calendar = calendarFor({ db: tx, env, writer }, connection);
    let changes: EventChanges;
    try {
      changes = await calendar.syncEvents(syncWindow(now), token);
    } catch (error) {
      if (error instanceof ProviderFailure && error.kind === 'auth') {
        await writer.run(orgId, (other) => markNeedsReconnect(other, connection, error.reason));
        return;
      }
      throw error;
    }
    await storeChanges(tx, effects, connection, changes, found.zone ?? 'UTC', now);
  });
  return true;
}

const spec: JobSpec<typeof calendarSyncJobs> = {
  table: calendarSyncJobs,
  // One connection's events in the window (a few provider pages) with margin.
  leaseSeconds: 120,
};

const GAVE_UP = 'The calendar provider stayed unavailable through every retry; the last busy times stay in place';

export const calendarSyncJobHandler: JobHandler<'calendar-sync', typeof calendarSyncJobs> = {
  ...spec,
  // A provider that is down (429/5xx) or a database fault is retried; the connection keeps its last blocks.
  retry: {
    permanentReason: (error) =>
      (error instanceof ProviderFailure && error.kind === 'unavailable') ||
      (error instanceof ApiError && error.status === 503) ||
      isTransientFault(error)
        ? null
        : `The calendar sync failed: ${userFacingJobError(error)}.`,
  },
  reasons: { deadLettered: GAVE_UP, stalled: GAVE_UP },
  async run(message, { db, env }) {
    const claimed = await claimJob(db, spec, message);
    if (!claimed) return;
    await syncConnection(db, env, message.orgId, claimed.job.connectionId);
    await withTenant(db, message.orgId, (tx) => finishJob(tx, spec, message));
  },
};

/** In the caller's transaction: a sync job for the connection and its outbox row. */
export async function enqueueCalendarSync(
  ctx: Pick<TenantContext, 'db' | 'orgId' | 'effects' | 'userId'>,
  connectionId: number,
) {
  await insertJob(ctx, 'calendar-sync', calendarSyncJobs, {
    organizationId: ctx.orgId,
    connectionId,
    createdBy: ctx.userId ?? null,
  });
}

/**
 * The cron's part: a sync job and its message for every active calendar connection not synced for
 * SYNC_EVERY_SECONDS and without an open sync job, across organizations (as the outbox sweep does,
 * owner role). Sent after the jobs commit; a lost send is re-sent by the lease sweep.
 */
export async function scheduleCalendarSyncs(env: Bindings): Promise<number> {
  return withOwnDatabase(readConfig(env), async (db) => {
    // Cron runs overlap (02:17 fires the minute and the daily trigger; a slow run meets the next
    // minute's): one at a time reads what is due and writes its jobs, so the next sees them open
    // and no calendar gets two syncs at once.
    const jobs = await db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended('calendar-sync-schedule', 0))`);
      const due = await tx
        .select({ orgId: connections.organizationId, connectionId: connections.id })
        .from(connections)
        .where(
          and(
            eq(connections.kind, 'calendar'),
            eq(connections.state, 'active'),
            isNull(connections.deletedAt),
            or(
              isNull(connections.lastSuccessAt),
              lt(connections.lastSuccessAt, sql`now() - make_interval(secs => ${SYNC_EVERY_SECONDS})`),
            ),
            notExists(
              tx
                .select({ one: sql`1` })
                .from(calendarSyncJobs)
                .where(
                  and(
                    eq(calendarSyncJobs.organizationId, connections.organizationId),
                    eq(calendarSyncJobs.connectionId, connections.id),
                    inArray(calendarSyncJobs.status, [...OPEN_JOB_STATUSES]),
                  ),
                ),
            ),
          ),
        )
        .limit(1000);
      if (due.length === 0) return [];
      return tx
        .insert(calendarSyncJobs)
        .values(due.map((row) => ({ organizationId: row.orgId, connectionId: row.connectionId })))
        .returning({ orgId: calendarSyncJobs.organizationId, jobId: calendarSyncJobs.id });
    });
    for (let i = 0; i < jobs.length; i += 100) {
      await env.JOBS.sendBatch(
        jobs.slice(i, i + 100).map((row) => ({ body: { kind: 'calendar-sync' as const, ...row } })),
      );
    }
    return jobs.length;
  });
}
