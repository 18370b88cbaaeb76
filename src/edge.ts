/**
 * The edge Worker's entry (wrangler.edge.toml): see src/edge-app.ts. It has no database, no
 * queue consumer and no cron trigger; the API Worker (src/index.ts) has them all.
 */
import { buildEdgeApp, type EdgeBindings } from './edge-app';

/** A service binding can also deliver a scheduled event (workerd's Fetcher; not in workers-types). */
type ScheduledFetcher = Fetcher & { scheduled(options: { cron: string; scheduledTime: Date }): Promise<unknown> };

const app = buildEdgeApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
  // Never fired in production (no cron trigger here). Locally the edge Worker serves the port of
  // `wrangler dev --test-scheduled`, so its /__scheduled lands here: hand it to the API Worker,
  // whose sweeps it is meant to run.
  scheduled: async (controller, env) => {
    await (env.API as ScheduledFetcher).scheduled({
      cron: controller.cron,
      scheduledTime: new Date(controller.scheduledTime),
    });
  },
} satisfies ExportedHandler<EdgeBindings>;
