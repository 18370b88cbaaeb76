/**
 * Deleted leads and their restore: `GET /api/lead/deleted` lists what a delete hid, and
 * `POST /api/lead/restore` brings it back whole (lists, search, counts, feed, deals), unless a live
 * lead now holds its email or profile URL (409, nothing restored).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createLead as createLeadOf } from '../src/modules/leads/create-leads';
import type { AddLeadInput } from '../src/modules/leads/schemas';
import { holding, onPglite, transactionOf, waitsOn } from './helpers/lock-races';
import { call, expectFailure, signupOrganization, uniqueEmail, type SignedUp } from './helpers/api';
import { createCompany } from './helpers/accounts';
import { addDeal, defaultPipeline } from './helpers/deals';

let org: SignedUp;
let other: SignedUp;

async function addLead(body: Record<string, unknown>, who: SignedUp = org): Promise<number> {
  const added = await call('POST', '/api/lead/add', {
    token: who.token,
    body: { first_name: 'Grace', last_name: 'Hopper', email: uniqueEmail('trash'), ...body },
  });
  expect(added.status, added.text).toBe(201);
  return added.body.data.id as number;
}

async function deleteLeads(ids: number[], who: SignedUp = org) {
  const deleted = await call('DELETE', '/api/lead/delete', { token: who.token, body: { ids } });
  expect(deleted.status, deleted.text).toBe(200);
  return deleted.body.data.deleted as number;
}

const restore = (ids: number[], who: SignedUp = org) =>
  call('POST', '/api/lead/restore', { token: who.token, body: { ids } });

const trash = (query: Record<string, string | number> = {}, who: SignedUp = org) =>
  call('GET', '/api/lead/deleted', { token: who.token, query: { limit: 100, ...query } });

const trashIds = async (query: Record<string, string | number> = {}, who: SignedUp = org) =>
  (await trash(query, who)).body.data.map((lead: { id: number }) => lead.id) as number[];

const liveTotal = async () =>
  (await call('GET', '/api/lead/list', { token: org.token, query: { limit: 1 } })).body.total as number;

beforeAll(async () => {
  [org, other] = await Promise.all([signupOrganization('Trash'), signupOrganization('Trash other')]);
});

describe('GET /api/lead/deleted', () => {
  it('lists the organization’s deleted leads with deleted_at, newest id first, searchable, never another organization’s', async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const kept = await addLead({ company: `Kept ${tag}` });
    const first = await addLead({ company: `Binned ${tag}` });
    const second = await addLead({ first_name: `Zed${tag}` });
    const foreign = await addLead({ company: `Binned ${tag}` }, other);
    const before = Date.now();
    expect(await deleteLeads([first, second])).toBe(2);
    expect(await deleteLeads([foreign], other)).toBe(1);

    const listed = await trash();
    expect(listed.status, listed.text).toBe(200);
    const ids = listed.body.data.map((lead: { id: number }) => lead.id);
    expect(ids).toEqual(expect.arrayContaining([first, second]));
    expect(ids).not.toContain(kept);
    expect(ids).not.toContain(foreign);
    expect(ids.indexOf(second)).toBeLessThan(ids.indexOf(first));
    const row = listed.body.data.find((lead: { id: number }) => lead.id === first);
    expect(row).toMatchObject({ id: first, first_name: 'Grace', company: `Binned ${tag}` });
    expect(Date.parse(row.deleted_at)).toBeGreaterThanOrEqual(before - 5_000);

    expect(await trashIds({ search_value: `binned ${tag.toUpperCase()}` })).toEqual([first]);
    expect(await trashIds({ search_value: `zed${tag}` })).toEqual([second]);
    expect(await trashIds({ search_value: tag }, other)).toEqual([foreign]);
    expect(await trashIds({ order_by: 'id', order_in: 'asc', search_value: tag })).toEqual([first, second]);
  });

  it('refuses an order_by outside its allow-list with a 400 naming it', async () => {
    const refused = await trash({ order_by: 'email' });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.error.details[0].field).toBe('order_by');
  });
});

describe('POST /api/lead/restore', () => {
  it('brings a lead back to its view, the list, its total and search, with a restored feed entry', async () => {
    const word = `Restorable${crypto.randomUUID().slice(0, 6)}`;
    const id = await addLead({ last_name: word });
    const liveBefore = await liveTotal();
    await deleteLeads([id]);
    expect(await liveTotal()).toBe(liveBefore - 1);
    expect((await call('GET', `/api/lead/view/${id}`, { token: org.token })).status).toBe(404);

    const restored = await restore([id]);
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body).toMatchObject({ success: true, data: { restored: 1 }, message: '1 lead restored' });

    expect((await call('GET', `/api/lead/view/${id}`, { token: org.token })).body.data).toMatchObject({
      id,
      last_name: word,
    });
    expect(await liveTotal()).toBe(liveBefore);
    const searched = await call('GET', '/api/lead/list', {
      token: org.token,
      query: { search_value: word.toLowerCase() },
    });
    expect(searched.body.data.map((lead: { id: number }) => lead.id)).toEqual([id]);
    expect(await trashIds()).not.toContain(id);
    const feed = await call('GET', '/api/feed/list', {
      token: org.token,
      query: { model_type: 'lead', model_id: id },
    });
    expect(feed.status, feed.text).toBe(200);
    expect(feed.body.data.map((entry: { action: string }) => entry.action)).toEqual(['restored', 'deleted', 'created']);
    expect(feed.body.data[0]).toMatchObject({ model_type: 'lead', model_id: id, actor_user_id: org.userId });
  });

  it('brings its open deal back into its company’s figures, which leave it out while the lead is deleted', async () => {
    const company = await createCompany(org);
    const id = await addLead({ company_id: company });
    await addDeal(org, await defaultPipeline(org), { lead_id: id, value: 700 });
    const figures = async () => {
      const stats = await call('GET', '/api/company/stats', { token: org.token, query: { company_id: company } });
      expect(stats.status, stats.text).toBe(200);
      const [row] = stats.body.data.companies;
      return { leads: row.lead_count, deals: row.open_deal_count, value: row.open_pipeline_value };
    };
    expect(await figures()).toEqual({ leads: 1, deals: 1, value: 700 });
    await deleteLeads([id]);
    expect(await figures()).toEqual({ leads: 0, deals: 0, value: 0 });
    expect((await restore([id])).body.data).toEqual({ restored: 1 });
    expect(await figures()).toEqual({ leads: 1, deals: 1, value: 700 });
  });

  it('ignores live, unknown and other organizations’ ids, and leaves those leads as they are', async () => {
    const live = await addLead({});
    const foreign = await addLead({}, other);
    await deleteLeads([foreign], other);
    const restored = await restore([live, foreign, 999_999_999]);
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body.data).toEqual({ restored: 0 });
    expect(await trashIds({}, other)).toContain(foreign);
    expect((await call('GET', `/api/lead/view/${foreign}`, { token: other.token })).status).toBe(404);
  });

  it('answers 409 duplicate_lead naming the live lead that took the email, and restores nothing', async () => {
    const email = uniqueEmail('taken');
    const gone = await addLead({ email });
    const alsoGone = await addLead({});
    await deleteLeads([gone, alsoGone]);
    const taker = await addLead({ email: email.toUpperCase() });

    const refused = await restore([alsoGone, gone]);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error).toMatchObject({
      type: 'conflict',
      code: 'duplicate_lead',
      details: { id: gone, lead_id: taker, field: 'email', clashes: [{ id: gone, lead_id: taker, field: 'email' }] },
    });
    expect(refused.body.error.message).toContain(`Lead ${gone}`);
    expect(await trashIds()).toEqual(expect.arrayContaining([gone, alsoGone]));

    // With the taker deleted in turn, the first lead comes back.
    await deleteLeads([taker]);
    expect((await restore([gone, alsoGone])).body.data).toEqual({ restored: 2 });
  });

  it('answers 409 for two deleted leads sharing a profile URL restored together; each alone comes back', async () => {
    const url = `https://www.linkedin.com/in/trash-${crypto.randomUUID().slice(0, 8)}`;
    const older = await addLead({ profile_url: url });
    await deleteLeads([older]);
    const newer = await addLead({ profile_url: `${url}/` });
    await deleteLeads([newer]);

    const refused = await restore([older, newer]);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error.details).toMatchObject({ id: newer, lead_id: older, field: 'profile_url' });
    expect(await trashIds()).toEqual(expect.arrayContaining([older, newer]));

    expect((await restore([older])).body.data).toEqual({ restored: 1 });
    const second = await restore([newer]);
    expect(second.status, second.text).toBe(409);
    expect(second.body.error.details).toMatchObject({ id: newer, lead_id: older, field: 'profile_url' });
  });

  it('waits for a create of a lead with its email in progress, then answers 409 naming it (PostgreSQL)', async (context) => {
    // PGlite runs one transaction at a time: the restore could not start while the create is held.
    if (await onPglite(org.orgId)) context.skip();
    const email = uniqueEmail('racing');
    const gone = await addLead({ email });
    await deleteLeads([gone]);
    let xid = '';
    const create = holding(org, async (ctx) => {
      const made = await createLeadOf(ctx, { first_name: 'Racing', last_name: 'Taker', email } as AddLeadInput);
      xid = await transactionOf(ctx);
      return made;
    });
    await create.held;
    // The restore does not see the uncommitted lead: its update waits on the unique index, fails
    // once the create commits, and runs again, which then sees the new lead.
    const restoring = restore([gone]);
    const waited = await waitsOn(org.orgId, xid, restoring);
    create.release();
    const { lead } = await create.done;
    const refused = await restoring;
    expect(waited, 'the restore waits for the create holding the email').toBe(true);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error.details).toMatchObject({ id: gone, lead_id: lead.id, field: 'email' });
    expect(await trashIds()).toContain(gone);
  });

  it('restores a lead flagged as a duplicate beside a live holder of its email', async () => {
    const email = uniqueEmail('flagged');
    const original = await addLead({ email });
    const flagged = await call('POST', '/api/lead/add', {
      token: org.token,
      body: { first_name: 'Twin', last_name: 'Hopper', email, duplicate: 1 },
    });
    expect(flagged.status, flagged.text).toBe(201);
    await deleteLeads([flagged.body.data.id]);
    expect((await restore([flagged.body.data.id])).body.data).toEqual({ restored: 1 });
    expect((await call('GET', `/api/lead/view/${original}`, { token: org.token })).status).toBe(200);
  });

  it('refuses an empty or malformed id list with 422 naming ids', async () => {
    for (const ids of [[], ['x'], 'abc']) {
      const refused = await call('POST', '/api/lead/restore', { token: org.token, body: { ids } });
      expectFailure(refused, 422, 'validation_error');
      expect(refused.body.error.details[0].field).toMatch(/^ids/);
    }
  });
});
