/**
 * The one place a webhook leaves the server: a signed POST of the event's JSON to the endpoint,
 * through `fetch` (tests mock it). It never throws for the receiver's sake: whatever happens
 * (an answer of any status, a refused connection, a timeout) is an outcome the delivery log
 * records and the retry schedule acts on. Redirects are not followed: a 3xx is a failure, so a
 * public address cannot bounce the request to a private one.
 */
import { signWebhook } from './signature';

/** How long a receiver has to answer (Svix allows 15 s). */
export const DELIVERY_TIMEOUT_MS = 15_000;
/** The delivery log keeps this much of a response body. */
export const LOGGED_BODY_BYTES = 1024;

export interface WebhookRequest {
  url: string;
  secret: string;
  /** A rotation's replaced secret, while it still signs beside `secret`. */
  previousSecret?: string | null;
  messageId: string;
  body: string;
}

export interface DeliveryOutcome {
  ok: boolean;
  /** The receiver's status; null when none came (network error, timeout). */
  statusCode: number | null;
  latencyMs: number;
  /** The first 1 KB of the response body (UTF-8, cut on a character). */
  responseBody: string | null;
  /** Why no status came, or why the status is a failure. */
  error: string | null;
}

async function firstKilobyte(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < LOGGED_BODY_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const bytes = new Uint8Array(Math.min(size, LOGGED_BODY_BYTES));
  let offset = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, bytes.length - offset);
    bytes.set(part, offset);
    offset += part.length;
    if (offset >= bytes.length) break;
  }
  // A character cut in two at the limit decodes as U+FFFD; drop it rather than log a broken one.
  return new TextDecoder().decode(bytes).replace(/\uFFFD$/, '');
}

/** Sends one signed attempt; `now` is the attempt's time (the webhook-timestamp). */
export async function sendWebhook(request: WebhookRequest, now = new Date()): Promise<DeliveryOutcome> {
  const timestamp = Math.floor(now.getTime() / 1000);
  const secrets = request.previousSecret ? [request.secret, request.previousSecret] : [request.secret];
  const headers = await signWebhook(secrets, request.messageId, timestamp, request.body);
  const started = Date.now();
  try {
    const response = await fetch(request.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'lead-management-webhooks/1', ...headers },
      body: request.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    });
    const responseBody = await firstKilobyte(response).catch(() => null);
    const ok = response.status >= 200 && response.status < 300;
    return {
      ok,
      statusCode: response.status,
      latencyMs: Date.now() - started,
      responseBody,
      error: ok ? null : `the receiver answered ${response.status}`,
    };
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    return {
      ok: false,
      statusCode: null,
      latencyMs: Date.now() - started,
      responseBody: null,
      error: timedOut ? `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s` : 'the connection failed',
    };
  }
}
