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
import { asTenant, createLead, inOrganization } from './helpers/leads';

let owner: SignedUp;

beforeAll(async () => {
  owner = await signupOrganization('Bulk races');
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Two leads whose rows lie in the table against their id order (the higher id first), as rows
 * rewritten a while after their creation lie: a read in heap order meets the higher id first.
 */
async function leadsAgainstIdOrder(linked: Linked): Promise<[number, number]> {
  // Where a new row version lands depends on the table's free space, which other tests' writes
  // keep changing: a fresh batch of leads is tried until two lie against their id order.
  for (let batch = 0; batch < 8; batch++) {
    const ids: number[] = [];
    for (let index = 0; index < 6; index++) ids.push(await createLead(owner, `Bulk ${index}`, 'Race'));
    await inOrganization(owner.orgId, (tx) =>
      tx.execute(
        sql`update leads set company_id = ${linked.companyId}, status = ${linked.status.value} where id = any(${`{${ids.join(',')}}`}::bigint[])`,
      ),
    );
    // Each lower id rewritten after the higher ones (again, while the free space map put them back in order).
    for (let round = 0; round < 5; round++) {
      for (const id of [...ids].reverse()) {
        await inOrganization(owner.orgId, (tx) =>
          // A wide new version (about 1 KB of random text): it goes where the free space map sends
          // it, the same page for consecutive updates, so the higher id, rewritten first, lies first.
          tx.execute(
            sql`update leads set city = ${`Moved ${round}`}, address = (select string_agg(md5(random()::text), '') from generate_series(1, 30)) where id = ${id}`,
          ),
        );
      }
      const heap = await inOrganization(owner.orgId, (tx) =>
        tx.execute<{ id: string }>(
          sql`select id from leads where id = any(${`{${ids.join(',')}}`}::bigint[]) order by ctid`,
        ),
      );
      const order = heap.rows.map((row) => Number(row.id));
      for (const [index, higher] of order.entries()) {
        const lower = order.slice(index + 1).find((id) => id < higher);
        if (lower !== undefined) return [lower, higher];
      }
    }
  }
  throw new Error('the leads stayed in id order');
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
      const version = await inOrganization(owner.orgId, (tx) => tx.execute<{ v: string }>(sql`select version() as v`));
      if (/emscripten|wasm/i.test(version.rows[0].v)) context.skip();
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
      let release: () => void = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let held: () => void = () => {};
      const holding = new Promise<void>((resolve) => {
        held = resolve;
      });
      // A writer holds the lower lead; the scoring batch (id order) queues for it first, then the bulk
      // action, which (read in heap order, without the fix) locked the higher lead before it queued.
      const holder = inOrganization(owner.orgId, async (tx) => {
        await tx.execute(sql`select id from leads where id = ${lowest} for no key update`);
        held();
        await released;
      });
      await holding;
      const scoring = inOrganization(owner.orgId, async (tx) =>
        scoreLeadBatch(
          tx,
          owner.orgId,
          await currentModel(tx, owner.orgId),
          sql`l.id = any(${`{${ids.join(',')}}`}::bigint[])`,
        ),
      );
      await pause(300);
      const bulk = asTenant(owner, async (ctx) => {
        // The plan of an organization with many leads: its leads read in heap order (a sequential scan).
        await ctx.db.execute(
          sql`select set_config('enable_indexscan', 'off', true), set_config('enable_bitmapscan', 'off', true), set_config('enable_indexonlyscan', 'off', true)`,
        );
        return action(ctx, ids, linked);
      });
      await pause(300);
      release();
      const settled = await Promise.allSettled([holder, scoring, bulk]);
      expect(settled.map((result) => (result.status === 'rejected' ? String(result.reason) : 'ok'))).toEqual([
        'ok',
        'ok',
        'ok',
      ]);
      expect(((await bulk) as number) > 0).toBe(true);
    });
  }
});
