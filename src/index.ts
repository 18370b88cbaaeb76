/**
 * The Worker entry: HTTP requests go to the Hono app; queue batches to the job runner.
 */
import { buildApp } from './app';
import type { Bindings } from './env';
import './jobs/handlers';
import type { JobMessage } from './jobs/messages';
import { runJobBatch } from './jobs/runner';

const app = buildApp();

export default {
  fetch: app.fetch,
  queue: (batch, env) => runJobBatch(batch, env),
} satisfies ExportedHandler<Bindings, JobMessage>;
