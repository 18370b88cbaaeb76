/**
 * The queue consumer: dispatches each message to its handler with a database handle and the
 * bindings. A handler that throws is retried by the queue (then dead-lettered); handlers must
 * therefore be idempotent, which they achieve by checkpointing in Postgres.
 */
import { openDatabase, type Database } from '../db/client';
import { readConfig, type Bindings } from '../env';
import type { JobKind, JobMessage } from './messages';

export interface JobContext {
  db: Database;
  env: Bindings;
}

type Handler<K extends JobKind> = (message: Extract<JobMessage, { kind: K }>, context: JobContext) => Promise<void>;

const handlers: { [K in JobKind]?: Handler<K> } = {};

/** Called by each job module at import time (see jobs/index.ts). */
export function registerJobHandler<K extends JobKind>(kind: K, handler: Handler<K>): void {
  (handlers as Record<string, unknown>)[kind] = handler;
}

export async function runJobBatch(batch: MessageBatch<JobMessage>, env: Bindings): Promise<void> {
  const handle = openDatabase(readConfig(env));
  try {
    for (const message of batch.messages) {
      const handler = handlers[message.body.kind] as Handler<JobKind> | undefined;
      if (!handler) {
        console.error(JSON.stringify({ level: 'error', job: message.body.kind, message: 'no handler for job kind' }));
        message.ack();
        continue;
      }
      try {
        await handler(message.body, { db: handle.db, env });
        message.ack();
      } catch (error) {
        console.error(
          JSON.stringify({ level: 'error', job: message.body.kind, attempt: message.attempts, message: error instanceof Error ? error.message : String(error) }),
        );
        message.retry({ delaySeconds: Math.min(60, 2 ** message.attempts) });
      }
    }
  } finally {
    await handle.close();
  }
}
