/**
 * Liveness with a real database round trip.
 */
import { ServiceUnavailable } from '../../core/errors';
import { APP_ROLE_NOT_GRANTED, appRoleNotGranted, DATABASE_RETRY_AFTER_SECONDS, ok } from '../../core/http';
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
    description: `Reports whether the Worker is up, its database answers, and the role the Worker connects as may switch to the application role \`lm_app\` (which every tenant request does). Public: no credentials. Answers 503 with the failure envelope when the database is unreachable (error.code \`database_unavailable\`, with Retry-After), or when the connecting role cannot SET ROLE lm_app (error.code \`${APP_ROLE_NOT_GRANTED}\`: an operator must run \`GRANT lm_app TO <role>\` as a role with ADMIN OPTION on lm_app). Use it for load-balancer and uptime checks.`,
    auth: 'public',
    responses: {
      200: envelope(HealthSchema),
      503: {
        description: `The database is unreachable (error.code database_unavailable, with Retry-After), or the role the Worker connects as cannot SET ROLE lm_app (error.code ${APP_ROLE_NOT_GRANTED}); the load balancer should route elsewhere`,
        content: { 'application/json': { schema: ErrorEnvelope } },
      },
    },
  }),
  async (c) => {
    let health: Awaited<ReturnType<typeof checkDatabase>>;
    try {
      health = await checkDatabase(c.var.database());
    } catch (error) {
      logError(c, error);
      throw new ServiceUnavailable('Database unreachable', 'database_unavailable', DATABASE_RETRY_AFTER_SECONDS);
    }
    if (!health.canScope) {
      const refusal = appRoleNotGranted();
      logError(c, new Error(`${refusal.message} (connecting role: ${health.role})`));
      throw refusal;
    }
    return ok(c, { status: 'ok' as const, database: 'ok' as const });
  },
);
