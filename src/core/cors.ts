/**
 * CORS, two rules (hono/cors):
 * - `/api/v1/*` (API-key and public routes, called from customers' sites): a preflight from any
 *   origin is answered (methods GET/POST; headers content-type, x-api-key, idempotency-key;
 *   cached PREFLIGHT_MAX_AGE_SECONDS). The real request reflects the Origin only when the key
 *   accepts it (core/auth/api-key.ts), so a key restricted by allowed_domains is readable only
 *   from those domains.
 * - the bearer API (every other `/api/*` path): only the origins listed in CORS_ORIGINS
 *   (comma-separated; none by default) are answered, preflight and real request alike.
 */
import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import type { AppEnv } from './context';

/** Browsers cap it anyway (Chromium at 2 hours). */
export const PREFLIGHT_MAX_AGE_SECONDS = 7200;

/** Response headers a cross-origin page may read. */
export const CORS_EXPOSED_HEADERS = [
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'Idempotent-Replayed',
  'x-request-id',
  'ETag',
];

const apiKeyPreflight = cors({
  origin: (origin) => origin || null,
  allowMethods: ['GET', 'POST'],
  allowHeaders: ['content-type', 'x-api-key', 'idempotency-key'],
  maxAge: PREFLIGHT_MAX_AGE_SECONDS,
});

/** Preflights of `/api/v1/*`; the real request's CORS headers are the API-key middleware's. */
export const ingestionCors: MiddlewareHandler<AppEnv> = (c, next) =>
  c.req.method === 'OPTIONS' ? apiKeyPreflight(c, next) : next();

const bearerCorsByList = new Map<string, MiddlewareHandler<AppEnv>>();

function bearerCorsFor(origins: string[]): MiddlewareHandler<AppEnv> {
  const cacheKey = origins.join(',');
  let handler = bearerCorsByList.get(cacheKey);
  if (!handler) {
    handler = cors({
      origin: origins,
      // Every method a bearer route is declared with (pipelines and dashboards update by PUT,
      // target accounts and webhooks by PATCH): a listed origin's page may call all of them.
      allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      allowHeaders: ['authorization', 'content-type', 'idempotency-key', 'if-none-match'],
      exposeHeaders: CORS_EXPOSED_HEADERS,
      maxAge: PREFLIGHT_MAX_AGE_SECONDS,
    });
    bearerCorsByList.set(cacheKey, handler);
  }
  return handler;
}

/** The bearer API: CORS only for the configured origins; without any, no CORS at all (as before). */
export const bearerCors: MiddlewareHandler<AppEnv> = (c, next) => {
  const origins = c.var.config.CORS_ORIGINS;
  const origin = c.req.header('origin');
  if (origins.length === 0 || !origin || !origins.includes(origin)) return next();
  return bearerCorsFor(origins)(c, next);
};
