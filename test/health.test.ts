import { describe, expect, it } from 'vitest';
import { call } from './helpers/api';

describe('GET /api/health', () => {
  it('answers ok after a real database round trip', async () => {
    const response = await call('GET', '/api/health');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, message: 'OK', data: { status: 'ok', database: 'ok' } });
  });

  it('echoes a caller request id and makes one otherwise', async () => {
    const given = await call('GET', '/api/health', { headers: { 'x-request-id': 'trace-12345678' } });
    expect(given.headers.get('x-request-id')).toBe('trace-12345678');
    const made = await call('GET', '/api/health');
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const malformed = await call('GET', '/api/health', { headers: { 'x-request-id': 'no spaces or <tags>' } });
    expect(malformed.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const tooLong = await call('GET', '/api/health', { headers: { 'x-request-id': 'a'.repeat(129) } });
    expect(tooLong.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    // Also on failures answered by the error and not-found handlers.
    const unauthorized = await call('GET', '/api/user/my', { headers: { 'x-request-id': 'trace-unauthorized' } });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('x-request-id')).toBe('trace-unauthorized');
    const missing = await call('GET', '/api/nothing-here', { headers: { 'x-request-id': 'trace-missing' } });
    expect(missing.headers.get('x-request-id')).toBe('trace-missing');
  });

  it('answers 404 with the failure envelope for an unknown path', async () => {
    const response = await call('GET', '/api/nothing-here');
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ success: false, error: { type: 'not_found', code: null } });
  });
});

describe('GET /api/health without a database', () => {
  it('answers 503 with the failure envelope when the database is unreachable', async () => {
    const { env, createExecutionContext, waitOnExecutionContext } = await import('cloudflare:test');
    const { buildApp } = await import('../src/app');
    const unreachable = { ...env, DATABASE_URL: 'postgres://postgres:postgres@127.0.0.1:9/postgres' };
    const ctx = createExecutionContext();
    const response = await buildApp().fetch(new Request('http://lead.test/api/health'), unreachable, ctx);
    await waitOnExecutionContext(ctx);
    expect(response.status).toBe(503);
    const body = (await response.json()) as { success: boolean; error: { type: string; message: string } };
    expect(body).toMatchObject({ success: false, error: { type: 'service_unavailable' } });
    expect(body.error.message).not.toMatch(/127\.0\.0\.1|postgres:/);
  });
});
