/**
 * List totals that do not grow with the organization: the unfiltered lead total comes from the
 * organization's live-row counter (kept by triggers through every write path), a filtered total
 * past the bound is the planner's estimate and says so, cursor pages carry their first page's
 * total, and searches that filter give totals that match what is fetched.
 */
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { actorContext, type TenantContext } from '../src/db/tenant';
import { leadList } from '../src/modules/leads/listing';
import { csvOf, importAndWait, leadRows } from './cross-tenant/fixtures/jobs';
import { addDocument, documentForm, fileOf, samples } from './cross-tenant/fixtures/lead-activity';
import { call, signupOrganization, type SignedUp } from './helpers/api';
import { largeLists, listReferencesOf, liveRowsOf } from './helpers/list-tables';
import { createLead, inOrganization, softDeleteLead } from './helpers/leads';

async function leadTotal(owner: SignedUp, query: Record<string, string | number> = {}) {
  const response = await call('GET', '/api/lead/list', { token: owner.token, query });
  expect(response.status, response.text).toBe(200);
  return response.body as {
    total: number;
    total_is_estimate: boolean;
    data: { id: number }[];
    next_cursor: string | null;
  };
}

/** What the counter must equal: a plain count of the organization's live leads. */
async function liveLeads(owner: SignedUp): Promise<number> {
  const result = await inOrganization(owner.orgId, (tx) =>
    tx.execute<{ n: number }>(sql`select count(*)::int as n from leads where deleted_at is null`),
  );
  return result.rows[0].n;
}

async function counterRows(owner: SignedUp): Promise<{ organization_id: string; n: number }[]> {
  const result = await inOrganization(owner.orgId, (tx) =>
    tx.execute<{ organization_id: string; n: number }>(
      sql`select organization_id::text, count(*)::int as n from live_row_counts where relation = 'leads' group by organization_id`,
    ),
  );
  return result.rows;
}

describe('the unfiltered lead total (live-row counter)', () => {
  it('stays exact through create, bulk delete and import, with a handful of counter rows', async () => {
    const owner = await signupOrganization('Counter');
    expect((await leadTotal(owner)).total).toBe(0);

    const ids: number[] = [];
    for (const name of ['Ada', 'Grace', 'Edsger']) ids.push(await createLead(owner, name, 'Counted'));
    expect((await leadTotal(owner)).total).toBe(3);

    const deleted = await call('DELETE', '/api/lead/delete', { token: owner.token, body: { ids: ids.slice(0, 2) } });
    expect(deleted.status, deleted.text).toBe(200);
    expect((await leadTotal(owner)).total).toBe(1);

    await importAndWait(owner, csvOf(leadRows(4, `counter-${crypto.randomUUID().slice(0, 8)}`)));
    const listed = await leadTotal(owner);
    expect(listed).toMatchObject({ total: 5, total_is_estimate: false });
    expect(listed.total).toBe(await liveLeads(owner));

    // Folded as it goes: one row per writer in flight, not one per statement ever run.
    const rows = await counterRows(owner);
    expect(rows).toHaveLength(1);
    expect(rows[0].organization_id).toBe(String(owner.orgId));
    expect(rows[0].n).toBeLessThanOrEqual(2);
  }, 180_000);

  it('is kept by statements that bypass the services too (soft delete, restore, hard delete)', async () => {
    const owner = await signupOrganization('Counter raw');
    for (const name of ['One', 'Two', 'Three']) await createLead(owner, name, 'Raw');
    await inOrganization(owner.orgId, async (tx) => {
      await tx.execute(sql`update leads set deleted_at = now() where first_name in ('One', 'Two')`);
      await tx.execute(sql`update leads set deleted_at = null where first_name = 'Two'`);
      await tx.execute(sql`update leads set city = 'Nowhere'`);
      await tx.execute(sql`delete from leads where first_name = 'Three'`);
    });
    expect((await leadTotal(owner)).total).toBe(1);
    expect(await liveLeads(owner)).toBe(1);
  });

  it('is visible only to its own organization (RLS on live_row_counts)', async () => {
    const owner = await signupOrganization('Counter A');
    await createLead(owner, 'Solo', 'Lead');
    const result = await inOrganization(owner.orgId, (tx) =>
      tx.execute<{ n: number }>(sql`select count(distinct organization_id)::int as n from live_row_counts`),
    );
    expect(result.rows[0].n).toBe(1);
  });
});

