/**
 * Row-level security holds on its own, without the service layer's filters.
 */
import { env } from 'cloudflare:test';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, withTenant, type DatabaseHandle } from '../src/db/client';
import { signupOrganization, type SignedUp } from './helpers/api';

describe('row-level security', () => {
  let handle: DatabaseHandle;
  let a: SignedUp;
  let b: SignedUp;

  beforeAll(async () => {
    handle = openDatabase(env as never);
    [a, b] = await Promise.all([signupOrganization('RlsA'), signupOrganization('RlsB')]);
  });

  afterAll(async () => {
    await handle.close();
  });

  it('shows no tenant rows to the application role when no organization is set', async () => {
    const counts = await handle.db.transaction(async (tx) => {
      const total = await tx.execute<{ n: string }>(sql`select count(*) as n from users`);
      await tx.execute(sql`select set_config('role', 'lm_app', true)`);
      const visible = await tx.execute<{ n: string }>(sql`select count(*) as n from users`);
      const organizations = await tx.execute<{ n: string }>(sql`select count(*) as n from organizations`);
      return { total: Number(total.rows[0].n), visible: Number(visible.rows[0].n), organizations: Number(organizations.rows[0].n) };
    });
    expect(counts.total).toBeGreaterThanOrEqual(2);
    expect(counts.visible).toBe(0);
    expect(counts.organizations).toBe(0);
  });

  it('shows only the scoped organization’s rows', async () => {
    const rows = await withTenant(handle.db, a.orgId, (tx) => tx.execute<{ organization_id: string }>(sql`select organization_id from users`));
    expect(rows.rows.length).toBeGreaterThan(0);
    expect(rows.rows.every((row) => Number(row.organization_id) === a.orgId)).toBe(true);
  });

  it('refuses to write a row for another organization', async () => {
    await expect(
      withTenant(handle.db, a.orgId, (tx) => tx.execute(sql`insert into roles (organization_id, name) values (${b.orgId}, 'smuggled')`)),
    ).rejects.toThrow();
    const smuggled = await withTenant(handle.db, b.orgId, (tx) => tx.execute(sql`select id from roles where name = 'smuggled'`));
    expect(smuggled.rows).toHaveLength(0);
  });

  it('cannot move a row to another organization', async () => {
    await expect(
      withTenant(handle.db, a.orgId, (tx) => tx.execute(sql`update roles set organization_id = ${b.orgId} where name = 'manager'`)),
    ).rejects.toThrow();
  });
});
