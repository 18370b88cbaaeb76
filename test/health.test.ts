import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../src/db/client';
import { checkDatabase } from '../src/modules/health/service';
import { call, signupOrganization } from './helpers/api';

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
    expect(body).toMatchObject({
      success: false,
      error: { type: 'service_unavailable', code: 'database_unavailable' },
    });
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(body.error.message).not.toMatch(/127\.0\.0\.1|postgres:/);
  });
});

/** A role that is not granted lm_app (created once; roles are cluster-wide). */
const PROBE = 'lm_health_probe';

async function withDatabase<T>(work: (db: Database) => Promise<T>): Promise<T> {
  const { env } = await import('cloudflare:test');
  const handle = openDatabase(env as never);
  try {
    return await work(handle.db);
  } finally {
    await handle.close();
  }
}

async function ensureProbeRole(db: Database, login: boolean): Promise<void> {
  await db.execute(
    sql.raw(
      `do $$ begin if not exists (select 1 from pg_roles where rolname = '${PROBE}') then create role ${PROBE} ${login ? 'login' : 'nologin'}; end if; end $$`,
    ),
  );
}

describe('GET /api/health when the connecting role cannot SET ROLE lm_app', () => {
  it('the check tells a role that may switch to lm_app from one that may not', async () => {
    await withDatabase(async (db) => {
      await ensureProbeRole(db, true);
      expect((await checkDatabase(db)).canScope).toBe(true);
      const probed = await db.transaction(async (tx) => {
        await tx.execute(sql.raw(`set local role ${PROBE}`));
        return checkDatabase(tx);
      });
      expect(probed).toEqual({ canScope: false, role: PROBE });
    });
  });

  it('answers 503 app_role_not_granted on health and on a tenant route, not 500 (PostgreSQL: the Worker logs in as the role)', async (context) => {
    const { env, createExecutionContext, waitOnExecutionContext } = await import('cloudflare:test');
    const { buildApp } = await import('../src/app');
    await withDatabase(async (db) => {
      await ensureProbeRole(db, true);
      // What a Worker role needs besides lm_app: the tables (the owner has them in production).
      await db.execute(sql.raw(`grant select, insert, update, delete on all tables in schema public to ${PROBE}`));
    });
    const owner = await signupOrganization('Role probe');
    const url = new URL(env.DATABASE_URL as string);
    url.username = PROBE;
    url.password = '';
    const asProbe = { ...env, DATABASE_URL: url.toString() };
    const send = async (path: string, token?: string) => {
      const ctx = createExecutionContext();
      const request = new Request(`http://lead.test${path}`, {
        headers: { 'cf-connecting-ip': '10.9.9.8', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      });
      const response = await buildApp().fetch(request, asProbe, ctx);
      await waitOnExecutionContext(ctx);
      return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() };
    };
    const health = await send('/api/health');
    // The embedded PGlite serves every connection as its superuser, whatever the user name: only a
    // PostgreSQL server (CI's second run, TEST_DATABASE_URL) logs the Worker in as the probe.
    if (health.status === 200) context.skip();
    expect(health).toMatchObject({
      status: 503,
      retryAfter: null,
      body: { success: false, error: { type: 'service_unavailable', code: 'app_role_not_granted' } },
    });
    expect((health.body as { error: { message: string } }).error.message).toContain('GRANT lm_app TO');
    const tenant = await send('/api/lead/list', owner.token);
    expect(tenant).toMatchObject({ status: 503, body: { error: { code: 'app_role_not_granted' } } });
  });
});
