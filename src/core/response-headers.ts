/**
 * The OpenAPI side of three conventions every route shares, declared in one place and applied by
 * `defineRoute`: rate-limit headers (core/rate-limit.ts), ETag and 304 on JSON GETs, and
 * Idempotency-Key on POSTs that create (core/idempotency.ts).
 */
import type { RouteConfig } from '@hono/zod-openapi';
import {
  IDEMPOTENCY_HEADER,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  IDEMPOTENCY_TTL_HOURS,
  IDEMPOTENT_REPLAYED_HEADER,
} from './idempotency';

type Responses = RouteConfig['responses'];
type HeaderObject = { description: string; schema: { type: 'string' | 'integer'; minimum?: number; maximum?: number } };

export interface ContractFlags {
  /** Bearer and API-key routes count every request against the rate limits. */
  rateLimited: boolean;
  /** JSON GET: ETag on 200, 304 for a matching If-None-Match. */
  etag: boolean;
  /** POST that creates: Idempotency-Key, 409 while in use, 422 when reused for another request. */
  idempotent: boolean;
}

const rateLimitHeaders: Record<string, HeaderObject> = {
  'RateLimit-Policy': {
    description:
      'The quotas that apply (draft-ietf-httpapi-ratelimit-headers), one list member per counter: `"org";q=1200;w=60` on bearer routes, `"org";q=1200;w=60, "key";q=600;w=60` on API-key routes (q requests per w seconds, per organization and per API key), `"ip";q=20;w=60` on login and signup (per client IP)',
    schema: { type: 'string' },
  },
  RateLimit: {
    description:
      'What is left of each quota in the current window: `"org";r=1187;t=42, "key";r=595;t=42` (r requests left, t seconds until the window ends)',
    schema: { type: 'string' },
  },
};

const retryAfterUnavailable: HeaderObject = {
  description:
    'On a lost or refused database connection: seconds to wait before retrying (a few). Absent when the fault needs an operator (error.code names it)',
  schema: { type: 'integer', minimum: 1, maximum: 60 },
};

const retryAfter: HeaderObject = {
  description: 'Seconds until the window that refused the request ends (1 to 60); equal to t in RateLimit',
  schema: { type: 'integer', minimum: 1, maximum: 60 },
};

const requestIdHeader: HeaderObject = {
  description:
    'Identifies the request in our logs: the caller’s own x-request-id when it sent a well-formed one (letters, digits, _ = -; at most 128), else a new UUID. Quote it when reporting a problem',
  schema: { type: 'string' },
};

const etagHeader: HeaderObject = {
  description:
    'Strong validator: SHA-1 of the exact response body. Send it back in If-None-Match to get 304 while the record or page is unchanged',
  schema: { type: 'string' },
};

const replayedHeader: HeaderObject = {
  description: `"true" when this is the stored response of an earlier request with the same ${IDEMPOTENCY_HEADER}; absent otherwise`,
  schema: { type: 'string' },
};

/** The Idempotency-Key header parameter (documentation only: core/idempotency.ts checks it). */
export const idempotencyKeyParameter = {
  name: IDEMPOTENCY_HEADER,
  in: 'header' as const,
  required: false,
  description: `Makes the request safe to retry: a retry with the same key and the same body within ${IDEMPOTENCY_TTL_HOURS} hours gets the first response again (header ${IDEMPOTENT_REPLAYED_HEADER}: true) and creates nothing. The same key with another body is 422 (error.code ${IDEMPOTENCY_HEADER}); while the first request runs, 409 idempotency_key_in_use. Keys are per caller (user or API key). Only successful responses are stored: a failed request may be retried with its key. 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters (a UUID, say).`,
  schema: { type: 'string' as const, minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH },
};

function withHeaders(response: Responses[string], headers: Record<string, HeaderObject>): Responses[string] {
  if (!response || '$ref' in response) return response;
  const existing = (response.headers ?? {}) as Record<string, unknown>;
  return { ...response, headers: { ...headers, ...existing } } as Responses[string];
}

function appendDescription(response: Responses[string] | undefined, fallback: Responses[string], note: string) {
  if (!response || '$ref' in response) return fallback;
  return { ...response, description: `${response.description}; ${note}` };
}

/**
 * The responses with the conventions' headers and status codes added, and the header parameters
 * to add to the operation. `errorResponse` builds a failure response in the route's error envelope.
 */
export function applyContract(
  responses: Responses,
  flags: ContractFlags,
  errorResponse: (description: string) => Responses[string],
): { responses: Responses; parameters: (typeof idempotencyKeyParameter)[] } {
  const all: Responses = { ...responses };
  if (flags.idempotent) {
    // The 409 itself (idempotency_key_in_use, beside the route's own conflicts) is declared by
    // defineRoute, which owns the conflict schemas.
    const reused = `or ${IDEMPOTENCY_HEADER} already used for a different request (error.code ${IDEMPOTENCY_HEADER})`;
    all[422] = appendDescription(all[422], errorResponse(reused), reused);
  }
  if (flags.etag) {
    all[304] = { description: 'Not Modified: If-None-Match names the current ETag; no body' };
  }
  const result: Responses = {};
  for (const [status, response] of Object.entries(all)) {
    let headers: Record<string, HeaderObject> = {
      'x-request-id': requestIdHeader,
      ...(flags.rateLimited ? rateLimitHeaders : {}),
    };
    if (status === '429') headers = { ...headers, 'Retry-After': retryAfter };
    if (status === '503') headers = { ...headers, 'Retry-After': retryAfterUnavailable };
    if (flags.etag && (status === '200' || status === '304')) headers = { ...headers, ETag: etagHeader };
    if (flags.idempotent && (status.startsWith('2') || status === '303'))
      headers = { ...headers, [IDEMPOTENT_REPLAYED_HEADER]: replayedHeader };
    result[status] = withHeaders(response, headers);
  }
  return { responses: result, parameters: flags.idempotent ? [idempotencyKeyParameter] : [] };
}
