/**
 * Liveness with a real database round trip.
 */
import { ServiceUnavailable } from '../../core/errors';
import { ok } from '../../core/http';
import { logError } from '../../core/log';
import { createRouter, defineRoute, envelope, ErrorEnvelope } from '../../core/routes';
import { HealthSchema } from './schemas';
import { checkDatabase } from './service';

export const healthRoutes = createRouter();

healthRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/health',
    operationId: 'health',
    tags: ['Health'],
    summary: 'Service and database health',
    description:
      'Reports whether the Worker is up and its database answers a trivial query. Public: no credentials. Answers 503 with the same body shape when the database is unreachable; use it for load-balancer and uptime checks.',
    auth: 'public',
    responses: {
      200: envelope(HealthSchema),
      503: {
        description:
          'The database is unreachable (error.type service_unavailable); the load balancer should route elsewhere',
        content: { 'application/json': { schema: ErrorEnvelope } },
      },
    },
  }),
  async (c) => {
    try {
      await checkDatabase(c.var.database());
    } catch (error) {
      logError(c, error);
      throw new ServiceUnavailable('Database unreachable');
    }
    return ok(c, { status: 'ok' as const, database: 'ok' as const });
  },
);
