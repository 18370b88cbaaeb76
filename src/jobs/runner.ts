/**
 * The queue consumers. The jobs queue runs each message's handler and applies its retry policy
 * to a failure: a permanent fault fails the job at once with the handler's reason; a transient
 * one is noted on the job and retried by the queue with a backoff and, after wrangler.toml's
 * max_retries, moved to the dead-letter queue, whose consumer fails the job with the handler's
 * reason. Either way the creator is told once. Handlers are idempotent (claims and checkpoints
 * in Postgres), so redelivery, the outbox sweep's occasional second send and the lease sweep's
 * re-sends are harmless.
 */
import { errorText, log } from '../core/log';
import { withOwnDatabase, type Database } from '../db/client';
import { readConfig, type Bindings } from '../env';
import { handlerFor } from './dispatch';
import { JobSuperseded, retryDelaySeconds, userFacingJobError } from './faults';
import { failJob, noteRetry } from './lifecycle';
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

/** Acknowledge the message, or have the queue deliver it again after `retryIn` seconds. */
type Outcome = 'ack' | { retryIn: number };

/** One delivery of one message, with the handler's retry policy applied: whether to acknowledge it. */
async function deliver(message: Message<JobMessage>, db: Database, env: Bindings): Promise<Outcome> {
  const handler = handlerFor(message.body);
  try {
    await handler.run(message.body, { db, env, attempts: message.attempts });
    return 'ack';
  } catch (error) {
    if (error instanceof JobSuperseded) return 'ack';
    logFailure(message, 'run', error);
    const reason = handler.retry.permanentReason(error);
    if (reason !== null) {
      await failJob(db, handler, message.body, reason);
      return 'ack';
    }
    const delaySeconds = retryDelaySeconds(error, message.attempts);
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
      if (outcome === 'ack') message.ack();
      else message.retry({ delaySeconds: outcome.retryIn });
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
