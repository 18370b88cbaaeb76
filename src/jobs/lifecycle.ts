/**
 * One job's lifecycle, written once for every kind that keeps a row in a `*_jobs` table: claim
 * (queued/running → running, taking the lease), heartbeat (renew the lease with each
 * checkpoint), finish, fail, and the creator's notice. Every step is a short transaction scoped
 * to the job's organization, or runs inside the caller's. A step that finds the job no longer
 * this delivery's throws JobSuperseded; a step that ends a job changes it only while it is
 * open, so a redelivered message neither overwrites an ending nor notifies twice.
 * A job whose writes register effects (follow-up jobs, webhook deliveries, an R2 clean-up after a
 * rollback) writes through `withTenantEffects` (core/transaction-effects.ts), as a request does:
 * what it sends leaves right after the commit, not at the next sweep. Imports, CRM import pages,
 * bulk enrichment and AI drafts, the voice job's recordings and the events runner do; the kinds
 * that register none (scoring, company enrichment, mail send, calendar events) use `withTenant`,
 * and move over when they start sending.
 */
import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { PgColumn, PgTable, PgUpdateSetSource } from 'drizzle-orm/pg-core';
import { withTenant, type Database, type Queryable, type Transaction } from '../db/client';
import { actorContext, type JobActor, type TenantContext } from '../db/tenant';
import type { TransactionEffects } from '../core/transaction-effects';
import { type JobNotice, notifyJobEnded, notifyJobsEnded } from '../modules/notifications';
import { JobSuperseded } from './faults';
import { ENDED_JOB_STATUSES, type JobStatus, OPEN_JOB_STATUSES } from './job-status';

/** The columns the lifecycle reads and writes; every job table has them (db/schema/job-lease.ts). */
export type JobTable = PgTable & {
  id: PgColumn;
  organizationId: PgColumn;
  status: PgColumn;
  error: PgColumn;
  createdBy: PgColumn;
  startedAt: PgColumn;
  finishedAt: PgColumn;
  createdAt: PgColumn;
  updatedAt: PgColumn;
  leaseExpiresAt: PgColumn;
  leaseResends: PgColumn;
  leaseResentAt: PgColumn;
  throttledSince: PgColumn;
};
export type JobRow<T extends JobTable> = T['$inferSelect'];
/** Values of an UPDATE of the job's row. */
export type JobValues<T extends JobTable> = PgUpdateSetSource<T>;

/** What the creator reads when a job ends (title and data; the organization and user come from the job). */
export type JobNoticeText = Pick<JobNotice, 'title' | 'data'>;

/** A job kind's row and the rules the lifecycle applies to it. */
export interface JobSpec<T extends JobTable> {
  table: T;
  /**
   * How long a delivery holds the job without a heartbeat. Longer than the slowest step between
   * two checkpoints; once it has passed, the lease sweep takes the job for stopped and sends it again.
   */
  leaseSeconds: number;
  /** The creator's notice when the job ends; a kind without one notifies nobody. */
  notice?: {
    typeId: JobNotice['typeId'];
    completed(job: JobRow<T>): JobNoticeText;
    failed(job: JobRow<T>): JobNoticeText;
  };
  /**
   * Runs in the transaction that fails jobs (permanent fault, dead letter, stalled, never picked
   * up), once per failing and with every job that statement failed (the lease sweep fails many
   * at once): for a kind whose rows of work keep their own status (the mail-send job's messages).
   * Set-based: a fixed number of statements whatever the number of jobs.
   */
  onFailed?(tx: Queryable, failed: FailedJob<T>[]): Promise<void>;
}

/** One delivery's hold on a job: whom it acts as, and the row as the claim left it. */
export interface JobClaim<T extends JobTable> {
  orgId: number;
  jobId: number;
  actor: JobActor;
  job: JobRow<T>;
}

/** The job's identity, as a message carries it. */
export interface JobRef {
  orgId: number;
  jobId: number;
}

/** A job that failed, as its failing statement left it, and the reason it failed with. */
export interface FailedJob<T extends JobTable> {
  job: JobRow<T>;
  reason: string;
}

