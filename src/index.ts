/**
 * The Worker entry: HTTP requests go to the Hono app; queue batches (jobs and dead letters) to
 * the job runner; the cron trigger sweeps the job outbox and expired idempotency keys.
 */
import { buildApp } from './app';
import { runIdempotencySweep } from './core/idempotency';
import type { Bindings } from './env';
import type { JobMessage } from './jobs/messages';
import { runOutboxSweep } from './jobs/outbox';
import { consumeQueue } from './jobs/runner';

export { RateLimitCounter } from './core/rate-limit-counter';

const app = buildApp();

export default {
  fetch: app.fetch,
  queue: (batch, env) => consumeQueue(batch, env),
  scheduled: async (_controller, env) => {
    // Independent sweeps: one failing does not keep the other from running.
    const outcomes = await Promise.allSettled([runOutboxSweep(env), runIdempotencySweep(env)]);
    for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;
  },
} satisfies ExportedHandler<Bindings, JobMessage>;
