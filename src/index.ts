/**
 * The Worker entry: HTTP requests go to the Hono app; queue batches (jobs and dead letters) to
 * the job runner, those of the events queue (tracking hits) to the events runner; the cron trigger sweeps the job outbox.
 */
import { buildApp } from './app';
import type { Bindings } from './env';
import { consumeEvents, isEventsQueue } from './jobs/events-runner';
import type { JobMessage } from './jobs/messages';
import { runOutboxSweep } from './jobs/outbox';
import { consumeQueue } from './jobs/runner';
import type { TrackingHit } from './modules/tracking/hits';

const app = buildApp();

export default {
  fetch: app.fetch,
  queue: (batch, env) =>
    isEventsQueue(batch.queue)
      ? consumeEvents(batch as MessageBatch<unknown>, env)
      : consumeQueue(batch as MessageBatch<JobMessage>, env),
  scheduled: async (_controller, env) => {
    await runOutboxSweep(env);
  },
} satisfies ExportedHandler<Bindings, JobMessage | TrackingHit>;
