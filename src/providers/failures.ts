/**
 * What a provider's failure means to us, decided in one place for every kind of provider:
 *   - 429 and 5xx (and a network failure) are temporary: queued work retries with backoff, a
 *     synchronous route answers 503 `provider_unavailable` with Retry-After;
 *   - 401 and 403 mean the credential no longer works: the connection is marked needs_reconnect
 *     (providers/connections.ts) and the route answers 409 `connection_needs_reconnect`;
 *   - another 4xx is a refusal of this request (404: the provider has no such record).
 * A failure never carries the provider's body or our token: only the status, and a reason written
 * here. The body is discarded unread, so no caller can log it by mistake.
 */
import { ApiError, NotFound, ServiceUnavailable } from '../core/errors';

export type ProviderFailureKind = 'unavailable' | 'auth' | 'not_found' | 'rejected';

export class ProviderFailure extends Error {
  constructor(
    readonly kind: ProviderFailureKind,
    readonly provider: string,
    /** The provider's HTTP status (null: no answer at all). */
    readonly status: number | null,
    /** A user-facing reason: never the provider's own text. */
    readonly reason: string,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(`${provider}: ${reason}`);
  }
}

const DEFAULT_RETRY_AFTER_SECONDS = 30;
const MAX_RETRY_AFTER_SECONDS = 3_600;

/** Retry-After in seconds (a number of seconds or an HTTP date), bounded; the default when absent or odd. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number {
  if (!header) return DEFAULT_RETRY_AFTER_SECONDS;
  const seconds = /^\d+$/.test(header.trim()) ? Number(header.trim()) : (Date.parse(header) - now) / 1000;
  if (!Number.isFinite(seconds)) return DEFAULT_RETRY_AFTER_SECONDS;
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, Math.ceil(seconds)));
}

/** The failure a non-2xx answer stands for; the body is cancelled unread. */
export async function failureOf(provider: string, response: Response, what: string): Promise<ProviderFailure> {
  await response.body?.cancel().catch(() => undefined);
  const status = response.status;
  if (status === 429 || status >= 500) {
    return new ProviderFailure(
      'unavailable',
      provider,
      status,
      `${provider} is unavailable (${status} on ${what}); try again later`,
      retryAfterSeconds(response.headers.get('retry-after')),
    );
  }
  if (status === 401 || status === 403) {
    return new ProviderFailure('auth', provider, status, `${provider} refused the account's credentials (${status})`);
  }
  if (status === 404) return new ProviderFailure('not_found', provider, status, `${provider} has no such ${what}`);
  return new ProviderFailure('rejected', provider, status, `${provider} refused the ${what} (${status})`);
}

/** Throws the failure of a non-2xx answer; answers the response otherwise. */
export async function expectOk(provider: string, response: Response, what: string): Promise<Response> {
  if (response.ok) return response;
  throw await failureOf(provider, response, what);
}

/**
 * How long a provider may take to answer a call (until its response headers arrive). A fetch has
 * no deadline of its own, so a provider that accepts the connection and never answers held a
 * route's request, or a job's delivery and its lease, for as long as the runtime let it; a job
 * whose lease ran out meanwhile was taken by another delivery while the first still waited (a
 * voice dial: dialled twice). Every job's lease is longer than this (test/provider-layer.test.ts).
 */
export const PROVIDER_TIMEOUT_MS = 30_000;

/**
 * fetch, with a network error, or no answer within `timeoutMs` (PROVIDER_TIMEOUT_MS), turned into
 * a temporary failure (its message may name hosts: not kept). The deadline covers the wait for
 * the answer, not the reading of its body (a recording's download streams for as long as it takes).
 */
export async function providerFetch(
  provider: string,
  input: string,
  init: RequestInit,
  timeoutMs = PROVIDER_TIMEOUT_MS,
): Promise<Response> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  // A caller's own signal still cancels the call.
  init.signal?.addEventListener('abort', () => deadline.abort());
  try {
    return await fetch(input, { ...init, signal: deadline.signal });
  } catch {
    const reason = deadline.signal.aborted
      ? `${provider} did not answer within ${Math.round(timeoutMs / 1000)} s; try again later`
      : `${provider} could not be reached; try again later`;
    return Promise.reject(new ProviderFailure('unavailable', provider, null, reason, 30));
  } finally {
    clearTimeout(timer);
  }
}

/** 503 for a synchronous route: the provider is down or throttling; the client retries after Retry-After. */
export class ProviderUnavailable extends ServiceUnavailable {
  constructor(message: string, retryAfterSeconds: number) {
    super(message, 'provider_unavailable', retryAfterSeconds);
  }
}

/**
 * 409: the connection needs its owner to reconnect it before it can be used again. The message
 * names why: the reason recorded when it was marked needs_reconnect (last_error: refused
 * credentials, or a mail provider refusing to send as the account's address), else its credentials.
 */
export class ConnectionNeedsReconnect extends ApiError {
  constructor(connection: {
    id: number;
    provider: string;
    identity: string;
    state?: string;
    lastError?: string | null;
  }) {
    const why = (connection.state === 'needs_reconnect' && connection.lastError) || 'its credentials no longer work';
    super(
      409,
      'conflict',
      `The ${connection.provider} connection ${connection.id} (${connection.identity}) needs to be reconnected: ${why}`,
      'connection_needs_reconnect',
      { connection_id: connection.id, provider: connection.provider },
    );
  }
}

/** The API error a synchronous route answers for a provider failure (auth failures are mapped by the caller, which knows the connection). */
export function routeErrorOf(failure: ProviderFailure, what: string): ApiError {
  switch (failure.kind) {
    case 'unavailable':
      return new ProviderUnavailable(failure.reason, failure.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS);
    case 'not_found':
      return new NotFound(what);
    default:
      return new ApiError(422, 'validation_error', failure.reason, 'provider_rejected');
  }
}

/** Backoff of queued work: the provider's Retry-After when it gave one, else exponential, at most 10 minutes. */
export function retryDelay(failure: ProviderFailure, attempts: number): number {
  return Math.min(600, Math.max(failure.retryAfterSeconds ?? 0, 2 ** Math.min(attempts, 9)));
}
