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
import { deleteContacts, updateContact } from '../src/modules/contacts/service';
import { updateLookup } from '../src/modules/lookups/service';
import { createCompany, createContact } from './helpers/accounts';
import { call, signupOrganization, type SignedUp } from './helpers/api';
import { asTenant, inOrganization } from './helpers/leads';
import { holding, holdingLock, inHeapOrder, onPglite, outcomes, pause, rowsAgainstIdOrder } from './helpers/lock-races';

let owner: SignedUp;

beforeAll(async () => {
  owner = await signupOrganization('Contact bulk races');
});

/** Two contacts (given `fields`) whose rows lie in the table against their id order (the higher id first). */
async function contactsAgainstIdOrder(fields: Record<string, unknown> = {}): Promise<[number, number]> {
  const company = await createCompany(owner);
  return rowsAgainstIdOrder(owner.orgId, 'contacts', async () => [
    await createContact(owner, { company_id: company, ...fields }),
    await createContact(owner, { company_id: company, ...fields }),
  ]);
}

describe('two multi-contact writes over the same contacts, at once', () => {
  const writes: [string, (ctx: TenantContext, ids: number[]) => Promise<number>][] = [
    ['a bulk update', (ctx, ids) => bulkUpdateContacts(ctx, { contact_ids: ids }, { lead_score: 77 })],
    ['a delete', (ctx, ids) => deleteContacts(ctx, { ids })],
  ];
  for (const [name, write] of writes) {
    it(`${name} read in heap order and a writer locking in id order both commit (no deadlock)`, async (context) => {
      if (await onPglite(owner.orgId)) context.skip();
      const ids = await contactsAgainstIdOrder();
      // A writer holds the lower contact; a writer locking both in id order (as each multi-contact
      // write does now) queues for it first, then the write read in heap order, which (without the
      // fix) locked the higher contact before it queued.
      const holder = await holdingLock(
        owner.orgId,
        sql`select id from contacts where id = ${ids[0]} for no key update`,
      );
      const first = inOrganization(owner.orgId, (tx) =>
        tx.execute(
          sql`select id from contacts where id = any(${`{${ids.join(',')}}`}::bigint[]) order by id for no key update`,
        ),
      );
      await pause(300);
      const second = inHeapOrder(owner, (ctx) => write(ctx, ids));
      await pause(300);
      holder.release();
      expect(await outcomes([holder.done, first, second])).toEqual(['ok', 'ok', 'ok']);
      expect(await second).toBe(2);
    });
  }
});

describe('a status value change and a multi-contact write over the same contacts, at once', () => {
  it('the change read in heap order and a writer locking in id order both commit (no deadlock)', async (context) => {
    if (await onPglite(owner.orgId)) context.skip();
    const added = await call('POST', '/api/custom-lookups/add', {
      token: owner.token,
      body: { module_name: 'lead', type: 'status', name: `Race ${crypto.randomUUID().slice(0, 6)}` },
    });
    expect(added.status, added.text).toBe(201);
    const status = { id: added.body.data.id as number, value: added.body.data.value as number };
    const ids = await contactsAgainstIdOrder({ status: status.value });
    // A writer holds the lower contact; a bulk contact write (id order) queues for it first, then the
    // status change, whose contacts half (read in heap order, without the fix) locked the higher
    // contact before it queued.
    const holder = await holdingLock(owner.orgId, sql`select id from contacts where id = ${ids[0]} for no key update`);
    const bulk = inOrganization(owner.orgId, (tx) =>
      tx.execute(
        sql`select id from contacts where id = any(${`{${ids.join(',')}}`}::bigint[]) order by id for no key update`,
      ),
    );
    await pause(300);
    const change = inHeapOrder(owner, (ctx) => updateLookup(ctx, status.id, { value: status.value + 1000 }));
    await pause(300);
    holder.release();
    expect(await outcomes([holder.done, bulk, change])).toEqual(['ok', 'ok', 'ok']);
    const moved = await inOrganization(owner.orgId, (tx) =>
      tx.execute<{ status: number }>(
        sql`select status from contacts where id = any(${`{${ids.join(',')}}`}::bigint[]) order by id`,
      ),
    );
    expect(moved.rows.map((row) => Number(row.status))).toEqual([status.value + 1000, status.value + 1000]);
  });
});

describe('a contact changed by two writes at once', () => {
  /** Runs `change` in a transaction that stays open, uncommitted, until `release` is called. */
  async function heldChange(change: (ctx: TenantContext) => Promise<unknown>) {
    const { held, release, done } = holding(owner, change);
    await held;
    return { release, done };
  }

  it('records each change from the value the other committed while it waited, not the value it read at its start', async (context) => {
    if (await onPglite(owner.orgId)) context.skip();
    const company = await createCompany(owner);
    const id = await createContact(owner, { company_id: company, designation: 'Analyst', lead_score: 1 });

    const first = await heldChange((ctx) => updateContact(ctx, id, { designation: 'Manager', lead_score: 10 }));
    // Its statement starts while the contact still reads Analyst, then waits for the first write.
    const second = asTenant(owner, (ctx) => updateContact(ctx, id, { designation: 'Director' }));
    await pause(300);
    first.release();
    expect(await outcomes([first.done, second])).toEqual(['ok', 'ok']);

    const third = await heldChange((ctx) => updateContact(ctx, id, { lead_score: 20 }));
    const bulk = asTenant(owner, (ctx) => bulkUpdateContacts(ctx, { contact_ids: [id] }, { lead_score: 30 }));
    await pause(300);
    third.release();
    expect(await outcomes([third.done, bulk])).toEqual(['ok', 'ok']);

    const feed = await call('GET', '/api/feed/list', {
      token: owner.token,
      query: { model_type: 'contact', model_id: id, order_in: 'ASC' },
    });
    expect(feed.status, feed.text).toBe(200);
    expect(feed.body.data.map((entry: { changes: unknown }) => entry.changes).slice(1)).toEqual([
      { designation: { from: 'Analyst', to: 'Manager' }, lead_score: { from: 1, to: 10 } },
      { designation: { from: 'Manager', to: 'Director' } },
      { lead_score: { from: 10, to: 20 } },
      { lead_score: { from: 20, to: 30 } },
    ]);
  });
});
