/**
 * The database refuses a reference from one organization's row to another organization's record,
 * whatever code wrote it: every foreign key between two tenant tables carries organization_id on
 * both sides (drizzle/0082_tenant_foreign_keys.sql). The services check references before they
 * write (db/references.ts) and answer 404/422; these keys are the floor under those checks, so
 * the tests write through the app's own database access, below the services.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { signupOrganization } from './helpers/api';
import { createLead, inOrganization } from './helpers/leads';

type TenantKey = {
  name: string;
  child: string;
  parent: string;
  /** The key's columns on each side, in order. */
  columns: string[];
  parent_columns: string[];
  /** `n` for ON DELETE SET NULL. */
  on_delete: string;
  definition: string;
};

/** Every foreign key whose two tables both have an organization_id. */
async function tenantKeys(orgId: number): Promise<TenantKey[]> {
  return inOrganization(orgId, async (tx) => {
    const result = await tx.execute<TenantKey>(sql`
      select c.conname as name, c.conrelid::regclass::text as child, c.confrelid::regclass::text as parent,
        array(select a.attname::text from unnest(c.conkey) with ordinality k(attnum, n)
          join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum order by k.n) as columns,
        array(select a.attname::text from unnest(c.confkey) with ordinality k(attnum, n)
          join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.attnum order by k.n) as parent_columns,
        c.confdeltype::text as on_delete, pg_get_constraintdef(c.oid) as definition
      from pg_constraint c
      join pg_namespace n on n.oid = c.connamespace and n.nspname = 'public'
      where c.contype = 'f'
        and exists (select 1 from pg_attribute a where a.attrelid = c.conrelid and a.attname = 'organization_id')
        and exists (select 1 from pg_attribute a where a.attrelid = c.confrelid and a.attname = 'organization_id')`);
    return result.rows;
  });
}

/** Runs `work` and returns the PostgreSQL error it failed with (drizzle wraps it as `cause`). */
async function failure(work: Promise<unknown>): Promise<{ code?: string; constraint?: string } | undefined> {
  return work.then(
    () => undefined,
    (caught: Error & { cause?: { code?: string; constraint?: string } }) => caught.cause ?? (caught as never),
  );
}

describe('tenant foreign keys', () => {
  it('every foreign key between two tenant tables pairs organization_id with organization_id', async () => {
    const org = await signupOrganization('Tenant keys');
    const keys = await tenantKeys(org.orgId);
    // The keys to organizations(id) itself have no organization_id on the parent side; these are
    // the references between records (128 when this test was written).
    expect(keys.length).toBeGreaterThan(100);
    const single = keys
      .filter((key) => {
        const at = key.columns.indexOf('organization_id');
        return at < 0 || key.parent_columns[at] !== 'organization_id';
      })
      .map((key) => `${key.child}.${key.columns.join(',')} -> ${key.parent}`);
    expect(single).toEqual([]);
  });

  it('a key that clears its reference on delete clears that column alone, never organization_id', async () => {
    const org = await signupOrganization('Tenant keys set null');
    const keys = (await tenantKeys(org.orgId)).filter((key) => key.on_delete === 'n');
    expect(keys.length).toBeGreaterThan(40);
    const clearingAll = keys
      .filter((key) => {
        const column = key.columns.find((name) => name !== 'organization_id');
        return !key.definition.includes(`ON DELETE SET NULL (${column})`);
      })
      .map((key) => key.definition);
    expect(clearingAll).toEqual([]);
  });

  it("refuses a row that points at another organization's record, and accepts its own", async () => {
    const [a, b] = await Promise.all([signupOrganization('Keys A'), signupOrganization('Keys B')]);
    const [leadA, leadB] = await Promise.all([createLead(a), createLead(b)]);

    // Assigning A's lead to B's user: the users row exists, but not in A.
    const assign = (userId: number) =>
      inOrganization(a.orgId, (tx) => tx.execute(sql`update leads set assigned_to = ${userId} where id = ${leadA}`));
    const crossAssign = await failure(assign(b.userId));
    expect(crossAssign).toMatchObject({ code: '23503', constraint: 'leads_assigned_to_tenant_fk' });
    expect(await failure(assign(a.userId))).toBeUndefined();

    // A note of A's on B's lead.
    const note = (leadId: number) =>
      inOrganization(a.orgId, (tx) =>
        tx.execute(
          sql`insert into lead_notes (organization_id, lead_id, title) values (${a.orgId}, ${leadId}, 'Call back')`,
        ),
      );
    expect(await failure(note(leadB))).toMatchObject({ code: '23503', constraint: 'lead_notes_lead_id_tenant_fk' });
    expect(await failure(note(leadA))).toBeUndefined();

    const assigned = await inOrganization(a.orgId, (tx) =>
      tx.execute<{ assigned_to: string; notes: string }>(
        sql`select assigned_to::text, (select count(*) from lead_notes where lead_id = ${leadA})::text as notes from leads where id = ${leadA}`,
      ),
    );
    expect(assigned.rows[0]).toEqual({ assigned_to: String(a.userId), notes: '1' });
  });

  it('deleting a record clears the references to it and keeps their organization', async () => {
    const org = await signupOrganization('Keys delete');
    const leadId = await createLead(org, 'Ada', 'Lovelace');
    const meeting = await inOrganization(org.orgId, async (tx) => {
      const inserted = await tx.execute<{ id: string }>(sql`
        insert into meetings (organization_id, user_id, lead_id, title, start_time, end_time)
        values (${org.orgId}, ${org.userId}, ${leadId}, 'Intro', now() + interval '1 day', now() + interval '1 day 30 minutes')
        returning id::text`);
      await tx.execute(sql`delete from leads where id = ${leadId}`);
      const after = await tx.execute<{ organization_id: string; lead_id: string | null }>(
        sql`select organization_id::text, lead_id::text from meetings where id = ${inserted.rows[0].id}`,
      );
      return after.rows[0];
    });
    expect(meeting).toEqual({ organization_id: String(org.orgId), lead_id: null });
  });
});
