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
import { inOrganization } from './helpers/leads';
import { holdingLock, inHeapOrder, onPglite, outcomes, pause, rowsAgainstIdOrder } from './helpers/lock-races';

let owner: SignedUp;

beforeAll(async () => {
  owner = await signupOrganization('Contact bulk races');
});

/** Two contacts whose rows lie in the table against their id order (the higher id first). */
async function contactsAgainstIdOrder(): Promise<[number, number]> {
  const company = await createCompany(owner);
  return rowsAgainstIdOrder(
    owner.orgId,
    'contacts',
    async () => {
      const ids: number[] = [];
      for (let index = 0; index < 6; index++) ids.push(await createContact(owner, { company_id: company }));
      return ids;
    },
    (id, round) => sql`update contacts set lead_score = ${round} where id = ${id}`,
  );
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
