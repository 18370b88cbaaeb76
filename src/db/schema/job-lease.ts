/**
 * The lease every job table carries (see src/jobs/lease-sweep.ts). A delivery that claims a job
 * holds it until `lease_expires_at` and renews the lease with each checkpoint; a job still open
 * once its lease has expired (or, never claimed, its creation plus the lease) stopped without
 * failing, and the cron sweep sends its message again. `lease_resends` counts the re-sends of a
 * claimed job, so a job that keeps stopping fails after a bounded number of them instead of looping
 * for ever; a job never claimed (its message waiting in the queue) is bounded by time instead.
 * `lease_resent_at` is when the sweep last re-sent a claimed job's message, until a delivery claims
 * it again (the claim clears it): a re-sent message still unclaimed is waiting in the queue, not
 * stalling, and spends no re-send of the bound.
 * `throttled_since` is when a provider first asked the job to wait (a 429) since its last
 * checkpoint: the runner snoozes a throttled job without spending the queue's retries, up to
 * THROTTLE_DEADLINE_SECONDS after it (src/jobs/runner.ts); a checkpoint (heartbeat) clears it.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type AnyPgColumn, index, integer, text, timestamp } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './tenancy';

export const jobLease = () => ({
  leaseExpiresAt: timestamp({ withTimezone: true }),
  leaseResends: integer().notNull().default(0),
  leaseResentAt: timestamp({ withTimezone: true }),
  throttledSince: timestamp({ withTimezone: true }),
});

/**
 * The columns every job table shares: its status (queued, running, then completed or failed; a
 * table may add its own states), the user-facing failure reason, its times, and its lease.
 */
export const jobRun = () => ({
  status: text().notNull().default('queued'),
  error: text(),
  startedAt: timestamp({ withTimezone: true }),
  finishedAt: timestamp({ withTimezone: true }),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
  ...jobLease(),
});

/** Only open jobs are swept, so the index holds only them. */
export function openJobsIndex(name: string, table: { status: AnyPgColumn; leaseExpiresAt: AnyPgColumn }) {
  const open: SQL = sql`${table.status} in ('queued', 'running')`;
  return index(name).on(table.leaseExpiresAt).where(open);
}

/**
 * For job tables whose ended rows are deleted after a while (src/jobs/ended-jobs.ts): the ended
 * jobs by when they ended, the sweep's range. Open jobs (finished_at null) are not in it.
 */
export function endedJobsIndex(name: string, table: { finishedAt: AnyPgColumn }) {
  return index(name).on(table.finishedAt).where(sql`${table.finishedAt} is not null`);
}
