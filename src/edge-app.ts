/**
 * The edge Worker's app (entry src/edge.ts). It runs next to the caller (default placement) and
 * answers what needs no database there: the tracking pixel and the click redirect (signed tokens,
 * the hit queued in waitUntil). GETs that the API Worker marks shareable (`Cache-Control` with
 * `s-maxage`, e.g. public booking reads) are answered from the data centre's cache while fresh.
 * Everything else goes unchanged through the service binding `API` to the API Worker, which runs
 * next to the database (`[placement]` in wrangler.toml), so a request's many statements cross
 * the short distance and only one hop crosses the long one.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import type { AppEnv } from './core/context';
import { handleError } from './core/http';
import { requestLogger } from './core/log';
import { validationHook } from './core/routes';
import type { Bindings } from './env';
import { trackingHitRoutes } from './modules/tracking/hit-routes';

export type EdgeBindings = Pick<Bindings, 'EVENTS' | 'JWT_SECRET' | 'TRACKING_SECRET'> & {
  /** Service binding to the API Worker (lead-management-api). */
  API: Fetcher;
};

/** Says which path answered: `edge` (this Worker), `cache` (the edge cache), `api` (forwarded). */
export const SERVED_BY_HEADER = 'x-served-by';

const SHAREABLE = /(?:^|[\s,])s-maxage=\d+/i;

function servedBy(response: Response, by: 'edge' | 'cache' | 'api'): Response {
  // Responses from fetch and the cache have immutable headers: copy them (the body streams through).
  const copy = new Response(response.body, response);
  copy.headers.set(SERVED_BY_HEADER, by);
  return copy;
}

async function forwardToApi(c: Context<AppEnv>): Promise<Response> {
  const api = (c.env as unknown as EdgeBindings).API;
  const request = c.req.raw;
  // Only anonymous GETs are shared: a request with credentials always reaches the API Worker.
  const shareable =
    request.method === 'GET' && !request.headers.has('authorization') && !request.headers.has('x-api-key');
  if (!shareable) return servedBy(await api.fetch(request), 'api');
  const cache = caches.default;
  const cached = await cache.match(request);
  if (cached) return servedBy(cached, 'cache');
  const response = await api.fetch(request);
  if (response.status === 200 && SHAREABLE.test(response.headers.get('cache-control') ?? '')) {
    c.executionCtx.waitUntil(cache.put(request, response.clone()));
  }
  return servedBy(response, 'api');
}

export function buildEdgeApp() {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.use('*', requestLogger);
  app.use('/api/v1/track/*', secureHeaders({ crossOriginResourcePolicy: false }));
  app.use('/api/v1/track/*', async (c, next) => {
    await next();
    // Forwarded responses (another method on a tracking path) already say `api`.
    if (!c.res.headers.has(SERVED_BY_HEADER)) c.res.headers.set(SERVED_BY_HEADER, 'edge');
  });
  app.route('/', trackingHitRoutes);
  // Whatever the edge does not answer itself (other methods on the tracking paths included, so the
  // API Worker's 405 stays the one answer).
  app.all('*', forwardToApi);
  app.onError(handleError);
  return app;
}
