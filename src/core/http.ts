/**
 * The response envelope: `{success, message, data}` (+ `total, total_is_estimate, page, limit,
 * next_cursor` on lists) and the failure envelope `{success:false, error:{message, type, code}}`, built only here.
 */
import type { Context, TypedResponse } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { JSONParsed } from 'hono/utils/types';
import { ConfigurationError } from '../edge-config';
import { isDatabaseUnavailable, pgError } from '../db/errors';
import { ApiError, RateLimited, ServiceUnavailable } from './errors';
import { jsonBodyEtag } from './etag';
import { logError } from './log';

/**
 * `c.json(body, status)`, typed as it is, from a text serialized once: on a route that carries
 * ETags, a 200's validator comes from that text (core/etag.ts) rather than from a clone of the body.
 */
function json<T extends object, S extends ContentfulStatusCode>(
  c: Context,
  body: T,
  status: S,
): Response & TypedResponse<JSONParsed<T>, S, 'json'> {
  const text = JSON.stringify(body);
  const tag = status === 200 ? jsonBodyEtag(c, text) : undefined;
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (tag) headers.ETag = tag;
  return c.body(text, status, headers) as unknown as Response & TypedResponse<JSONParsed<T>, S, 'json'>;
}

export function ok<T>(c: Context, data: T, message = 'OK') {
  return json(c, { success: true as const, message, data }, 200);
}

export function created<T>(c: Context, data: T, message = 'Created') {
  return json(c, { success: true as const, message, data }, 201);
}

export function accepted<T>(c: Context, data: T, message = 'Accepted') {
  return json(c, { success: true as const, message, data }, 202);
}

export interface Page<T> {
  rows: T[];
  total: number;
  /** True when `total` is the planner's estimate (a filtered list matching more than 10 000 rows). */
  totalIsEstimate: boolean;
  page: number;
  limit: number;
  nextCursor: string | null;
  /** Every row of the list, on page 1 (wholeList): `page` and `limit` the route does not declare cut it. */
  whole?: true;
}

/**
 * A list answered whole (a ranking's top `limit`, a pipeline's stages, a deal's forecast history):
 * one page holding every row, so `total` is its length and nothing follows. `limit` is the cap the
 * request applied, or the row count when the list has none.
 */
export function wholeList<T>(rows: T[], limit: number = rows.length): Page<T> {
  return { rows, total: rows.length, totalIsEstimate: false, page: 1, limit, nextCursor: null, whole: true };
}

/**
 * A whole list cut by the request's standard `page` and `limit` where the route does not declare
 * them (`wholeListWindow`, checked in core/routes.ts): `limit` rows from page `page`'s start (the
 * list's own cap or length when no limit was sent), `total` still every row's count.
 */
function windowOf<T>(c: Context, page: Page<T>): Page<T> {
  const window = page.whole
    ? (c.get('wholeListWindow') as { page: number; limit: number | undefined } | undefined)
    : undefined;
  if (!window) return page;
  const limit = window.limit ?? Math.max(page.limit, page.rows.length, 1);
  const start = (window.page - 1) * limit;
  return { ...page, rows: page.rows.slice(start, start + limit), page: window.page, limit };
}

export function list<T>(c: Context, whole: Page<T>, message = 'OK') {
  const page = windowOf(c, whole);
  return json(
    c,
    {
      success: true as const,
      message,
      data: page.rows,
      total: page.total,
      total_is_estimate: page.totalIsEstimate,
      page: page.page,
      limit: page.limit,
      next_cursor: page.nextCursor,
    },
    200,
  );
}

export function failureBody(error: ApiError) {
  return {
    success: false as const,
    error: {
      message: error.message,
      type: error.type,
      code: error.code,
      ...(error.details ? { details: error.details } : {}),
    },
  };
}

