/**
 * The queue consumers. The jobs queue runs each message's handler and applies its retry policy
 * to a failure: a permanent fault fails the job at once with the handler's reason; a transient
 * one is noted on the job and retried by the queue with a backoff and, after wrangler.toml's
 * max_retries, moved to the dead-letter queue, whose consumer fails the job with the handler's
 * reason. Either way the creator is told once. Handlers are idempotent (claims and checkpoints
 * in Postgres), so redelivery, the outbox sweep's occasional second send and the lease sweep's
 * re-sends are harmless.
 *
 * A provider's throttle (a 429 with its wait) is no failure of ours and spends no retry: the job
 * is snoozed (snoozeJob), the delivery acknowledged and the job's message sent again with the
 * provider's wait as its delay, a fresh message with its own max_retries. Snoozing is bounded by
 * time: a job throttled without a checkpoint for THROTTLE_DEADLINE_SECONDS fails with a reason
 * that says so. If that send fails, the queue retries the delivery as before (a retry spent).
 *
 * A job that waits by its own choice (JobWaits: a call waiting for its dialling turn under our
 * calls-per-second pacing) is deferred the same way, for its own wait, spending no retry either;
 * it is no throttle, so it leaves `throttled_since` alone and is bounded instead from the job's
 * creation: a job still waiting WAIT_DEADLINE_SECONDS after it was queued fails with its reason.
 */
import { errorText, log } from '../core/log';
import { withOwnDatabase, type Database } from '../db/client';
import { readConfig, type Bindings } from '../env';
import { handlerFor } from './dispatch';
import {
  JobSuperseded,
  JobWaits,
  retryDelaySeconds,
  snoozeDelaySeconds,
  throttleOf,
  userFacingJobError,
  WAIT_DEADLINE_SECONDS,
  waitDelaySeconds,
} from './faults';
import { failJob, noteRetry, snoozeJob } from './lifecycle';
import type { JobMessage } from './messages';

/** wrangler.toml's dead_letter_queue of the jobs queue. */
export const DEAD_LETTER_QUEUE = 'lead-management-jobs-dlq';

function logFailure(message: Message<JobMessage>, stage: string, error: unknown): void {
  log.error('job delivery failed', {
    stage,
    job: message.body.kind,
    org_id: message.body.orgId,
    job_id: message.body.jobId,
    attempt: message.attempts,
    error: errorText(error),
  });
}

/** How long after its first throttle (since its last checkpoint) a job may still be snoozed: 24 hours. */
export const THROTTLE_DEADLINE_SECONDS = 24 * 3600;

/** The reason a job throttled past THROTTLE_DEADLINE_SECONDS fails with. */
export function throttledTooLongReason(provider: string, reason: string): string {
  const hours = Math.round(THROTTLE_DEADLINE_SECONDS / 3600);
  return `${provider} kept rate limiting this job for ${hours} hours without letting it go on, so it was stopped (last answer: ${reason}).`;
}

export { WAIT_DEADLINE_SECONDS };

/**
 * Acknowledge the message; have the queue deliver it again after `retryIn` seconds (a retry
 * spent); or acknowledge it and send the job's message again after `snoozeFor` seconds.
 */
type Outcome = 'ack' | { retryIn: number } | { snoozeFor: number };

/**
 * Snoozes the job (snoozeJob) for `delaySeconds`: the message is sent again with that delay and
 * this delivery acknowledged; 'ack' when the job ended instead; null when the database failed
 * (the queue retries the delivery, as for any failure).
 */
async function snooze(
  message: Message<JobMessage>,
  db: Database,
  handler: ReturnType<typeof handlerFor>,
  options: Parameters<typeof snoozeJob>[3],
): Promise<Outcome | null> {
  const snoozed = await snoozeJob(db, handler, message.body, options).catch((snoozeError) => {
    logFailure(message, 'snooze', snoozeError);
    return null;
  });
  if (snoozed === 'snoozed') return { snoozeFor: options.delaySeconds };
  if (snoozed === 'ended') return 'ack';
  return null;
}

