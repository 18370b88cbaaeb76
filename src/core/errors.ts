/**
 * The one error hierarchy of the API. Services and routes throw these; `handleError` in
 * http.ts is the only place that turns them into the failure envelope.
 */
export type ErrorType =
  | 'bad_request'
  | 'payment_required'
  | 'validation_error'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'gone'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'service_unavailable'
  | 'internal_error';

export interface FieldIssue {
  field: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: 400 | 401 | 402 | 403 | 404 | 405 | 409 | 410 | 413 | 415 | 422 | 429 | 500 | 503,
    readonly type: ErrorType,
    message: string,
    readonly code: string | number | null = null,
    readonly details?: FieldIssue[] | Record<string, unknown>,
  ) {
    super(message);
  }
}

export class BadRequest extends ApiError {
  constructor(message: string, field: string | null = null) {
    super(400, 'bad_request', message, field, field ? [{ field, message }] : undefined);
  }
}

export class ValidationFailed extends ApiError {
  constructor(issues: FieldIssue[]) {
    const first = issues[0] ?? { field: 'body', message: 'invalid input' };
    super(422, 'validation_error', `${first.field}: ${first.message}`, first.field, issues);
  }

  static field(field: string, message: string): ValidationFailed {
    return new ValidationFailed([{ field, message }]);
  }
}

export class Unauthorized extends ApiError {
  constructor(message = 'Authentication required', code: string | null = null) {
    super(401, 'unauthorized', message, code);
  }
}

/** 402: the organization cannot pay for it (credits, the calling wallet); `details` says what it costs and what is left. */
export class PaymentRequired extends ApiError {
  constructor(message: string, code: string, details?: Record<string, unknown>) {
    super(402, 'payment_required', message, code, details);
  }
}

export class Forbidden extends ApiError {
  constructor(message = 'Not allowed', code: string | null = null) {
    super(403, 'forbidden', message, code);
  }
}

export class NotFound extends ApiError {
  constructor(resource: string, id?: string | number) {
    super(404, 'not_found', id === undefined ? `${resource} not found` : `${resource} ${id} not found`, null);
  }
}

export class Conflict extends ApiError {
  constructor(message: string, code: string | null = null, details?: Record<string, unknown>) {
    super(409, 'conflict', message, code, details);
  }
}

/** A record that exists, whose content was removed on purpose and will not come back (an export past its retention). */
export class Gone extends ApiError {
  constructor(message: string, code: string, details?: Record<string, unknown>) {
    super(410, 'gone', message, code, details);
  }
}

export class UnsupportedMediaType extends ApiError {
  constructor(expected: string) {
    super(415, 'unsupported_media_type', `Content-Type must be ${expected}`, null);
  }
}

export class PayloadTooLarge extends ApiError {
  constructor(message: string) {
    super(413, 'payload_too_large', message, null);
  }
}

export class RateLimited extends ApiError {
  constructor(
    readonly retryAfterSeconds: number,
    message = 'Too many requests; retry with exponential backoff',
    code: string | null = null,
    details?: Record<string, unknown>,
  ) {
    super(429, 'rate_limited', message, code, details);
  }
}

export class ServiceUnavailable extends ApiError {
  /** `retryAfterSeconds`: a transient fault (the database connection lost): answered with Retry-After. */
  constructor(
    message: string,
    code: string | null = null,
    readonly retryAfterSeconds?: number,
  ) {
    super(503, 'service_unavailable', message, code);
  }
}
