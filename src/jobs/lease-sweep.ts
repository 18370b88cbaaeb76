/**
 * Jobs that stop without failing are picked up again. A delivery can end with no error at all:
 * the consumer's wall-time limit, an isolate eviction, a deploy, a local Worker reloaded under
 * it. Its job then stays `running` (or `queued`, when the message itself was lost) and nothing
 * would ever finish or fail it. Each claim and checkpoint renews the job's lease
 * (lifecycle.ts); the cron sweep finds open jobs whose lease has expired (a job never claimed:
 * its creation plus the lease) and sends their message again, and the checkpoint makes the
 * re-run safe. A job re-sent MAX_LEASE_RESENDS times fails instead, with its handler's reason.
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
import { failJobIn, type JobTable, type JobValues, leaseUntil } from './lifecycle';
import type { JobKind, JobMessage } from './messages';

/** Re-sends of one job after its lease expired; the next expiry fails it. */
export const MAX_LEASE_RESENDS = 3;
/** Jobs taken per kind and sweep (a queue's sendBatch takes at most 100 messages). */
const SWEEP_BATCH = 100;

export interface LeaseSweepResult {
  resent: number;
  failed: number;
}

async function sweepKind(
  db: Database,
  queue: Queue<JobMessage>,
  kind: JobKind,
  handler: JobHandler<JobKind>,
): Promise<LeaseSweepResult> {
  const table: JobTable = handler.table;
  return db.transaction(async (tx) => {
    const expired = await tx
      .select({ id: table.id, orgId: table.organizationId, resends: table.leaseResends })
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
    const jobs = expired as { id: number; orgId: number; resends: number }[];
    const resend = jobs.filter((job) => job.resends < MAX_LEASE_RESENDS);
    const stalled = jobs.filter((job) => job.resends >= MAX_LEASE_RESENDS);
    for (const job of stalled)
      await failJobIn(tx, handler, { orgId: job.orgId, jobId: job.id }, handler.reasons.stalled);
    if (resend.length > 0) {
      // The new lease gives the re-sent message time to be delivered and claimed before the next sweep.
      await tx
        .update(table)
        .set({
          leaseResends: sql`${table.leaseResends} + 1`,
          leaseExpiresAt: leaseUntil(handler),
          ...handler.resend,
        } as JobValues<JobTable>)
        .where(
          inArray(
            table.id,
            resend.map((job) => job.id),
          ),
        );
      await queue.sendBatch(resend.map((job) => ({ body: { kind, orgId: job.orgId, jobId: job.id } as JobMessage })));
    }
    return { resent: resend.length, failed: stalled.length };
  });
}

/** One sweep over every job kind's table. */
export async function sweepExpiredLeases(db: Database, queue: Queue<JobMessage>): Promise<LeaseSweepResult> {
  const total: LeaseSweepResult = { resent: 0, failed: 0 };
  for (const { kind, handler } of everyJobKind()) {
    const swept = await sweepKind(db, queue, kind, handler);
    total.resent += swept.resent;
    total.failed += swept.failed;
  }
  return total;
}

/** The cron trigger's entry (wrangler.toml [triggers]): one sweep on its own connection. */
export async function runLeaseSweep(env: Bindings): Promise<LeaseSweepResult> {
  return withOwnDatabase(readConfig(env), async (db) => {
    const swept = await sweepExpiredLeases(db, env.JOBS);
    if (swept.resent > 0 || swept.failed > 0) {
      log.warn('lease sweep: jobs whose delivery stopped without failing', { ...swept });
    }
    return swept;
  });
}
