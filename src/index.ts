/**
 * The Worker entry: HTTP requests go to the Hono app. Queue and cron handlers join here as
 * the modules that need them arrive.
 */
import { buildApp } from './app';
import type { Bindings } from './env';

const app = buildApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Bindings>;
