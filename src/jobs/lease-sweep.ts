/**
 * Jobs that stop without failing are picked up again. A delivery can end with no error at all:
 * the consumer's wall-time limit, an isolate eviction, a deploy, a local Worker reloaded under
 * it. Its job then stays `running` (or `queued`, when the message itself was lost) and nothing
 * would ever finish or fail it. Each claim and checkpoint renews the job's lease
 * (lifecycle.ts); the cron sweep finds open jobs whose lease has expired (a job never claimed:
 * its creation plus the lease) and sends their message again, and the checkpoint makes the
 * re-run safe.
 *
 * Two cases. A job claimed (`running`) since its last re-send (or never re-sent) whose lease
 * expired stopped mid-way: it is re-sent MAX_LEASE_RESENDS times, and the next expiry fails it
 * with its handler's `stalled` reason. A job still `queued` was never picked up, and a claimed job
 * whose re-sent message nobody has claimed since (`lease_resent_at` set: the claim clears it) was
 * not picked up again: its message may just be waiting in a backed-up queue (or was lost), which
 * is no stall. It is re-sent with a backoff (the next re-send after as long as it has waited, at
 * most an hour), its stall budget untouched, until the kind's deadline (QUEUED_JOB_DEADLINE_SECONDS
 * unless the handler sets its own) after its creation, or after the re-send, has passed; then it
 * fails with a reason that says it was never picked up. A message and its re-send both arriving
 * is harmless: the claim runs the job once.
 *
 * Like the outbox sweep, it runs as the connection's owner role outside any tenant scope: it
 * crosses organizations by design. Rows are locked with SKIP LOCKED, so two sweeps never take
 * the same job, and a send that fails rolls the round back (nothing counted, nothing lost).
 */
import { and, inArray, lt, sql } from 'drizzle-orm';
import { log } from '../core/log';
import { withOwnDatabase, type Database } from '../db/client';
import { readConfig, type Bindings } from '../env';
import { everyJobKind } from './dispatch';
import type { JobHandler } from './job-handler';
import { OPEN_JOB_STATUSES } from './job-status';
import { failJobsIn, type JobTable, type JobValues, leaseUntil } from './lifecycle';
import type { JobKind, JobMessage } from './messages';

/** Re-sends of one job after its lease expired; the next expiry fails it. */
export const MAX_LEASE_RESENDS = 3;
/** How long after its creation a job may wait in the queue, never claimed, before the sweep fails it (a kind may set its own). */
export const QUEUED_JOB_DEADLINE_SECONDS = 24 * 3600;
/** The longest wait between two re-sends of a job that was never claimed. */
const MAX_WAITING_RESEND_SECONDS = 3600;
/** Jobs taken per kind and sweep (a queue's sendBatch takes at most 100 messages). */
const SWEEP_BATCH = 100;

export interface LeaseSweepResult {
  /** Jobs claimed whose delivery stopped, re-sent. */
  resent: number;
  /** Jobs never claimed (their message waiting or lost), re-sent with a backoff. */
  waiting: number;
  failed: number;
}

/**
 * The reason a job never claimed by its deadline fails with (since its creation, or since the
 * sweep re-sent the message of a job that had stopped), unless its handler gives its own.
 */
function neverPickedUpReason(handler: JobHandler<JobKind>, deadlineSeconds: number, resent: boolean): string {
  const hours = Math.round(deadlineSeconds / 3600);
  return (
    handler.reasons.neverPickedUp ??
    (resent
      ? `The job stopped, and its message, sent again, was never picked up from the queue within ${hours} hours.`
      : `The job was never picked up from the queue within ${hours} hours of its creation.`)
  );
}