/** A job to fail and its reason (fit for the user). */
export interface JobFailure {
  job: JobRef;
  reason: string;
}

/** `now() + the spec's lease`: the value of lease_expires_at at a claim or a heartbeat. */
export function leaseUntil(spec: Pick<JobSpec<JobTable>, 'leaseSeconds'>): SQL {
  return sql`now() + make_interval(secs => ${spec.leaseSeconds})`;
}

/**
 * The lease a claim takes: `now() + leaseSeconds`, and the sweep's re-send picked up
 * (`lease_resent_at` cleared). A kind that claims with its own statement (the webhook delivery's
 * attempt) spreads it too.
 */
export function claimedLease(spec: Pick<JobSpec<JobTable>, 'leaseSeconds'>): {
  leaseExpiresAt: SQL;
  leaseResentAt: null;
} {
  return { leaseExpiresAt: leaseUntil(spec), leaseResentAt: null };
}

/**
 * Values to spread into a checkpoint's own UPDATE: the heartbeat costs no extra statement. A
 * checkpoint is progress, so it also ends a run of provider throttling (`throttled_since`: the
 * bound on snoozing counts from the first throttle since the last checkpoint).
 */
export function heartbeat(spec: Pick<JobSpec<JobTable>, 'leaseSeconds'>): {
  leaseExpiresAt: SQL;
  updatedAt: SQL;
  throttledSince: null;
} {
  return { leaseExpiresAt: leaseUntil(spec), updatedAt: sql`now()`, throttledSince: null };
}

function jobIs<T extends JobTable>(spec: JobSpec<T>, job: JobRef, ...conditions: (SQL | undefined)[]): SQL {
  return and(eq(spec.table.organizationId, job.orgId), eq(spec.table.id, job.jobId), ...conditions) as SQL;
}

function whereOpen<T extends JobTable>(spec: JobSpec<T>, job: JobRef, owned?: SQL): SQL {
  return jobIs(spec, job, inArray(spec.table.status, [...OPEN_JOB_STATUSES]), owned);
}

/**
 * The context a job's service calls run in: the job acts as itself, credited to its creator.
 * With `effects` (withTenantEffects'), what the calls send after the commit leaves at once.
 */
export function jobTenantContext(
  claim: JobClaim<JobTable>,
  db: Queryable,
  effects?: TransactionEffects,
): TenantContext {
  return { db, orgId: claim.orgId, ...actorContext(claim.actor), effects };
}

/**
 * Claims the job for this delivery: locks its row, marks it running and takes the lease, in one
 * transaction scoped to the job's organization; `values` are the kind's own columns to set (a
 * step count, a fresh claim stamp). The claim clears `lease_resent_at`: a message the lease sweep
 * re-sent has been picked up, so the job's next stop is a stall again (lease-sweep.ts). Null when the job has ended already (nothing to do). Throws
 * when the job is not visible, so the queue redelivers the message; with the outbox a message
 * only leaves after its job committed, so this means the organization is gone and the message
 * dead-letters.
 */
export async function claimJob<T extends JobTable>(
  db: Database,
  spec: JobSpec<T>,
  ref: JobRef,
  values: (job: JobRow<T>) => JobValues<T> = () => ({}),
): Promise<JobClaim<T> | null> {
  const table: JobTable = spec.table;
  return withTenant(db, ref.orgId, async (tx) => {
    const [job] = (await tx.select().from(table).where(jobIs(spec, ref)).for('update')) as JobRow<T>[];
    if (!job) throw new Error(`job ${ref.jobId} of organization ${ref.orgId} not found`);
    if (ENDED_JOB_STATUSES.includes((job as { status: JobStatus }).status)) return null;
    const [claimed] = (await tx
      .update(table)
      .set({
        status: 'running',
        startedAt: sql`coalesce(${table.startedAt}, now())`,
        ...claimedLease(spec),
        updatedAt: sql`now()`,
        ...values(job),
      } as JobValues<JobTable>)
      .where(jobIs(spec, ref))
      .returning()) as JobRow<T>[];
    const createdBy = (job as { createdBy: number | null }).createdBy;
    return { ...ref, actor: { kind: 'job', jobId: ref.jobId, createdBy }, job: claimed };
  });
}

