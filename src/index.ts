/**
 * The Worker entry: HTTP requests go to the Hono app; queue batches (jobs and dead letters) to
 * the job runner, those of the events queue (tracking hits) to the events runner; the cron trigger sweeps the job outbox
 * and expired idempotency keys.
 */
import { buildApp } from './app';
import { runIdempotencySweep } from './core/idempotency';
import type { Bindings } from './env';
import { consumeEvents, isEventsQueue } from './jobs/events-runner';
import type { JobMessage } from './jobs/messages';
import { runOutboxSweep } from './jobs/outbox';
import { consumeQueue } from './jobs/runner';
import type { TrackingHit } from './modules/tracking/hits';

export { RateLimitCounter } from './core/rate-limit-counter';

const app = buildApp();

export default {
  fetch: app.fetch,
  queue: (batch, env) =>
    isEventsQueue(batch.queue)
      ? consumeEvents(batch as MessageBatch<unknown>, env)
      : consumeQueue(batch as MessageBatch<JobMessage>, env),
  scheduled: async (_controller, env) => {
    // Independent sweeps: one failing does not keep the other from running.
    const outcomes = await Promise.allSettled([runOutboxSweep(env), runIdempotencySweep(env)]);
    for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;
  },
} satisfies ExportedHandler<Bindings, JobMessage | TrackingHit>;
