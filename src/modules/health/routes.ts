/**
 * Liveness with a real database round trip.
 */
import { ServiceUnavailable } from '../../core/errors';
import { ok } from '../../core/http';
import { logError } from '../../core/log';
import { createRouter, defineRoute, envelope } from '../../core/routes';
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
    auth: 'public',
    responses: {
      200: envelope(HealthSchema),
      503: { description: 'The database is unreachable' },
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