describe('the unfiltered contact, company, deal, meeting and call totals (live-row counters)', () => {
  async function listed(owner: SignedUp, path: string) {
    const response = await call('GET', path, { token: owner.token, query: { limit: 2 } });
    expect(response.status, response.text).toBe(200);
    return response.body as { total: number; total_is_estimate?: boolean };
  }

  // Each large list's unfiltered total is its table's live-row counter (migration 0079).
  for (const list of largeLists) {
    it(`${list.path} stays exact through raw inserts, ${list.softDelete ? 'soft deletes, restores, ' : ''}updates and deletes, for its organization only`, async () => {
      const owner = await signupOrganization(`Counted ${list.table}`);
      const other = await signupOrganization(`Counted other ${list.table}`);
      const refs = await listReferencesOf(owner);
      const otherRefs = await listReferencesOf(other);
      const table = sql.identifier(list.table);
      const live = liveRowsOf(list);
      await inOrganization(other.orgId, (tx) => tx.execute(list.insert(otherRefs, 'other', 4)));
      const before = await listed(owner, list.path);

      await inOrganization(owner.orgId, async (tx) => {
        await tx.execute(list.insert(refs, 'counted', 5));
        if (list.softDelete) {
          await tx.execute(
            sql`update ${table} set deleted_at = now() where id in (select id from ${table} order by id desc limit 2)`,
          );
          await tx.execute(sql`update ${table} set deleted_at = null where id = (select max(id) from ${table})`);
        }
        await tx.execute(sql`update ${table} set updated_at = now()`);
        await tx.execute(sql`delete from ${table} where id = (select min(id) from ${table} where ${live})`);
      });
      const after = await listed(owner, list.path);
      const [counted] = (
        await inOrganization(owner.orgId, (tx) =>
          tx.execute<{ n: number }>(sql`select count(*)::int as n from ${table} where ${live}`),
        )
      ).rows;
      expect(after.total).toBe(counted.n);
      expect(after.total).toBe(before.total + (list.softDelete ? 3 : 4));
      expect(after.total_is_estimate ?? false).toBe(false);
      expect((await listed(other, list.path)).total).toBe(4);
      const [rows] = (
        await inOrganization(owner.orgId, (tx) =>
          tx.execute<{ n: number; live: number }>(
            sql`select count(*)::int as n, coalesce(sum(delta), 0)::int as live from live_row_counts where relation = ${list.table}`,
          ),
        )
      ).rows;
      // The counter itself (folded as it goes: a row or two, not one per statement).
      expect(rows.live).toBe(counted.n);
      expect(rows.n).toBeLessThanOrEqual(2);
    });
  }
});

describe('cursor pages', () => {
  it('carry the first page’s total instead of recounting; a new first page counts again', async () => {
    const owner = await signupOrganization('Carry');
    for (const name of ['Ann', 'Bob', 'Cid']) await createLead(owner, name, 'Carried');
    const first = await leadTotal(owner, { limit: 2 });
    expect(first.total).toBe(3);
    await createLead(owner, 'Dee', 'Carried');
    const next = await leadTotal(owner, { limit: 2, cursor: first.next_cursor as string });
    expect(next.total).toBe(3);
    expect((await leadTotal(owner, { limit: 2 })).total).toBe(4);
  });

  it('belong to their list, its filters and its organization: any other use is a 400 naming cursor, never a borrowed total', async () => {
    const owner = await signupOrganization('Bound cursor');
    const stranger = await signupOrganization('Stranger');
    for (const name of ['Ann', 'Bob', 'Cid']) await createLead(owner, name, 'Bound');
    await createLead(owner, 'Dee', 'Other');
    const first = await leadTotal(owner, { limit: 1 });
    expect(first.total).toBe(4);
    const cursor = first.next_cursor as string;
    const refused = [
      // another list of the same organization, with the same order_by/order_in
      await call('GET', '/api/exports/list', { token: owner.token, query: { limit: 1, cursor } }),
      await call('GET', '/api/custom-view/list', { token: owner.token, query: { limit: 1, cursor } }),
      // the same list with other filters
      await call('GET', '/api/lead/list', { token: owner.token, query: { limit: 1, cursor, search_value: 'Bound' } }),
      await call('GET', '/api/lead/list', { token: owner.token, query: { limit: 1, cursor, priority: '3' } }),
      // the same list of another organization
      await call('GET', '/api/lead/list', { token: stranger.token, query: { limit: 1, cursor } }),
    ];
    for (const response of refused) {
      expect(response.status, response.text).toBe(400);
      expect(response.body.error.code).toBe('cursor');
    }
    // The same list and filters, with another page size: still the walk it belongs to.
    const next = await leadTotal(owner, { limit: 2, cursor });
    expect(next.total).toBe(4);
    expect(next.data).toHaveLength(2);
  });

  it('a page past the end still answers the total', async () => {
    const owner = await signupOrganization('Past end');
    for (const name of ['Ann', 'Bob']) await createLead(owner, name, 'Past');
    expect(await leadTotal(owner, { page: 5, limit: 10 })).toMatchObject({
      data: [],
      total: 2,
      total_is_estimate: false,
    });
    expect(await leadTotal(owner, { page: 5, limit: 10, search_value: 'Past' })).toMatchObject({
      data: [],
      total: 2,
      total_is_estimate: false,
    });
  });
});

