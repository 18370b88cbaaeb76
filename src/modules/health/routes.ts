/**
 * Liveness with a real database round trip.
 */
import { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import { ServiceUnavailable } from '../../core/errors';
import { ok } from '../../core/http';
import { logError } from '../../core/log';
import { createRouter, defineRoute, envelope } from '../../core/routes';

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
      200: envelope(z.object({ status: z.literal('ok'), database: z.literal('ok') })),
      503: { description: 'The database is unreachable' },
    },
  }),
  async (c) => {
    try {
      await c.var.database().execute(sql`select 1`);
    } catch (error) {
      logError(c, error);
      throw new ServiceUnavailable('Database unreachable');
    }
    return ok(c, { status: 'ok' as const, database: 'ok' as const });
  },
);
