/**
 * One structured JSON line per request (method, route, status, duration, org id, request id).
 * Never logs headers, bodies, tokens, passwords or keys.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from './context';

const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;

export const requestLogger: MiddlewareHandler<AppEnv> = async (c, next) => {
  const started = Date.now();
  const incoming = c.req.header('x-request-id');
  const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
  c.set('requestId', requestId);
  c.header('x-request-id', requestId);
  await next();
  c.header('x-request-id', requestId);
  console.log(
    JSON.stringify({
      level: 'info',
      request_id: requestId,
      method: c.req.method,
      route: c.req.routePath,
      status: c.res.status,
      duration_ms: Date.now() - started,
      org_id: c.get('logOrgId') ?? null,
    }),
  );
};

export function logError(c: Context, error: unknown): void {
  const err = error instanceof Error ? error : new Error(String(error));
  console.error(
    JSON.stringify({
      level: 'error',
      request_id: c.get('requestId') ?? null,
      route: c.req.routePath,
      error: err.name,
      message: err.message,
      stack: err.stack,
    }),
  );
}
