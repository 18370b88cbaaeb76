/**
 * A lost database is a 503, not a 500: a connection the database refuses, or one dropped in the
 * middle of a request, answers 503 service_unavailable with a short Retry-After, and a retry of a
 * create with its Idempotency-Key then creates the record once. The connection is dropped at the
 * transport, under the driver: the request's WebSocket to the database closes as its next
 * statement is sent, as when the database restarts or the relay goes away.
 */
import { env } from 'cloudflare:test';
import { neonConfig } from '@neondatabase/serverless';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { observeStatements } from '../src/db/client';
import { call, signupOrganization, type SignedUp } from './helpers/api';

let owner: SignedUp;

beforeAll(async () => {
  owner = await signupOrganization('Lost database');
});

/**
 * Closes the connection at the next send once `armed` is set: the statement never reaches the
 * database and the connection is gone under it. Later writes go nowhere, as on a dead network.
 */
let armed = false;
class DroppingWebSocket extends WebSocket {
  #dropped = false;
  override send(data: string | ArrayBuffer | ArrayBufferView): void {
    if (this.#dropped) return;
    if (armed) {
      armed = false;
      this.#dropped = true;
      this.close();
      return;
    }
    super.send(data);
  }
}

/** Drops the request's connection as it sends the statement matching `when` (the statements before it run). */
function dropConnectionAt(when: RegExp): () => void {
  neonConfig.webSocketConstructor = DroppingWebSocket;
  const stop = observeStatements((text) => {
    if (when.test(text)) armed = true;
  });
  return () => {
    stop();
    armed = false;
    neonConfig.webSocketConstructor = undefined;
  };
}

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

function expectUnavailable(response: { status: number; text: string; headers: Headers; body: any }): void {
  expect(response.status, response.text).toBe(503);
  expect(response.body).toMatchObject({
    success: false,
    error: { type: 'service_unavailable', code: 'database_unavailable' },
  });
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(10);
  expect(response.body.error.message).not.toMatch(/127\.0\.0\.1|postgres:|websocket/i);
}

describe('a database connection lost in the middle of a request', () => {
  it('answers a read 503 with Retry-After, and the next request is served', async () => {
    restore = dropConnectionAt(/from "leads"/);
    const lost = await call('GET', '/api/lead/list', { token: owner.token });
    expectUnavailable(lost);
    restore();
    restore = undefined;
    const again = await call('GET', '/api/lead/list', { token: owner.token });
    expect(again.status, again.text).toBe(200);
  });

  it('answers a create 503; its retry with the same Idempotency-Key creates the lead once', async () => {
    const key = crypto.randomUUID();
    const body = { first_name: 'Retried', last_name: `Lead ${key.slice(0, 8)}` };
    const headers = { 'idempotency-key': key };
    restore = dropConnectionAt(/\binsert\b/i);
    const lost = await call('POST', '/api/lead/add', { token: owner.token, body, headers });
    expectUnavailable(lost);
    restore();
    restore = undefined;
    const retried = await call('POST', '/api/lead/add', { token: owner.token, body, headers });
    expect(retried.status, retried.text).toBe(201);
    const replayed = await call('POST', '/api/lead/add', { token: owner.token, body, headers });
    expect(replayed.body.data.id).toBe(retried.body.data.id);
    const listed = await call('GET', '/api/lead/list', {
      token: owner.token,
      query: { search_value: body.last_name, limit: 100 },
    });
    expect(listed.body.total).toBe(1);
  });
});

describe('a database that refuses the connection', () => {
  it('answers 503 with Retry-After on an authenticated route, not 500', async () => {
    const { createExecutionContext, waitOnExecutionContext } = await import('cloudflare:test');
    const { buildApp } = await import('../src/app');
    const refused = { ...env, DATABASE_URL: 'postgres://postgres:postgres@127.0.0.1:9/postgres' };
    for (const [method, path, body] of [
      ['GET', '/api/lead/list', undefined],
      ['POST', '/api/lead/add', JSON.stringify({ first_name: 'Nobody' })],
    ] as const) {
      const ctx = createExecutionContext();
      const request = new Request(`http://lead.test${path}`, {
        method,
        body,
        headers: {
          authorization: `Bearer ${owner.token}`,
          'cf-connecting-ip': '10.9.9.9',
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
      });
      const response = await buildApp().fetch(request, refused, ctx);
      await waitOnExecutionContext(ctx);
      const text = await response.text();
      expectUnavailable({ status: response.status, text, headers: response.headers, body: JSON.parse(text) });
    }
  });
});