/** One delivery of one message, with the handler's retry policy applied: whether to acknowledge it. */
async function deliver(message: Message<JobMessage>, db: Database, env: Bindings): Promise<Outcome> {
  const handler = handlerFor(message.body);
  try {
    await handler.run(message.body, { db, env, attempts: message.attempts });
    return 'ack';
  } catch (error) {
    if (error instanceof JobSuperseded) return 'ack';
    if (error instanceof JobWaits) {
      // Our own pacing, not a failure: deferred without spending a retry, bounded from the job's creation.
      const delaySeconds = waitDelaySeconds(error);
      const deferred = await snooze(message, db, handler, {
        delaySeconds,
        deadlineSeconds: WAIT_DEADLINE_SECONDS,
        note: `${error.note}, trying again in ${delaySeconds} s`,
        reason: error.tooLongReason,
        since: 'creation',
        waitSeconds: error.delaySeconds,
      });
      if (deferred) return deferred;
      return { retryIn: Math.min(delaySeconds, retryDelaySeconds(null, message.attempts)) };
    }
    logFailure(message, 'run', error);
    const reason = handler.retry.permanentReason(error);
    if (reason !== null) {
      await failJob(db, handler, message.body, reason);
      return 'ack';
    }
    const delaySeconds = retryDelaySeconds(error, message.attempts);
    const throttle = throttleOf(error);
    if (throttle) {
      const snoozeFor = snoozeDelaySeconds(throttle);
      const snoozed = await snooze(message, db, handler, {
        delaySeconds: snoozeFor,
        deadlineSeconds: THROTTLE_DEADLINE_SECONDS,
        note: `throttled, trying again in ${snoozeFor} s: ${throttle.reason}`,
        reason: throttledTooLongReason(throttle.provider, throttle.reason),
      });
      if (snoozed) return snoozed;
    }
    // Best effort: the note only informs; the retry must happen even if the database is the fault.
    await noteRetry(
      db,
      handler,
      message.body,
      `attempt ${message.attempts} failed, retrying: ${userFacingJobError(error)}`,
      delaySeconds,
    ).catch((noteError) => logFailure(message, 'note retry', noteError));
    return { retryIn: delaySeconds };
  }
}

/**
 * The batch's messages that kinds with `runTogether` finished together (acknowledged here);
 * every other message goes through `deliver`. A kind whose `runTogether` throws has its messages
 * delivered one by one, where the failure meets the retry policy.
 */
async function deliverTogether(messages: readonly Message<JobMessage>[], db: Database, env: Bindings) {
  const byKind = new Map<JobMessage['kind'], Message<JobMessage>[]>();
  for (const message of messages) {
    if (!handlerFor(message.body).runTogether) continue;
    const ofKind = byKind.get(message.body.kind) ?? [];
    ofKind.push(message);
    byKind.set(message.body.kind, ofKind);
  }
  const done = new Set<Message<JobMessage>>();
  for (const ofKind of byKind.values()) {
    const handler = handlerFor(ofKind[0].body);
    try {
      const finished = (await handler.runTogether?.(
        ofKind.map((message) => message.body),
        { db, env },
      )) as boolean[];
      ofKind.forEach((message, i) => {
        if (finished[i]) done.add(message);
      });
    } catch (error) {
      logFailure(ofKind[0], 'run together', error);
    }
  }
  for (const message of done) message.ack();
  return done;
}

export async function runJobBatch(batch: MessageBatch<JobMessage>, env: Bindings): Promise<void> {
  return withOwnDatabase(readConfig(env), async (db) => {
    const done = await deliverTogether(batch.messages, db, env);
    for (const message of batch.messages) {
      if (done.has(message)) continue;
      let outcome: Outcome = { retryIn: retryDelaySeconds(null, message.attempts) };
      try {
        outcome = await deliver(message, db, env);
      } catch (error) {
        // Failing the job itself failed (the database is gone): the redelivery tries again.
        logFailure(message, 'fail', error);
      }
      if (outcome !== 'ack' && 'snoozeFor' in outcome) {
        const delaySeconds = outcome.snoozeFor;
        // Sent before the ack: if the send fails, the queue's retry still brings the job back.
        outcome = await env.JOBS.send(message.body, { delaySeconds }).then(
          (): Outcome => 'ack',
          (error): Outcome => {
            logFailure(message, 'snooze send', error);
            return { retryIn: delaySeconds };
          },
        );
      }
      if (outcome === 'ack') message.ack();
      else message.retry({ delaySeconds: 'retryIn' in outcome ? outcome.retryIn : 0 });
    }
  });
}

/** Messages the jobs queue gave up on: each job is marked failed with its handler's reason, once. */
export async function runDeadLetterBatch(batch: MessageBatch<JobMessage>, env: Bindings): Promise<void> {
  return withOwnDatabase(readConfig(env), async (db) => {
    for (const message of batch.messages) {
      try {
        const handler = handlerFor(message.body);
        await failJob(db, handler, message.body, handler.reasons.deadLettered);
        message.ack();
      } catch (error) {
        logFailure(message, 'dead-letter', error);
        message.retry({ delaySeconds: Math.min(300, 10 * 2 ** message.attempts) });
      }
    }
  });
}

/** The Worker's queue entry: the batch's queue decides which consumer runs. */
export function consumeQueue(batch: MessageBatch<JobMessage>, env: Bindings): Promise<void> {
  return batch.queue === DEAD_LETTER_QUEUE ? runDeadLetterBatch(batch, env) : runJobBatch(batch, env);
}
