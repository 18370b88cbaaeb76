/**
 * A page of a company import and a company delete over the same companies, at once (PostgreSQL
 * only: PGlite runs one transaction at a time, so this passes there whatever the locks). Both lock
 * their companies in id order, so one waits for the other; the page used to lock them in the order
 * its plan read them, and a page and a delete each held what the other needed (a deadlock).
 */
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { importCompaniesBatch } from '../src/modules/companies/import-batch';
import { deleteCompanies } from '../src/modules/companies/service';
import { createCompany } from './helpers/accounts';
import { signupOrganization, type SignedUp } from './helpers/api';
import { asTenant, inOrganization } from './helpers/leads';
import { holdingLock, inHeapOrder, onPglite, outcomes, pause, rowsAgainstIdOrder } from './helpers/lock-races';

let owner: SignedUp;

beforeAll(async () => {
  owner = await signupOrganization('Company import races');
});

/** Two companies (with their names) whose rows lie in the table against their id order (the higher id first). */
async function companiesAgainstIdOrder(): Promise<{ id: number; name: string }[]> {
  const pair = await rowsAgainstIdOrder(owner.orgId, 'companies', async () => [
    await createCompany(owner),
    await createCompany(owner),
  ]);
  const named = await inOrganization(owner.orgId, (tx) =>
    tx.execute<{ id: string; company_name: string }>(
      sql`select id, company_name from companies where id = any(${`{${pair.join(',')}}`}::bigint[])`,
    ),
  );
  const nameOf = new Map(named.rows.map((row) => [Number(row.id), row.company_name]));
  return pair.map((id) => ({ id, name: nameOf.get(id) as string }));
}

describe('a company import page and a company delete over the same companies, at once', () => {
  it('both commit (no deadlock)', async (context) => {
    if (await onPglite(owner.orgId)) context.skip();
    const [lower, higher] = await companiesAgainstIdOrder();
    // A writer holds the lower company; the delete (id order) queues for it first, then the page,
    // which (read in heap order, without the fix) locked the higher company before it queued.
    const holder = await holdingLock(
      owner.orgId,
      sql`select id from companies where id = ${lower.id} for no key update`,
    );
    const removal = asTenant(owner, (ctx) => deleteCompanies(ctx, { ids: [lower.id, higher.id] }));
    await pause(300);
    const page = inHeapOrder(owner, (ctx) =>
      importCompaniesBatch(ctx, 'hubspot', [
        { rowNumber: 1, externalId: `race-${higher.id}`, values: { company_name: higher.name, city: 'Lisbon' } },
        { rowNumber: 2, externalId: `race-${lower.id}`, values: { company_name: lower.name, city: 'Lisbon' } },
      ]),
    );
    await pause(300);
    holder.release();
    expect(await outcomes([holder.done, removal, page])).toEqual(['ok', 'ok', 'ok']);
    expect(await removal).toBe(2);
  });
});
