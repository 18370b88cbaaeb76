/**
 * Row-level security holds on its own, without the service layer's organization filters: raw
 * SQL as the application role sees and writes only the organization the transaction is scoped to.
 */
import { env } from 'cloudflare:test';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { type Database, openDatabase, type Transaction } from '../src/db/client';
import { call, signupOrganization, uniqueEmail, type SignedUp } from './helpers/api';

/** One pooled connection for a test; closed afterwards. */
async function withDatabase<T>(work: (db: Database) => Promise<T>): Promise<T> {
  const handle = openDatabase(env as never);
  try {
    return await work(handle.db);
  } finally {
    await handle.close();
  }
}

/** Switches the open transaction to the application role (no BYPASSRLS), optionally scoped to an organization. */
async function actAsApp(tx: Transaction, organizationId?: number): Promise<void> {
  await tx.execute(sql`select set_config('role', 'lm_app', true)`);
  if (organizationId !== undefined)
    await tx.execute(sql`select set_config('app.organization_id', ${String(organizationId)}, true)`);
}

async function count(tx: Transaction, query: ReturnType<typeof sql>): Promise<number> {
  const result = await tx.execute<{ n: string }>(query);
  return Number(result.rows[0].n);
}

/** Expects the work to fail because of a row-level security policy, not for any other reason. */
async function expectRlsRefusal(work: Promise<unknown>): Promise<void> {
  const error = await work.then(
    () => undefined,
    (caught: unknown) => caught as Error & { cause?: Error },
  );
  expect(error, 'the statement was not refused').toBeDefined();
  expect(`${error?.message} ${error?.cause?.message ?? ''}`).toMatch(/row-level security/);
}

async function addUser(org: SignedUp): Promise<void> {
  const response = await call('POST', '/api/user/add', {
    token: org.token,
    body: { first_name: 'Rep', email: uniqueEmail('rls'), phone_no: '+15550100', password: 'password123' },
  });
  expect(response.status, response.text).toBe(201);
}

