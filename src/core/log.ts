/**
 * One structured JSON line per request (method, route, status, duration, org id, request id).
 * Never logs headers, bodies, tokens, passwords or keys. The request id comes from hono's
 * request-id middleware: the caller's `x-request-id` when it is well formed (letters, digits,
 * `_`, `-`, `=`, at most 128 characters), a random UUID otherwise, echoed on the response.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { requestId } from 'hono/request-id';
import type { AppEnv } from './context';

const REQUEST_ID_HEADER = 'x-request-id';

const assignRequestId = requestId({ headerName: REQUEST_ID_HEADER, limitLength: 128 });

export const requestLogger: MiddlewareHandler<AppEnv> = async (c, next) => {
  const started = Date.now();
  await assignRequestId(c, next);
  console.log(
    JSON.stringify({
      level: 'info',
      request_id: c.get('requestId'),
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
