/**
 * The network, mocked at `fetch` (never our own code), for the provider adapters' tests: each
 * request the adapter sends is recorded as the provider would receive it, and answered from a
 * list of documented responses in order (the last repeats, unless `exhausted: 'throw'`).
 */
import { vi } from 'vitest';

/** One request as sent: what the adapter tests assert against the provider's wire format. */
export interface Seen {
  url: string;
  method: string;
  /** All the headers (not enumerable). */
  headers: Headers;
  authorization: string | null;
  contentType: string | null;
  body: string;
  /** The body parsed as JSON, or null when it is empty or not JSON (not enumerable). */
  json: any;
}

export interface MockFetchOptions {
  /** Requests to other hosts (a test's own database connections) go to the real fetch. */
  only?: (url: string) => boolean;
  /** Once the answers run out: repeat the last one (default), or fail the request. */
  exhausted?: 'repeat' | 'throw';
}

function parsed(body: string): unknown {
  try {
    return body ? JSON.parse(body) : null;
  } catch {
    return null;
  }
}

/** Replays `answers` in order for every fetch (a function answers from the request), recording each request. */
export function mockFetch(
  answers: (Response | ((request: Seen) => Response))[],
  options: MockFetchOptions = {},
): Seen[] {
  const seen: Seen[] = [];
  const realFetch = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const request = new Request(input, init);
    if (options.only && !options.only(request.url)) return realFetch(input, init);
    const body = new TextDecoder().decode(await request.arrayBuffer());
    const entry = {
      url: request.url,
      method: request.method,
      authorization: request.headers.get('authorization'),
      contentType: request.headers.get('content-type'),
      body,
    } as Seen;
    // Not enumerable: a test may compare the whole request as sent with toEqual.
    Object.defineProperties(entry, { headers: { value: request.headers }, json: { value: parsed(body) } });
    seen.push(entry);
    if (seen.length > answers.length && options.exhausted === 'throw') {
      throw new Error(`unexpected request ${request.method} ${request.url}`);
    }
    const answer = answers[Math.min(seen.length - 1, answers.length - 1)];
    if (typeof answer === 'function') return answer(entry);
    // Each answer is sent once when they do not repeat: the Response itself, since a clone made
    // inside a route's request (a route test) cannot read a body created by the test.
    return options.exhausted === 'throw' ? answer : answer.clone();
  });
  return seen;
}

/** A JSON answer as providers send it. */
export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
