/**
 * The tenant scope of a request connection: read by its scoping statement, then carried by each
 * later statement in its own round trip (src/db/scoped-statements.ts), so that nothing is left on
 * the server session and a transaction-mode pooler may hand each statement another backend. On the
 * embedded PGlite every connection shares one backend, reset at each handover as if a pooler had
 * handed over another one (scripts/lib/pglite-sessions.mjs). These tests hold on both databases,
 * and on interleaved and concurrent requests.
 */
import { env } from 'cloudflare:test';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@neondatabase/serverless';
import { drizzle } from 'drizzle-orm/neon-serverless';
import { APP_ROLE, openRequestDatabase, scopeSession, type DatabaseHandle } from '../src/db/client';
import { readConfig } from '../src/env';
import { call, signupOrganization, uniqueEmail, type SignedUp } from './helpers/api';

let first: SignedUp;
let second: SignedUp;
const handles: DatabaseHandle[] = [];

function connection(): DatabaseHandle {
  const handle = openRequestDatabase(readConfig(env));
  handles.push(handle);
  return handle;
}

async function sessionOf(handle: Pick<DatabaseHandle, 'db'>): Promise<{ role: string; org: string | null }> {
  const result = await handle.db.execute<{ role: string; org: string | null }>(
    sql`select current_user as role, nullif(current_setting('app.organization_id', true), '') as org`,
  );
  return result.rows[0];
}

beforeAll(async () => {
  [first, second] = await Promise.all([signupOrganization('Scope A'), signupOrganization('Scope B')]);
  for (const org of [first, second]) {
    for (let i = 0; i < 3; i++) {
      const created = await call('POST', '/api/lead/add', {
        token: org.token,
        body: { first_name: 'Lead', last_name: `N${i}`, email: uniqueEmail('scope') },
      });
      expect(created.status).toBe(201);
    }
  }
});

afterAll(async () => {
  await Promise.all(handles.map((handle) => handle.close()));
});

describe('the session scope of a request connection', () => {
  it('applies to every later statement of its connection and to no other connection', async () => {
    const scoped = connection();
    const other = connection();
    await scopeSession(scoped.db, first.orgId);
    const before = await sessionOf(other);
    expect(before.role).not.toBe(APP_ROLE);
    expect(before.org).toBeNull();
    // Interleave: the scoped connection keeps its scope after the other one ran.
    expect(await sessionOf(scoped)).toEqual({ role: APP_ROLE, org: String(first.orgId) });
    await scopeSession(other.db, second.orgId);
    expect(await sessionOf(scoped)).toEqual({ role: APP_ROLE, org: String(first.orgId) });
    expect(await sessionOf(other)).toEqual({ role: APP_ROLE, org: String(second.orgId) });
    const visible = await scoped.db.execute<{ organization_id: string }>(
      sql`select distinct organization_id from leads`,
    );
    expect(visible.rows.map((row) => Number(row.organization_id))).toEqual([first.orgId]);
  });

  it('leaves nothing on the server session: the scoping statement sets its settings for itself', async () => {
    // A plain client of the driver, without the request connection's carried scope: what a
    // transaction-mode pooler would hand to the next client after this statement.
    connection(); // configures the driver for the local relay, as the first request does
    const client = new Client({ connectionString: readConfig(env).DATABASE_URL });
    client.on('error', () => undefined); // the socket closing after end()
    await client.connect();
    try {
      const plain = { db: drizzle({ client }) };
      const scoped = await scopeSession(plain.db, first.orgId);
      expect(scoped.scope).toBe(String(first.orgId));
      const after = await sessionOf(plain);
      expect(after.role).not.toBe(APP_ROLE);
      expect(after.org).toBeNull();
    } finally {
      await client.end();
    }
  });

  it('carries the scope with every later statement, even after the server session was reset', async () => {
    const scoped = connection();
    await scopeSession(scoped.db, first.orgId);
    // What a pooler handing the next statement another backend amounts to: nothing of the session left.
    await scoped.db.execute(sql`reset all`);
    await scoped.db.execute(sql`reset role`);
    expect(await sessionOf(scoped)).toEqual({ role: APP_ROLE, org: String(first.orgId) });
    const visible = await scoped.db.execute<{ organization_id: string }>(
      sql`select distinct organization_id from leads`,
    );
    expect(visible.rows.map((row) => Number(row.organization_id))).toEqual([first.orgId]);
    // And inside a transaction of the same connection, every statement too.
    const inside = await scoped.db.transaction(async (tx) => {
      await tx.execute(sql`reset all`);
      return (
        await tx.execute<{ org: string | null }>(
          sql`select nullif(current_setting('app.organization_id', true), '') as org`,
        )
      ).rows[0].org;
    });
    expect(inside).toBe(String(first.orgId));
  });

  it('fails closed: a scoping statement that names no scope leaves later statements in no organization, as lm_app', async () => {
    const scoped = connection();
    // The scoping statement's shape, answering no row and so no scope.
    await scoped.db.execute(
      sql`select set_config('app.organization_id', ${String(first.orgId)}, true) as scope, set_config('role', ${APP_ROLE}, true) as role where false`,
    );
    expect(await sessionOf(scoped)).toEqual({ role: APP_ROLE, org: null });
    const visible = await scoped.db.execute<{ n: number }>(sql`select count(*)::int as n from leads`);
    expect(visible.rows[0].n).toBe(0);
  });

  it('is gone for a new connection after the scoped one closed', async () => {
    const scoped = openRequestDatabase(readConfig(env));
    await scopeSession(scoped.db, first.orgId);
    await scoped.close();
    const next = connection();
    const session = await sessionOf(next);
    expect(session.role).not.toBe(APP_ROLE);
    expect(session.org).toBeNull();
  });

  it('never runs a connection with a setting another connection SET', async () => {
    const setter = connection();
    const other = connection();
    const workMem = async (handle: DatabaseHandle) =>
      (await handle.db.execute<{ value: string }>(sql`select current_setting('work_mem') as value`)).rows[0].value;
    const before = await workMem(other);
    const probe = before === '77kB' ? '78kB' : '77kB';
    // Set and read back in one statement: on PGlite, another test file's connection may take the
    // shared session between two statements of the setter, which would reset it (by design).
    const set = await setter.db.execute<{ value: string }>(
      sql`select set_config('work_mem', ${probe}, false) as applied, current_setting('work_mem') as value`,
    );
    expect(set.rows[0].value).toBe(probe);
    // While the setter is still open, and after it closed.
    expect(await workMem(other)).toBe(before);
    await setter.close();
    expect(await workMem(connection())).toBe(before);
  });

  it('keeps concurrent requests of two organizations apart', async () => {
    const requests = Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? first : second));
    const responses = await Promise.all(
      requests.map((org) => call('GET', '/api/lead/list', { token: org.token, query: { limit: 100 } })),
    );
    const expected = await Promise.all(
      [first, second].map(async (org) =>
        (await call('GET', '/api/lead/list', { token: org.token, query: { limit: 100 } })).body.data.map(
          (lead: { id: number }) => lead.id,
        ),
      ),
    );
    expect(expected.map((ids: number[]) => ids.length)).toEqual([3, 3]);
    responses.forEach((response, i) => {
      expect(response.status).toBe(200);
      expect(response.body.data.map((lead: { id: number }) => lead.id)).toEqual(expected[i % 2]);
    });
  });
});