describe('a filtered total past the bound', () => {
  let owner: SignedUp;
  beforeAll(async () => {
    owner = await signupOrganization('Bound');
    for (const name of ['Ann', 'Bob', 'Cid', 'Dee', 'Eve']) await createLead(owner, name, 'Bounded');
  });

  async function run(query: Record<string, string | number>, exactUpTo: number) {
    return inOrganization(owner.orgId, (tx) => {
      const ctx: TenantContext = {
        db: tx,
        orgId: owner.orgId,
        ...actorContext({ kind: 'user', userId: owner.userId, role: 'admin' }),
      };
      return leadList.run(ctx, leadList.query.parse(query), { exactUpTo });
    });
  }

  it('is the planner’s estimate, never below the bound, flagged total_is_estimate; cursor pages carry the flag', async () => {
    const page = await run({ search_value: 'Bounded', limit: 2 }, 3);
    expect(page.totalIsEstimate).toBe(true);
    expect(page.total).toBeGreaterThanOrEqual(4);
    expect(page.rows).toHaveLength(2);
    const next = await run({ search_value: 'Bounded', limit: 2, cursor: page.nextCursor as string }, 3);
    expect(next).toMatchObject({ total: page.total, totalIsEstimate: true });
  });

  it('is exact up to the bound', async () => {
    expect(await run({ search_value: 'Bounded' }, 5)).toMatchObject({ total: 5, totalIsEstimate: false });
  });

  it('does not apply to the unfiltered list, whose counter is exact at any size', async () => {
    expect(await run({}, 3)).toMatchObject({ total: 5, totalIsEstimate: false });
  });
});

describe('searches that filter count what they fetch', () => {
  it('GET /api/lead/document/list: a search on the file name gives a matching total', async () => {
    const owner = await signupOrganization('Docs');
    const leadId = await createLead(owner);
    await addDocument(owner, leadId);
    await addDocument(owner, leadId, documentForm(leadId, fileOf(samples.pdf(), 'contract.pdf', 'application/pdf')));
    const all = await call('GET', '/api/lead/document/list', { token: owner.token, query: { lead_id: leadId } });
    expect(all.body.total).toBe(2);
    const found = await call('GET', '/api/lead/document/list', {
      token: owner.token,
      query: { lead_id: leadId, search_value: 'contract' },
    });
    expect(found.body).toMatchObject({ total: 1, total_is_estimate: false });
    expect(found.body.data.map((doc: { file_name: string }) => doc.file_name)).toEqual(['contract.pdf']);
  });

  it('GET /api/exports/list: search_value filters the page and the total', async () => {
    const owner = await signupOrganization('Exports search');
    for (const exportType of ['leads', 'contacts']) {
      const created = await call('POST', '/api/exports/create', {
        token: owner.token,
        body: { export_type: exportType },
      });
      expect(created.status, created.text).toBe(202);
    }
    const found = await call('GET', '/api/exports/list', { token: owner.token, query: { search_value: 'contacts' } });
    expect(found.body).toMatchObject({ total: 1, total_is_estimate: false });
    expect(found.body.data.map((job: { export_type: string }) => job.export_type)).toEqual(['contacts']);
  });
});