/**
 * Locks the job's row in `tx` while it is running (and `owned`, the kind's test that this
 * delivery still holds it); throws JobSuperseded otherwise.
 */
export async function lockRunningJob<T extends JobTable>(
  tx: Transaction,
  spec: JobSpec<T>,
  claim: JobRef,
  owned?: SQL,
): Promise<JobRow<T>> {
  const table: JobTable = spec.table;
  const [job] = (await tx
    .select()
    .from(table)
    .where(jobIs(spec, claim, eq(table.status, 'running'), owned))
    .for('update')) as JobRow<T>[];
  if (!job) throw new JobSuperseded();
  return job;
}

/** What completing a job sets on its row, beside the kind's own values. */
function completed(table: JobTable): JobValues<JobTable> {
  return {
    status: 'completed',
    error: null,
    startedAt: sql`coalesce(${table.startedAt}, now())`,
    finishedAt: sql`now()`,
    updatedAt: sql`now()`,
    leaseExpiresAt: null,
  } as JobValues<JobTable>;
}

/**
 * Completes the running job in `tx` with the kind's final `values`, releases the lease and
 * tells the creator. Throws JobSuperseded when the job is no longer this delivery's.
 */
export async function finishJob<T extends JobTable>(
  tx: Transaction,
  spec: JobSpec<T>,
  claim: JobRef,
  values: JobValues<T> = {},
  owned?: SQL,
): Promise<JobRow<T>> {
  const table: JobTable = spec.table;
  const [done] = (await tx
    .update(table)
    .set({ ...completed(table), ...values } as JobValues<JobTable>)
    .where(jobIs(spec, claim, eq(table.status, 'running'), owned))
    .returning()) as JobRow<T>[];
  if (!done) throw new JobSuperseded();
  if (spec.notice) await notify(tx, spec.notice.typeId, done, spec.notice.completed(done));
  return done;
}

/**
 * Locks the rows of the organization's jobs `jobIds` in `tx`, whatever their status: the first
 * step of a kind that runs small jobs whole in one transaction, without a claim (the scoring
 * job). Nothing commits before they are completed (completeOpenJobs), so there is no lease to
 * take: a delivery that dies rolls back to the open jobs, which the queue or the outbox sweep
 * sends again. A job not visible (its organization is gone) is missing from the result.
 */
export async function lockJobs<T extends JobTable>(
  tx: Transaction,
  spec: JobSpec<T>,
  orgId: number,
  jobIds: number[],
): Promise<JobRow<T>[]> {
  const table: JobTable = spec.table;
  if (jobIds.length === 0) return [];
  return (await tx
    .select()
    .from(table)
    .where(and(eq(table.organizationId, orgId), inArray(table.id, jobIds)))
    .for('update')) as JobRow<T>[];
}

/**
 * Completes the organization's jobs `jobIds` that are still open (queued or running) in `tx`,
 * in one statement, after lockJobs: stamps their start if no claim did, clears any lease and
 * tells each creator, as finishJob does. `values` apply to every row; a value that differs by
 * job is an SQL expression over the row's own columns. Returns the rows it completed (a job
 * that ended meanwhile is left as it is).
 */
export async function completeOpenJobs<T extends JobTable>(
  tx: Transaction,
  spec: JobSpec<T>,
  orgId: number,
  jobIds: number[],
  values: JobValues<T> = {},
): Promise<JobRow<T>[]> {
  const table: JobTable = spec.table;
  if (jobIds.length === 0) return [];
  const done = (await tx
    .update(table)
    .set({ ...completed(table), ...values } as JobValues<JobTable>)
    .where(
      and(eq(table.organizationId, orgId), inArray(table.id, jobIds), inArray(table.status, [...OPEN_JOB_STATUSES])),
    )
    .returning()) as JobRow<T>[];
  const notice = spec.notice;
  if (notice && done.length > 0)
    await notifyJobsEnded(
      tx,
      done.map((job) => noticeOf(notice.typeId, job, notice.completed(job))),
    );
  return done;
}