function fromHttpException(error: HTTPException): ApiError {
  switch (error.status) {
    case 400:
      return new ApiError(400, 'bad_request', error.message || 'Bad request', null);
    case 415:
      return new ApiError(415, 'unsupported_media_type', error.message || 'Unsupported media type', null);
    case 401:
      return new ApiError(401, 'unauthorized', error.message || 'Authentication required');
    case 413:
      return new ApiError(413, 'payload_too_large', error.message || 'Request body too large');
    default:
      return new ApiError(500, 'internal_error', 'Internal server error');
  }
}

/** Postgres errors that mean bad input rather than a server fault. */
function fromDatabaseError(error: unknown): ApiError | null {
  const code = (error as { code?: unknown } | null)?.code ?? (error as { cause?: { code?: unknown } })?.cause?.code;
  // A NUL byte (22021, 22P05) is refused before any route runs (core/text-guard.ts); this is the backstop.
  if (code === '22021' || code === '22P05')
    return new ApiError(400, 'bad_request', 'Text must not contain a NUL character', null);
  if (code === '22P02' || code === '22003' || code === '22007' || code === '22008') {
    return new ApiError(400, 'bad_request', 'A value is out of range or malformed', null);
  }
  if (code === '23505')
    return new ApiError(409, 'conflict', 'A record with the same unique value already exists', 'duplicate');
  if (code === '23503') return new ApiError(422, 'validation_error', 'A referenced record does not exist', 'reference');
  return null;
}

/** Seconds a client waits before retrying a request the lost database connection failed. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

export const APP_ROLE_NOT_GRANTED = 'app_role_not_granted';

/**
 * The role the Worker connects as may not SET ROLE lm_app: every tenant request fails until an
 * operator grants it. A 503 that says what to run (no Retry-After: waiting does not fix it).
 */
export function appRoleNotGranted(): ServiceUnavailable {
  return new ServiceUnavailable(
    'The database role the Worker connects as cannot SET ROLE lm_app. As a role with ADMIN OPTION on lm_app, run: GRANT lm_app TO <that role>',
    APP_ROLE_NOT_GRANTED,
  );
}

/** `permission denied to set role "lm_app"`: the scoping statement of a request, refused (see appRoleNotGranted). */
function isAppRoleRefused(error: unknown): boolean {
  const pg = pgError(error);
  return pg?.code === '42501' && /set role/i.test(pg.message ?? '');
}

export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof HTTPException) return fromHttpException(error);
  if (error instanceof ConfigurationError) return new ApiError(500, 'internal_error', 'Internal server error');
  // A dropped or refused connection is transient: 503 with Retry-After, so clients and the edge
  // Worker retry (with their Idempotency-Key on writes). Our own faults stay 500.
  if (isAppRoleRefused(error)) return appRoleNotGranted();
  if (isDatabaseUnavailable(error)) {
    return new ServiceUnavailable(
      'The database is unavailable for a moment; retry after Retry-After seconds',
      'database_unavailable',
      DATABASE_RETRY_AFTER_SECONDS,
    );
  }
  return fromDatabaseError(error) ?? new ApiError(500, 'internal_error', 'Internal server error');
}

export function handleError(error: unknown, c: Context): Response {
  const apiError = toApiError(error);
  if (apiError.status >= 500) logError(c, error);
  if (apiError instanceof RateLimited) c.header('Retry-After', String(apiError.retryAfterSeconds));
  if (apiError instanceof ServiceUnavailable && apiError.retryAfterSeconds !== undefined)
    c.header('Retry-After', String(apiError.retryAfterSeconds));
  return c.json(failureBody(apiError), apiError.status as ContentfulStatusCode);
}

/** A known path asked with a method it does not serve: 405 with the Allow header. */
export function handleMethodNotAllowed(c: Context, allowed: string[]): Response {
  c.header('Allow', allowed.join(', '));
  const method = c.req.method;
  return c.json(
    failureBody(new ApiError(405, 'method_not_allowed', `${method} is not allowed here; use ${allowed.join(', ')}`)),
    405,
  );
}

export function handleNotFound(c: Context): Response {
  return c.json(
    failureBody(new ApiError(404, 'not_found', `No route for ${c.req.method} ${new URL(c.req.url).pathname}`)),
    404,
  );
}
