/**
 * Two multi-contact writes over the same contacts, at once (PostgreSQL only: PGlite runs one
 * transaction at a time, so these pass there whatever the locks). Each locks its contacts in id
 * order (contactTargetLocked), so one waits for the other; locked in the order its plan read them
 * (heap order, an index read backwards), a write and another locking in id order each held what the
 * other needed, and one of them was refused as a deadlock.
 */
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TenantContext } from '../src/db/tenant';
import { bulkUpdateContacts } from '../src/modules/contacts/bulk';
import { deleteContacts } from '../src/modules/contacts/service';
import { createCompany, createContact } from './helpers/accounts';
import { signupOrganization, type SignedUp } from './helpers/api';
import { asTenant, inOrganization } from './helpers/leads';

let owner: SignedUp;

beforeAll(async () => {
  owner = await signupOrganization('Contact bulk races');
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Two contacts whose rows lie in the table against their id order (the higher id first). */
async function contactsAgainstIdOrder(): Promise<[number, number]> {
  const company = await createCompany(owner);
  const ids: number[] = [];
  for (let index = 0; index < 6; index++) ids.push(await createContact(owner, { company_id: company }));
  for (let round = 0; round < 5; round++) {
    for (const id of [...ids].reverse()) {
      await inOrganization(owner.orgId, (tx) =>
        tx.execute(sql`update contacts set lead_score = ${round} where id = ${id}`),
      );
    }
    const heap = await inOrganization(owner.orgId, (tx) =>
      tx.execute<{ id: string }>(
        sql`select id from contacts where id = any(${`{${ids.join(',')}}`}::bigint[]) order by ctid`,
      ),
    );
    const order = heap.rows.map((row) => Number(row.id));
    for (const [index, higher] of order.entries()) {
      const lower = order.slice(index + 1).find((id) => id < higher);
      if (lower !== undefined) return [lower, higher];
    }
  }
  throw new Error('the contacts stayed in id order');
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

describe('two multi-contact writes over the same contacts, at once', () => {
  const writes: [string, (ctx: TenantContext, ids: number[]) => Promise<number>][] = [
    ['a bulk update', (ctx, ids) => bulkUpdateContacts(ctx, { contact_ids: ids }, { lead_score: 77 })],
    ['a delete', (ctx, ids) => deleteContacts(ctx, { ids })],
  ];
  for (const [name, write] of writes) {
    it(`${name} read in heap order and a writer locking in id order both commit (no deadlock)`, async (context) => {
      const version = await inOrganization(owner.orgId, (tx) => tx.execute<{ v: string }>(sql`select version() as v`));
      if (/emscripten|wasm/i.test(version.rows[0].v)) context.skip();
      const ids = await contactsAgainstIdOrder();
      let release: () => void = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let held: () => void = () => {};
      const holding = new Promise<void>((resolve) => {
        held = resolve;
      });
      // A writer holds the lower contact; a writer locking both in id order (as each multi-contact
      // write does now) queues for it first, then the write read in heap order, which (without the
      // fix) locked the higher contact before it queued.
      const holder = inOrganization(owner.orgId, async (tx) => {
        await tx.execute(sql`select id from contacts where id = ${ids[0]} for no key update`);
        held();
        await released;
      });
      await holding;
      const first = inOrganization(owner.orgId, (tx) =>
        tx.execute(
          sql`select id from contacts where id = any(${`{${ids.join(',')}}`}::bigint[]) order by id for no key update`,
        ),
      );
      await pause(300);
      const second = inHeapOrder((ctx) => write(ctx, ids));
      await pause(300);
      release();
      const settled = await Promise.allSettled([holder, first, second]);
      expect(settled.map((result) => (result.status === 'rejected' ? String(result.reason) : 'ok'))).toEqual([
        'ok',
        'ok',
        'ok',
      ]);
      expect(await second).toBe(2);
    });
  }
});
