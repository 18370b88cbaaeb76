/**
 * What a job kind provides to the runner (src/jobs/runner.ts): its row and lease (JobSpec), its
 * retry policy, the reasons its creator reads when the queue or the lease sweep gives up, and
 * how to run one delivery. Everything else (claim, heartbeat, finish, fail, dead letters,
 * stalled jobs, notices) is the shared lifecycle's (src/jobs/lifecycle.ts); docs/notes/jobs.md
 * says how to add a kind.
 */
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Database } from '../db/client';
import type { Bindings } from '../env';
import type { RetryPolicy } from './faults';
import type { JobSpec, JobTable, JobValues } from './lifecycle';
import type { JobKind, JobMessage } from './messages';

export interface JobContext {
  db: Database;
  env: Bindings;
  /** This delivery's number, from the queue (1 on the first delivery). */
  attempts: number;
}

export type MessageOf<K extends JobKind> = Extract<JobMessage, { kind: K }>;

export interface JobHandler<K extends JobKind, T extends JobTable = JobTable> extends JobSpec<T> {
  /**
   * Which failures of `run` end the job at once (with a reason for the user) and which the
   * queue retries; after wrangler.toml's max_retries the message dead-letters.
   */
  retry: RetryPolicy;
  /** Reasons fit for the user (never raw database text) when the job is given up on. */
  reasons: {
    /** The queue retried the message until its last attempt. */
    deadLettered: string;
    /** The job kept stopping without failing: the lease sweep re-sent it MAX_LEASE_RESENDS times. */
    stalled: string;
    /**
     * Optional: the job was never claimed by its deadline (queuedDeadlineSeconds): its message
     * waited in the queue, or was lost, and the sweep's re-sends did not get it picked up either.
     * Without one the sweep says so in general words.
     */
    neverPickedUp?: string;
  };
  /**
   * Optional: how long after its creation a job may still wait never claimed (status `queued`)
   * before the lease sweep fails it with `reasons.neverPickedUp`; until then the sweep re-sends
   * it with a backoff. Default QUEUED_JOB_DEADLINE_SECONDS (24 h) in lease-sweep.ts.
   */
  queuedDeadlineSeconds?: number;
  /**
   * Optional: since when a `queued` job has been waiting for a delivery (default its creation;
   * a kind that schedules its own later attempts names the due time). The sweep's backoff
   * between re-sends grows with the wait.
   */
  waitingSince?: PgColumn;
  /**
   * Optional: what the lease sweep sets on an expired claimed job (`running`) it re-sends, beside
   * the count and the new lease. A kind whose claim refuses a job another delivery holds (the webhook delivery's
   * attempt: `running` under a lease) releases it here, or the re-sent message, finding the lease
   * the sweep just renewed, would leave the job to a delivery that no longer exists.
   */
  resend?: JobValues<T>;
  /**
   * One delivery: claim the job (claimJob), work with a heartbeat at each checkpoint, finish it
   * (finishJob). Throwing hands the error to the retry policy; JobSuperseded stops quietly.
   */
  run(message: MessageOf<K>, context: JobContext): Promise<void>;
  /**
   * Optional: runs the messages of this kind that one queue batch brought, together (a kind
   * whose small jobs cost fewer statements together than one by one). Answers, for each message,
   * whether it is done (acknowledged); the runner hands every other one to `run`, which applies
   * the retry policy. It must leave a message it does not finish as if it had not seen it, and
   * throwing hands them all to `run`.
   */
  runTogether?(messages: MessageOf<K>[], context: Omit<JobContext, 'attempts'>): Promise<boolean[]>;
}
