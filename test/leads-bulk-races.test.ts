/**
 * A bulk lead action (or a company rename, which writes the company's leads) and a scoring batch
 * over the same leads, at once (PostgreSQL only: PGlite runs one transaction at a time, so these
 * pass there whatever the locks). Every multi-lead writer locks its leads in id order
 * (src/modules/leads/row-locks.ts), so one waits for the other; locked in the order its plan read
 * them, a bulk action deadlocked with a scoring batch (which locks in id order) and one of them was
 * refused.
 */
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TenantContext } from '../src/db/tenant';
import { updateCompany } from '../src/modules/companies/service';
import { addTagsToLeads, assignLeads, changeLeadStatus, setLeadTags } from '../src/modules/leads/bulk';
import { leadLookups } from '../src/modules/leads/lead-lookups';
import { updateLookup } from '../src/modules/lookups/service';
import { currentModel } from '../src/modules/lead-scoring/model';
import { scoreLeadBatch } from '../src/modules/lead-scoring/score-leads';
import { createCompany } from './helpers/accounts';
import { call, signupOrganization, type SignedUp } from './helpers/api';
import { createLead, inOrganization } from './helpers/leads';
import { holdingLock, inHeapOrder, onPglite, outcomes, pause, rowsAgainstIdOrder } from './helpers/lock-races';

let owner: SignedUp;

beforeAll(async () => {
  owner = await signupOrganization('Bulk races');
});

/** Two leads of `linked` whose rows lie in the table against their id order (the higher id first). */
function leadsAgainstIdOrder(linked: Linked): Promise<[number, number]> {
  return rowsAgainstIdOrder(owner.orgId, 'leads', async () => {
    const ids: [number, number] = [
      await createLead(owner, 'Bulk 1', 'Race'),
      await createLead(owner, 'Bulk 2', 'Race'),
    ];
    await inOrganization(owner.orgId, (tx) =>
      tx.execute(
        sql`update leads set company_id = ${linked.companyId}, status = ${linked.status.value} where id = any(${`{${ids.join(',')}}`}::bigint[])`,
      ),
    );
    return ids;
  });
}

/** What the leads of a test hold: a company of their own and a status lookup of their own. */
interface Linked {
  companyId: number;
  status: { id: number; value: number };
}

/** A write over the leads `ids` (all of them `linked`); answers how many it changed. */
type BulkAction = (ctx: TenantContext, ids: number[], linked: Linked) => Promise<number>;

const actions: [string, BulkAction][] = [
  [
    'a status change',
    async (ctx, ids, linked) => {
      const lookups = await leadLookups(ctx);
      return changeLeadStatus(
        ctx,
        { ids },
        [...lookups.status].find((value) => value !== linked.status.value) as number,
      );
    },
  ],
  [
    'an assignment',
    async (ctx, ids) => {
      const lead = await ctx.db.execute<{ assigned_to: string | null }>(
        sql`select assigned_to from leads where id = ${ids[0]}`,
      );
      return assignLeads(ctx, { ids }, lead.rows[0].assigned_to === null ? owner.userId : null);
    },
  ],
  ['adding tags', async (ctx, ids) => addTagsToLeads(ctx, { ids }, [...(await leadLookups(ctx)).tags].slice(0, 1))],
  [
    'renaming their company',
    async (ctx, _ids, linked) => {
      await updateCompany(ctx, undefined as unknown as R2Bucket, linked.companyId, {
        company_name: `Renamed ${crypto.randomUUID().slice(0, 6)}`,
      });
      return 1;
    },
  ],
  [
    'renumbering their status',
    async (ctx, _ids, linked) => {
      await updateLookup(ctx, linked.status.id, { value: linked.status.value + 1000 });
      return 1;
    },
  ],
  ['replacing tags', async (ctx, ids) => setLeadTags(ctx, { ids }, [...(await leadLookups(ctx)).tags].slice(0, 1))],
];

describe('a bulk action and a scoring batch over the same leads, at once', () => {
  for (const [name, action] of actions) {
    it(`${name} and a scoring batch both commit (no deadlock)`, async (context) => {
      if (await onPglite(owner.orgId)) context.skip();
      const status = await call('POST', '/api/custom-lookups/add', {
        token: owner.token,
        body: { module_name: 'lead', type: 'status', name: `Race ${crypto.randomUUID().slice(0, 6)}` },
      });
      expect(status.status, status.text).toBe(201);
      const linked: Linked = {
        companyId: await createCompany(owner),
        status: { id: status.body.data.id, value: status.body.data.value },
      };
      const ids = await leadsAgainstIdOrder(linked);
      const lowest = ids[0];
      // A writer holds the lower lead; the scoring batch (id order) queues for it first, then the bulk
      // action, which (read in heap order, without the fix) locked the higher lead before it queued.
      const holder = await holdingLock(owner.orgId, sql`select id from leads where id = ${lowest} for no key update`);
      const scoring = inOrganization(owner.orgId, async (tx) =>
        scoreLeadBatch(
          tx,
          owner.orgId,
          await currentModel(tx, owner.orgId),
          sql`l.id = any(${`{${ids.join(',')}}`}::bigint[])`,
        ),
      );
      await pause(300);
      // The plan of an organization with many leads: its leads read in heap order (a sequential scan).
      const bulk = inHeapOrder(owner, (ctx) => action(ctx, ids, linked));
      await pause(300);
      holder.release();
      expect(await outcomes([holder.done, scoring, bulk])).toEqual(['ok', 'ok', 'ok']);
      expect(((await bulk) as number) > 0).toBe(true);
    });
  }
});
