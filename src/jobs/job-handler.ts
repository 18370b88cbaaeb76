/**
 * What a job kind provides to the dispatcher (src/jobs/dispatch.ts): how to run one delivery of
 * its message, and how to end the job once the queue has given up on the message.
 */
import type { Database } from '../db/client';
import type { Bindings } from '../env';
import type { JobKind, JobMessage } from './messages';

export interface JobContext {
  db: Database;
  env: Bindings;
  /** This delivery's number, from the queue (1 on the first delivery). */
  attempts: number;
}

export type MessageOf<K extends JobKind> = Extract<JobMessage, { kind: K }>;

export interface JobHandler<K extends JobKind> {
  /** One delivery; throwing asks the queue to retry it (then to dead-letter it). */
  run(message: MessageOf<K>, context: JobContext): Promise<void>;
  /**
   * The message dead-lettered after its last retry: mark the job failed with a reason fit for
   * the user (never raw database text) and notify its creator, once even if redelivered.
   */
  deadLettered(message: MessageOf<K>, context: Omit<JobContext, 'attempts'>): Promise<void>;
}