async function sweepKind(
  db: Database,
  queue: Queue<JobMessage>,
  kind: JobKind,
  handler: JobHandler<JobKind>,
): Promise<LeaseSweepResult> {
  const table: JobTable = handler.table;
  const deadline = handler.queuedDeadlineSeconds ?? QUEUED_JOB_DEADLINE_SECONDS;
  const waitingSince = handler.waitingSince ?? table.createdAt;
  // Since when a job waits for a delivery: a job never claimed since its creation (or the kind's
  // due time); a claimed job since the sweep re-sent its message, unclaimed since.
  const since = sql`case when ${table.status} = 'queued' then ${waitingSince} else ${table.leaseResentAt} end`;
  return db.transaction(async (tx) => {
    const expired = await tx
      .select({
        id: table.id,
        orgId: table.organizationId,
        resends: table.leaseResends,
        status: table.status,
        resentUnclaimed: sql<boolean>`${table.leaseResentAt} is not null`,
        overdue: sql<boolean>`coalesce(case when ${table.status} = 'queued' then ${table.createdAt} else ${table.leaseResentAt} end
          + make_interval(secs => ${deadline}) < now(), false)`,
      })
      .from(table)
      .where(
        and(
          inArray(table.status, [...OPEN_JOB_STATUSES]),
          lt(
            sql`coalesce(${table.leaseExpiresAt}, ${table.createdAt} + make_interval(secs => ${handler.leaseSeconds}))`,
            sql`now()`,
          ),
        ),
      )
      .orderBy(table.id)
      .limit(SWEEP_BATCH)
      .for('update', { skipLocked: true });
    const jobs = expired as {
      id: number;
      orgId: number;
      resends: number;
      status: string;
      resentUnclaimed: boolean;
      overdue: boolean;
    }[];
    // Waiting, not stalling: a job never claimed, or claimed once but whose re-sent message nobody
    // has claimed since (either may sit in a backed-up queue). Only a job a delivery claimed since
    // its last re-send (or never re-sent) and that stopped again spends its stall budget.
    const waitingOrGone = jobs.filter((job) => job.status === 'queued' || job.resentUnclaimed);
    const waiting = waitingOrGone.filter((job) => !job.overdue);
    const neverPickedUp = waitingOrGone.filter((job) => job.overdue);
    const stopped = jobs.filter((job) => job.status !== 'queued' && !job.resentUnclaimed);
    const resend = stopped.filter((job) => job.resends < MAX_LEASE_RESENDS);
    const stalled = stopped.filter((job) => job.resends >= MAX_LEASE_RESENDS);
    // Every job of the kind that ends here fails in one set-based round (failJobsIn): one UPDATE,
    // the kind's onFailed once, one INSERT of notices, however many jobs there are.
    await failJobsIn(tx, handler, [
      ...stalled.map((job) => ({ job: { orgId: job.orgId, jobId: job.id }, reason: handler.reasons.stalled })),
      ...neverPickedUp.map((job) => ({
        job: { orgId: job.orgId, jobId: job.id },
        reason: neverPickedUpReason(handler, deadline, job.status !== 'queued'),
      })),
    ]);
    if (resend.length > 0) {
      // The new lease gives the re-sent message time to be delivered and claimed before the next
      // sweep; `lease_resent_at` stays set until a delivery claims it.
      await tx
        .update(table)
        .set({
          leaseResends: sql`${table.leaseResends} + 1`,
          leaseExpiresAt: leaseUntil(handler),
          leaseResentAt: sql`now()`,
          ...handler.resend,
        } as JobValues<JobTable>)
        .where(
          inArray(
            table.id,
            resend.map((job) => job.id),
          ),
        );
    }
    if (waiting.length > 0) {
      // Backoff, so a backed-up queue is not flooded: the next re-send after as long as the job
      // has waited (at least its lease, at most an hour). The stall count stays as it is.
      const wait = sql`least(${MAX_WAITING_RESEND_SECONDS}::float8, greatest(${handler.leaseSeconds}::float8, extract(epoch from now() - ${since})::float8))`;
      await tx
        .update(table)
        .set({ leaseExpiresAt: sql`now() + make_interval(secs => ${wait})` } as JobValues<JobTable>)
        .where(
          inArray(
            table.id,
            waiting.map((job) => job.id),
          ),
        );
    }
    const sends = [...resend, ...waiting];
    if (sends.length > 0)
      await queue.sendBatch(sends.map((job) => ({ body: { kind, orgId: job.orgId, jobId: job.id } as JobMessage })));
    return { resent: resend.length, waiting: waiting.length, failed: stalled.length + neverPickedUp.length };
  });
}

/** One sweep over every job kind's table. */
export async function sweepExpiredLeases(db: Database, queue: Queue<JobMessage>): Promise<LeaseSweepResult> {
  const total: LeaseSweepResult = { resent: 0, waiting: 0, failed: 0 };
  for (const { kind, handler } of everyJobKind()) {
    const swept = await sweepKind(db, queue, kind, handler);
    total.resent += swept.resent;
    total.waiting += swept.waiting;
    total.failed += swept.failed;
  }
  return total;
}

/** The cron trigger's entry (wrangler.toml [triggers]): one sweep on its own connection. */
export async function runLeaseSweep(env: Bindings): Promise<LeaseSweepResult> {
  return withOwnDatabase(readConfig(env), async (db) => {
    const swept = await sweepExpiredLeases(db, env.JOBS);
    if (swept.resent > 0 || swept.waiting > 0 || swept.failed > 0) {
      log.warn('lease sweep: jobs whose delivery stopped, or whose message waits unclaimed', { ...swept });
    }
    return swept;
  });
}
