/**
 * The network, mocked at `fetch` (never our own code), for the provider adapters' tests: each
 * request the adapter sends is recorded as the provider would receive it, and answered from a
 * list of documented responses in order (the last repeats).
 */
import { vi } from 'vitest';

/** One request as sent: what the adapter tests assert against the provider's wire format. */
export interface Seen {
  url: string;
  method: string;
  authorization: string | null;
  contentType: string | null;
  body: string;
}

/** Replays `answers` in order for every fetch (a function answers from the request), recording each request. */
export function mockFetch(answers: (Response | ((request: Seen) => Response))[]): Seen[] {
  const seen: Seen[] = [];
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const request = new Request(input, init);
    const entry = {
      url: request.url,
      method: request.method,
      authorization: request.headers.get('authorization'),
      contentType: request.headers.get('content-type'),
      body: new TextDecoder().decode(await request.arrayBuffer()),
    };
    seen.push(entry);
    const answer = answers[Math.min(seen.length - 1, answers.length - 1)];
    return typeof answer === 'function' ? answer(entry) : answer.clone();
  });
  return seen;
}

/** A JSON answer as providers send it. */
export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