/**
 * Fails the job in `tx` with `reason` (fit for the user; cut to 1 000 characters) and tells the
 * creator. Only an open job (and `owned`, when given) changes, so a second call neither
 * overwrites the first ending nor notifies again; false when nothing changed.
 */
export async function failJobIn<T extends JobTable>(
  tx: Queryable,
  spec: JobSpec<T>,
  job: JobRef,
  reason: string,
  owned?: SQL,
): Promise<boolean> {
  const failed = await failJobsIn(tx, spec, [{ job, reason }], owned);
  return failed.length > 0;
}

/**
 * failJobIn for many jobs (of any organizations), each with its own reason, set-based: one
 * UPDATE fails every one still open (and `owned`), the kind's `onFailed` runs once over them and
 * one INSERT tells their creators, whatever their number. Answers the jobs it failed (a job that
 * had ended already is left as it is, and neither notified nor passed to `onFailed`).
 */
export async function failJobsIn<T extends JobTable>(
  tx: Queryable,
  spec: JobSpec<T>,
  failures: JobFailure[],
  owned?: SQL,
): Promise<JobRow<T>[]> {
  if (failures.length === 0) return [];
  const table: JobTable = spec.table;
  const reasonOf = new Map(failures.map((failure) => [failure.job.jobId, failure.reason]));
  // The jobs grouped by reason: a sweep's handful of reasons, not one branch per job.
  const byReason = new Map<string, number[]>();
  for (const [jobId, reason] of reasonOf) {
    const error = reason.slice(0, 1000);
    byReason.set(error, [...(byReason.get(error) ?? []), jobId]);
  }
  const error =
    byReason.size === 1
      ? [...byReason.keys()][0]
      : sql`case ${sql.join(
          [...byReason].map(([reason, ids]) => sql`when ${inArray(table.id, ids)} then ${reason}::text`),
          sql` `,
        )} end`;
  const which = sql`(${table.organizationId}, ${table.id}) in (${sql.join(
    failures.map(({ job }) => sql`(${job.orgId}::bigint, ${job.jobId}::bigint)`),
    sql`, `,
  )})`;
  const failed = (await tx
    .update(table)
    .set({
      status: 'failed',
      error,
      finishedAt: sql`now()`,
      updatedAt: sql`now()`,
      leaseExpiresAt: null,
    } as JobValues<JobTable>)
    .where(and(which, inArray(table.status, [...OPEN_JOB_STATUSES]), owned))
    .returning()) as JobRow<T>[];
  if (failed.length === 0) return failed;
  await spec.onFailed?.(
    tx,
    failed.map((job) => ({ job, reason: reasonOf.get((job as { id: number }).id) ?? '' })),
  );
  const notice = spec.notice;
  if (notice)
    await notifyJobsEnded(
      tx,
      failed.map((job) => noticeOf(notice.typeId, job, notice.failed(job))),
    );
  return failed;
}

/** failJobIn in a transaction of its own, scoped to the job's organization. */
export function failJob<T extends JobTable>(db: Database, spec: JobSpec<T>, job: JobRef, reason: string) {
  return withTenant(db, job.orgId, (tx) => failJobIn(tx, spec, job, reason));
}

/**
 * A delivery failed and the queue will retry it in `delaySeconds`: the reason shows on the job
 * while it waits, and its lease lasts past the retry, so a long wait (a provider's Retry-After)
 * is not taken for a stall by the lease sweep, which re-sends it only if that retry never comes.
 */