describe('row-level security', () => {
  it('shows the application role no users at all when app.organization_id is not set, although users exist', async () => {
    await Promise.all([signupOrganization('RlsA'), signupOrganization('RlsB')]);
    const counts = await withDatabase((db) =>
      db.transaction(async (tx) => {
        const existing = await count(tx, sql`select count(*) as n from users`);
        await actAsApp(tx);
        return {
          existing,
          users: await count(tx, sql`select count(*) as n from users`),
          roles: await count(tx, sql`select count(*) as n from roles`),
          organizations: await count(tx, sql`select count(*) as n from organizations`),
          apiKeys: await count(tx, sql`select count(*) as n from api_keys`),
        };
      }),
    );
    expect(counts.existing).toBeGreaterThanOrEqual(2);
    expect(counts).toMatchObject({ users: 0, roles: 0, organizations: 0, apiKeys: 0 });
  });

  it('shows only organization A’s users when app.organization_id is A', async () => {
    const [a, b] = await Promise.all([signupOrganization('RlsA'), signupOrganization('RlsB')]);
    await addUser(a);
    await addUser(b);
    const visible = await withDatabase((db) =>
      db.transaction(async (tx) => {
        await actAsApp(tx, a.orgId);
        return (await tx.execute<{ id: string; organization_id: string }>(sql`select id, organization_id from users`))
          .rows;
      }),
    );
    expect(visible).toHaveLength(2);
    expect(visible.every((row) => Number(row.organization_id) === a.orgId)).toBe(true);
    expect(visible.map((row) => Number(row.id))).toContain(a.userId);
    // Even an explicit filter on B finds nothing.
    const ofB = await withDatabase((db) =>
      db.transaction(async (tx) => {
        await actAsApp(tx, a.orgId);
        return count(tx, sql`select count(*) as n from users where organization_id = ${b.orgId}`);
      }),
    );
    expect(ofB).toBe(0);
  });

  it('refuses an insert into roles for organization B while scoped to A', async () => {
    const [a, b] = await Promise.all([signupOrganization('RlsA'), signupOrganization('RlsB')]);
    await expectRlsRefusal(
      withDatabase((db) =>
        db.transaction(async (tx) => {
          await actAsApp(tx, a.orgId);
          await tx.execute(sql`insert into roles (organization_id, name) values (${b.orgId}, 'smuggled')`);
        }),
      ),
    );
    const roles = await call('GET', '/api/role/list', { token: b.token, query: { limit: 100 } });
    expect(roles.body.data.map((role: { name: string }) => role.name)).not.toContain('smuggled');
  });

  it('refuses an insert when no organization is set', async () => {
    const a = await signupOrganization('RlsA');
    await expectRlsRefusal(
      withDatabase((db) =>
        db.transaction(async (tx) => {
          await actAsApp(tx);
          await tx.execute(sql`insert into roles (organization_id, name) values (${a.orgId}, 'unscoped')`);
        }),
      ),
    );
  });

  it('refuses to move a row to another organization, and cannot touch another organization’s rows', async () => {
    const [a, b] = await Promise.all([signupOrganization('RlsA'), signupOrganization('RlsB')]);
    await expectRlsRefusal(
      withDatabase((db) =>
        db.transaction(async (tx) => {
          await actAsApp(tx, a.orgId);
          await tx.execute(sql`update roles set organization_id = ${b.orgId} where name = 'manager'`);
        }),
      ),
    );
    const touched = await withDatabase((db) =>
      db.transaction(async (tx) => {
        await actAsApp(tx, a.orgId);
        const updated = await tx.execute(
          sql`update users set first_name = 'Hijacked' where organization_id = ${b.orgId}`,
        );
        const deleted = await tx.execute(sql`delete from api_keys where organization_id = ${b.orgId}`);
        return { updated: updated.rowCount, deleted: deleted.rowCount };
      }),
    );
    expect(touched).toEqual({ updated: 0, deleted: 0 });
    const me = await call('GET', '/api/user/my', { token: b.token });
    expect(me.body.data.first_name).toBe('Ada');
  });

  it('is enabled, with a tenant policy, on every table that has an organization_id', async () => {
    const tables = await withDatabase(
      async (db) =>
        (
          await db.execute<{ table_name: string; rls: boolean; policies: string }>(sql`
          select c.relname as table_name, c.relrowsecurity as rls,
                 (select count(*) from pg_policies p where p.schemaname = 'public' and p.tablename = c.relname and 'lm_app' = any(p.roles)) as policies
          from pg_class c
          join pg_namespace n on n.oid = c.relnamespace and n.nspname = 'public'
          where c.relkind in ('r', 'p')
            and exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'organization_id' and not a.attisdropped)
          order by c.relname`)
        ).rows,
    );
    expect(tables.map((table) => table.table_name)).toEqual(
      expect.arrayContaining(['users', 'roles', 'api_keys', 'revoked_tokens']),
    );
    const unprotected = tables
      .filter((table) => !table.rls || Number(table.policies) === 0)
      .map((table) => table.table_name);
    expect(unprotected).toEqual([]);
  });

  it('confines every view the application role reads to the transaction’s organization, and shows nothing outside one', async () => {
    // The scope views (lead_key_scope, company_key_scope, …) are owned by the tables' owner, so
    // row-level security does not filter them: each must filter itself, as the policy does.
    const [a, b] = await Promise.all([signupOrganization('View A'), signupOrganization('View B')]);
    for (const org of [a, b]) {
      const company = await call('POST', '/api/company/add', {
        token: org.token,
        body: { company_name: `View Company ${org.orgId}` },
      });
      expect(company.status, company.text).toBe(201);
      for (const [path, body] of [
        [
          '/api/lead/add',
          {
            first_name: 'View',
            last_name: 'Lead',
            email: uniqueEmail('view'),
            phone_number: '+1 415 555 0100',
            profile_url: `https://www.linkedin.com/in/view-${org.orgId}`,
          },
        ],
        [
          '/api/contact/add',
          {
            name: 'View Contact',
            company_id: company.body.data.id,
            email: uniqueEmail('view-contact'),
            phone_number: '+1 415 555 0101',
          },
        ],
      ] as const) {
        const created = await call('POST', path, { token: org.token, body });
        expect(created.status, `${path} ${created.text}`).toBe(201);
      }
    }
    await withDatabase(async (db) => {
      const views = (
        await db.execute<{ view: string }>(sql`
          select c.relname as view from pg_class c
          join pg_namespace n on n.oid = c.relnamespace and n.nspname = 'public'
          where c.relkind = 'v' and has_table_privilege('lm_app', c.oid, 'select')
            and exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'organization_id')
          order by 1`)
      ).rows.map((row) => row.view);
      expect(views).toEqual(
        expect.arrayContaining([
          'company_key_scope',
          'contact_key_scope',
          'contact_phone_scope',
          'lead_key_scope',
          'lead_phone_scope',
          'lead_search_scope',
        ]),
      );
      for (const view of views) {
        const seen = await db.transaction(async (tx) => {
          await actAsApp(tx);
          const outside = await count(tx, sql`select count(*) as n from ${sql.identifier(view)}`);
          await actAsApp(tx, b.orgId);
          const own = await count(
            tx,
            sql`select count(*) as n from ${sql.identifier(view)} where organization_id = ${b.orgId}`,
          );
          const foreign = await count(
            tx,
            sql`select count(*) as n from ${sql.identifier(view)} where organization_id is distinct from ${b.orgId}`,
          );
          return { outside, own: own > 0, foreign };
        });
        expect(seen, view).toEqual({ outside: 0, own: true, foreign: 0 });
      }
    });
  });
});
