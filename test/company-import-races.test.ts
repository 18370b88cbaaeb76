/**
 * A page of a company import and a company delete over the same companies, at once (PostgreSQL
 * only: PGlite runs one transaction at a time, so this passes there whatever the locks). Both lock
 * their companies in id order, so one waits for the other; the page used to lock them in the order
 * its plan read them, and a page and a delete each held what the other needed (a deadlock).
 */
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TenantContext } from '../src/db/tenant';
import { importCompaniesBatch } from '../src/modules/companies/import-batch';
import { deleteCompanies } from '../src/modules/companies/service';
import { createCompany } from './helpers/accounts';
import { signupOrganization, type SignedUp } from './helpers/api';
import { asTenant, inOrganization } from './helpers/leads';

let owner: SignedUp;

beforeAll(async () => {
  owner = await signupOrganization('Company import races');
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Two companies (with their names) whose rows lie in the table against their id order (the higher id first). */
async function companiesAgainstIdOrder(): Promise<{ id: number; name: string }[]> {
  const ids: number[] = [];
  for (let index = 0; index < 6; index++) ids.push(await createCompany(owner));
  for (let round = 0; round < 5; round++) {
    for (const id of [...ids].reverse()) {
      await inOrganization(owner.orgId, (tx) =>
        tx.execute(sql`update companies set rating = ${round} where id = ${id}`),
      );
    }
    const heap = await inOrganization(owner.orgId, (tx) =>
      tx.execute<{ id: string; company_name: string }>(
        sql`select id, company_name from companies where id = any(${`{${ids.join(',')}}`}::bigint[]) order by ctid`,
      ),
    );
    const order = heap.rows.map((row) => ({ id: Number(row.id), name: row.company_name }));
    for (const [index, higher] of order.entries()) {
      const lower = order.slice(index + 1).find((company) => company.id < higher.id);
      if (lower !== undefined) return [lower, higher];
    }
  }
  throw new Error('the companies stayed in id order');
}

/** Runs `work` as the organization with its tables read in heap order (the plan of many rows). */
function inHeapOrder<T>(work: (ctx: TenantContext) => Promise<T>): Promise<T> {
  return asTenant(owner, async (ctx) => {
    await ctx.db.execute(
      sql`select set_config('enable_indexscan', 'off', true), set_config('enable_bitmapscan', 'off', true), set_config('enable_indexonlyscan', 'off', true)`,
    );
    return work(ctx);
  });
}

describe('a company import page and a company delete over the same companies, at once', () => {
  it('both commit (no deadlock)', async (context) => {
    const version = await inOrganization(owner.orgId, (tx) => tx.execute<{ v: string }>(sql`select version() as v`));
    if (/emscripten|wasm/i.test(version.rows[0].v)) context.skip();
    const [lower, higher] = await companiesAgainstIdOrder();
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let held: () => void = () => {};
    const holding = new Promise<void>((resolve) => {
      held = resolve;
    });
    // A writer holds the lower company; the delete (id order) queues for it first, then the page,
    // which (read in heap order, without the fix) locked the higher company before it queued.
    const holder = inOrganization(owner.orgId, async (tx) => {
      await tx.execute(sql`select id from companies where id = ${lower.id} for no key update`);
      held();
      await released;
    });
    await holding;
    const removal = asTenant(owner, (ctx) => deleteCompanies(ctx, { ids: [lower.id, higher.id] }));
    await pause(300);
    const page = inHeapOrder((ctx) =>
      importCompaniesBatch(ctx, 'hubspot', [
        { rowNumber: 1, externalId: `race-${higher.id}`, values: { company_name: higher.name, city: 'Lisbon' } },
        { rowNumber: 2, externalId: `race-${lower.id}`, values: { company_name: lower.name, city: 'Lisbon' } },
      ]),
    );
    await pause(300);
    release();
    const settled = await Promise.allSettled([holder, removal, page]);
    expect(settled.map((result) => (result.status === 'rejected' ? String(result.reason) : 'ok'))).toEqual([
      'ok',
      'ok',
      'ok',
    ]);
    expect(await removal).toBe(2);
  });
});
