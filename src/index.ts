/**
 * The Worker entry: HTTP requests go to the Hono app; queue batches (jobs and dead letters) to
 * the job runner; the cron trigger sweeps the job outbox.
 */
import { buildApp } from './app';
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
    await runOutboxSweep(env);
  },
} satisfies ExportedHandler<Bindings, JobMessage>;
