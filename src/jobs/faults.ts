/**
 * What may end a job delivery, and what each ending means. A handler declares its retry policy
 * (`RetryPolicy`): a transient fault (the database connection dropped, a provider or storage
 * answered 5xx or 429) is retried by the queue; a permanent one fails the job at once with a
 * reason the user reads. Another delivery owning the job is neither: the delivery stops quietly.
 */
import { errorText, log } from '../core/log';
import { pgError } from '../db/errors';
import { ProviderFailure } from '../providers/failures';

/** Another delivery of the same message has moved the job on, or it ended: this one stops, acknowledged. */
export class JobSuperseded extends Error {
  constructor() {
    super('the job is owned by another delivery or has ended');
  }
}

/** A fault outside our code that may pass (a provider's 5xx or 429): provider adapters throw it. */
export class TransientFault extends Error {}

/**
 * How long after it was queued a job may still be deferred for a wait of its own (JobWaits): 24
 * hours, as long as a queued job may go unclaimed (lease-sweep.ts). A call's turn is fixed when
 * it is queued, so a job normally waits once; only a turn that never comes ends it (which is why
 * POST /api/call/agent/initiate refuses a turn further ahead, agent-calls.ts).
 */
export const WAIT_DEADLINE_SECONDS = 24 * 3600;

/** A fault no retry can mend; its message is the reason the user reads on the job. */
export class PermanentJobFault extends Error {}

/**
 * Not a fault: the job chose to wait (its own pacing, such as a call's dialling turn) and says how
 * long. The runner defers it as it snoozes a throttled job (no queue retry spent), but bounds the
 * waiting from the job's creation (WAIT_DEADLINE_SECONDS, runner.ts), not with the throttle's
 * `throttled_since`: a wait of ours is not the provider's throttle.
 */
export class JobWaits extends Error {
  constructor(
    /** How long until the job can go on (seconds). */
    readonly delaySeconds: number,
    /** What it waits for, shown on the job while it waits. */
    readonly note: string,
    /** The reason, fit for the user, the job fails with once waiting would outlast the bound. */
    readonly tooLongReason: string,
  ) {
    super(note);
  }
}

/**
 * wrangler.toml's max_retries of the jobs queue: a delivery whose attempt (from 1) is past it is
 * the last one, and a failure it throws dead-letters the job.
 */
export const JOBS_MAX_RETRIES = 5;

/** Whether a delivery (its queue attempt, from 1) is the last before the job is given up on. */
export const isLastAttempt = (attempts: number) => attempts > JOBS_MAX_RETRIES;

export interface RetryPolicy {
  /** The reason, fit for the user, to fail the job at once; null to let the queue retry the delivery. */
  permanentReason(error: unknown): string | null;
}

/**
 * SQLSTATEs of a lost or refused connection and of conflicts that pass on their own: class 08
 * (connection exception), the server shutting down or starting (57P01-57P03), too many
 * connections (53300), serialization failures and deadlocks (40001, 40P01).
 */
const TRANSIENT_SQLSTATE = /^(08...|57P0[1-3]|53300|40001|40P01)$/;
/** How a dropped socket shows in the driver (node-postgres over Neon's WebSocket) when it has no SQLSTATE. */
const DROPPED_CONNECTION =
  /connection terminated|connection (was )?(closed|reset|refused)|ECONNRESET|ECONNREFUSED|ETIMEDOUT|EPIPE|socket hang up|websocket/i;
/** R2's Workers API ends an error message with its code: internal error, unavailable, too many requests. */
const TRANSIENT_R2_CODE = /\((10001|10043|10058)\)\s*$/;

/** Whether `error` (or any error in its `cause` chain) is a fault that a later attempt may not meet. */
export function isTransientFault(error: unknown): boolean {
  const code = pgError(error)?.code;
  if (code) return TRANSIENT_SQLSTATE.test(code);
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (current instanceof TransientFault) return true;
    const message = current instanceof Error ? current.message : String(current);
    if (DROPPED_CONNECTION.test(message) || TRANSIENT_R2_CODE.test(message)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** Fails at once only on a PermanentJobFault (its message is the reason); retries anything else. */
export const retryUnlessPermanent: RetryPolicy = {
  permanentReason: (error) => (error instanceof PermanentJobFault ? error.message : null),
};

/** Retries transient faults only; anything else fails the job at once with `reason(error)`. */
export function retryTransientOnly(reason: (error: unknown) => string): RetryPolicy {
  return {
    permanentReason: (error) => {
      if (error instanceof PermanentJobFault) return error.message;
      return isTransientFault(error) ? null : reason(error);
    },
  };
}

/**
 * What a job's `error` may say about a failure that is not the user's file or input: never the
 * database's or the runtime's own text (it can name tables, constraints and values of other
 * rows), only that the failure was internal, with the SQLSTATE for support when there is one.
 * The full error goes to the log.
 */
export function userFacingJobError(error: unknown): string {
  // A provider's failure carries a reason written for the user (never the provider's own text).
  if (error instanceof ProviderFailure) return error.reason;
  log.error('job failure', { error: errorText(error) });
  const code = pgError(error)?.code;
  if (code) return `an internal database error (SQLSTATE ${code})`;
  return 'an internal error';
}

/**
 * The provider's throttle in `error` (or its `cause` chain): a 429 that asks us to wait. That is
 * no failure of ours, so the runner snoozes the job instead of spending a queue retry on it.
 */
export function throttleOf(error: unknown): ProviderFailure | null {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (current instanceof ProviderFailure)
      return current.kind === 'unavailable' && current.status === 429 ? current : null;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

/** Queues' longest delay of a message (12 hours). */
const MAX_QUEUE_DELAY_SECONDS = 12 * 3600;

/**
 * How long the queue waits before delivering a failed message again: a backoff of the attempts
 * (2, 4, 8 … 60 s), or longer when a provider that is throttling or down said how long to wait
 * (its Retry-After: HubSpot's daily limit asks an hour), so a retry does not meet the same 429.
 */
/**
 * How long a throttled job is snoozed: the provider's own wait (its Retry-After, at least a
 * second, at most Queues' 12 h), not the backoff of the message's attempts, which it does not spend.
 */
export function snoozeDelaySeconds(throttle: ProviderFailure): number {
  return Math.min(MAX_QUEUE_DELAY_SECONDS, Math.max(1, Math.ceil(throttle.retryAfterSeconds ?? 30)));
}

/** How long a waiting job is deferred: its own wait, at least a second, at most Queues' 12 h (a longer wait is deferred again). */
export function waitDelaySeconds(wait: JobWaits): number {
  return Math.min(MAX_QUEUE_DELAY_SECONDS, Math.max(1, Math.ceil(wait.delaySeconds)));
}

export function retryDelaySeconds(error: unknown, attempts: number): number {
  const backoff = Math.min(60, 2 ** attempts);
  const asked = error instanceof ProviderFailure && error.kind === 'unavailable' ? (error.retryAfterSeconds ?? 0) : 0;
  return Math.min(MAX_QUEUE_DELAY_SECONDS, Math.max(backoff, Math.ceil(asked)));
}
