/**
 * The queue consumers. The jobs queue runs each message's handler; a handler that throws is
 * retried by the queue with a backoff and, after wrangler.toml's max_retries, moved to the
 * dead-letter queue, whose consumer ends the job as failed and tells its creator. Handlers are
 * idempotent (claims and checkpoints in Postgres), so redelivery and the outbox sweep's
 * occasional second send are harmless.
 */
import { openDatabase } from '../db/client';
import { readConfig, type Bindings } from '../env';
import { handlerFor } from './dispatch';
import type { JobMessage } from './messages';

/** wrangler.toml's dead_letter_queue of the jobs queue. */
export const DEAD_LETTER_QUEUE = 'lead-management-jobs-dlq';

function logFailure(message: Message<JobMessage>, stage: string, error: unknown): void {
  console.error(
    JSON.stringify({
      level: 'error',
      stage,
      job: message.body.kind,
      attempt: message.attempts,
      message: error instanceof Error ? error.message : String(error),
    }),
  );
}

export async function runJobBatch(batch: MessageBatch<JobMessage>, env: Bindings): Promise<void> {
  const handle = openDatabase(readConfig(env));
  try {
    for (const message of batch.messages) {
      try {
        await handlerFor(message.body).run(message.body, { db: handle.db, env, attempts: message.attempts });
        message.ack();
      } catch (error) {
        logFailure(message, 'run', error);
        message.retry({ delaySeconds: Math.min(60, 2 ** message.attempts) });
      }
    }
  } finally {
    await handle.close();
  }
}

/** Messages the jobs queue gave up on: each job is marked failed with a reason, once. */
export async function runDeadLetterBatch(batch: MessageBatch<JobMessage>, env: Bindings): Promise<void> {
  const handle = openDatabase(readConfig(env));
  try {
    for (const message of batch.messages) {
      try {
        await handlerFor(message.body).deadLettered(message.body, { db: handle.db, env });
        message.ack();
      } catch (error) {
        logFailure(message, 'dead-letter', error);
        message.retry({ delaySeconds: Math.min(300, 10 * 2 ** message.attempts) });
      }
    }
  } finally {
    await handle.close();
  }
}

/** The Worker's queue entry: the batch's queue decides which consumer runs. */
export function consumeQueue(batch: MessageBatch<JobMessage>, env: Bindings): Promise<void> {
  return batch.queue === DEAD_LETTER_QUEUE ? runDeadLetterBatch(batch, env) : runJobBatch(batch, env);
}