export async function noteRetry<T extends JobTable>(
  db: Database,
  spec: JobSpec<T>,
  job: JobRef,
  text: string,
  delaySeconds = 0,
) {
  const table: JobTable = spec.table;
  const heldUntil = sql`now() + make_interval(secs => ${delaySeconds + spec.leaseSeconds})`;
  await withTenant(db, job.orgId, (tx) =>
    tx
      .update(table)
      .set({
        error: text.slice(0, 1000),
        leaseExpiresAt: sql`greatest(${table.leaseExpiresAt}, ${heldUntil})`,
        updatedAt: sql`now()`,
      } as JobValues<JobTable>)
      .where(whereOpen(spec, job)),
  );
}

/**
 * A provider throttled the job (a 429 with its wait): instead of a queue retry, which spends one
 * of the message's max_retries, the runner acknowledges the delivery and sends the job's message
 * again with the wait as its delay (runner.ts). Here, in one statement on the open job: the first
 * throttle since the last checkpoint is stamped (`throttled_since`), the note shows while it
 * waits, the lease lasts past the wait, and `lease_resent_at` is set to when the message is due,
 * so the lease sweep takes a snoozed message that never arrives for one waiting in the queue (not
 * a stall), as it does its own re-sends; the kind's `resend` values apply as there. A throttle
 * whose wait would end more than `deadlineSeconds` after the first one fails the job instead,
 * with `reason`. Answers 'snoozed' (send the message), or 'ended' (failed now, or ended before).
 *
 * `since: 'creation'` is the job's own wait (JobWaits: a call's dialling turn), not a throttle:
 * `throttled_since` is neither stamped nor cleared, and the bound counts from the job's
 * `created_at`, so waiting for a turn spends nothing of a throttle's budget and a wait that never
 * ends (a turn that keeps moving away, a clock that disagrees) still ends the job in time.
 */
export async function snoozeJob<T extends JobTable>(
  db: Database,
  spec: JobSpec<T> & { resend?: JobValues<T> },
  job: JobRef,
  options: {
    delaySeconds: number;
    deadlineSeconds: number;
    note: string;
    reason: string;
    since?: 'throttle' | 'creation';
    /** When the wait ends, if later than the message's delay (Queues delay at most 12 h): the bound applies to it. */
    waitSeconds?: number;
  },
): Promise<'snoozed' | 'ended'> {
  const table: JobTable = spec.table;
  const ownWait = options.since === 'creation';
  const due = sql`now() + make_interval(secs => ${options.delaySeconds})`;
  const from = ownWait ? sql`${table.createdAt}` : sql`coalesce(${table.throttledSince}, now())`;
  const ends = sql`now() + make_interval(secs => ${Math.max(options.delaySeconds, options.waitSeconds ?? 0)})`;
  const withinDeadline = sql`${from} + make_interval(secs => ${options.deadlineSeconds}) >= ${ends}`;
  return withTenant(db, job.orgId, async (tx) => {
    const snoozed = await tx
      .update(table)
      .set({
        ...(ownWait ? {} : { throttledSince: sql`coalesce(${table.throttledSince}, now())` }),
        error: options.note.slice(0, 1000),
        leaseExpiresAt: sql`greatest(${table.leaseExpiresAt}, ${due} + make_interval(secs => ${spec.leaseSeconds}))`,
        leaseResentAt: due,
        updatedAt: sql`now()`,
        ...spec.resend,
      } as JobValues<JobTable>)
      .where(whereOpen(spec, job, withinDeadline))
      .returning({ id: table.id });
    if (snoozed.length > 0) return 'snoozed';
    await failJobIn(tx, spec, job, options.reason, sql`not (${withinDeadline})`);
    return 'ended';
  });
}

/** The creator's notice of an ended job. */
function noticeOf(typeId: JobNotice['typeId'], job: object, text: JobNoticeText): JobNotice {
  const row = job as { organizationId: number; createdBy: number | null };
  return { orgId: row.organizationId, userId: row.createdBy, typeId, ...text };
}

/** Sent only from the statement that ended the job, so a redelivered message cannot notify twice. */
function notify(tx: Queryable, typeId: JobNotice['typeId'], job: object, text: JobNoticeText): Promise<void> {
  return notifyJobEnded(tx, noticeOf(typeId, job, text));
}