describe('a lead search with no other filter', () => {
  it('totals its matches among the live leads of the organization only, and equals the rows fetched', async () => {
    const owner = await signupOrganization('Search total');
    const other = await signupOrganization('Search total other');
    const ids: number[] = [];
    for (const name of ['Ann', 'Bob', 'Cid', 'Dee']) ids.push(await createLead(owner, name, 'Wideshare'));
    await createLead(owner, 'Eve', 'Elsewhere');
    await createLead(other, 'Fay', 'Wideshare');
    await softDeleteLead(owner, ids[0]);

    const searched = await leadTotal(owner, { search_value: 'wideshare', limit: 100 });
    expect(searched).toMatchObject({ total: 3, total_is_estimate: false });
    expect(searched.data.map((lead) => lead.id).sort((a, b) => a - b)).toEqual(ids.slice(1).sort((a, b) => a - b));
    // A page of two: the total is still every match; the cursor page carries it.
    const first = await leadTotal(owner, { search_value: 'wideshare', limit: 2 });
    expect(first).toMatchObject({ total: 3, total_is_estimate: false });
    expect(first.data).toHaveLength(2);
    // With another filter the total is the page's own count again, and agrees with it.
    const filtered = await leadTotal(owner, { search_value: 'wideshare', created_from: '2000-01-01', limit: 100 });
    expect(filtered).toMatchObject({ total: 3, total_is_estimate: false });
    const dated = await leadTotal(owner, { search_value: 'wideshare', start_date: '2000-01-01', limit: 100 });
    expect(dated).toMatchObject({ total: 3, total_is_estimate: false });
  });

  it('pages its matches in order, by cursor and by page number, both ways, and by another sort key', async () => {
    // Sorted by id, the page is a top-N of the matched ids (core/list.ts, pageOfMatches): each
    // page must hold exactly the next ids, among matches that are not the newest leads.
    const owner = await signupOrganization('Search pages');
    const matched: number[] = [];
    for (let i = 0; i < 7; i++) {
      matched.push(await createLead(owner, `Pager${i}`, 'Pagedmatch'));
      await createLead(owner, `Other${i}`, 'Unmatched');
    }
    await softDeleteLead(owner, matched[3]);
    const live = matched.filter((id) => id !== matched[3]);
    const newestFirst = [...live].sort((a, b) => b - a);
    const oldestFirst = [...live].sort((a, b) => a - b);

    async function walk(query: Record<string, string | number>): Promise<number[]> {
      const seen: number[] = [];
      let page = await leadTotal(owner, { search_value: 'pagedmatch', limit: 2, ...query });
      seen.push(...page.data.map((lead) => lead.id));
      while (page.next_cursor) {
        expect(page.total).toBe(6);
        page = await leadTotal(owner, { search_value: 'pagedmatch', limit: 2, ...query, cursor: page.next_cursor });
        seen.push(...page.data.map((lead) => lead.id));
      }
      return seen;
    }
    expect(await walk({ order_by: 'id', order_in: 'DESC' })).toEqual(newestFirst);
    expect(await walk({ order_by: 'id', order_in: 'ASC' })).toEqual(oldestFirst);
    const second = await leadTotal(owner, {
      search_value: 'pagedmatch',
      limit: 2,
      page: 2,
      order_by: 'id',
      order_in: 'DESC',
    });
    expect(second.data.map((lead) => lead.id)).toEqual(newestFirst.slice(2, 4));
    expect(second).toMatchObject({ total: 6, total_is_estimate: false });
    const last = await leadTotal(owner, {
      search_value: 'pagedmatch',
      limit: 4,
      page: 2,
      order_by: 'id',
      order_in: 'ASC',
    });
    expect(last.data.map((lead) => lead.id)).toEqual(oldestFirst.slice(4));
    expect(last.next_cursor).toBeNull();
    const byName = await walk({ order_by: 'first_name', order_in: 'ASC' });
    expect(byName).toEqual(oldestFirst);
  });
});
