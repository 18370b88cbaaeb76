/**
 * Deleted companies and their restore: `GET /api/company/deleted` lists what a delete hid, and
 * `POST /api/company/restore` brings it back with its leads' link and its figures, unless a live
 * company now has its name (409 duplicate_company, nothing restored).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createCompany } from './helpers/accounts';
import { call, expectFailure, signupOrganization, uniqueEmail, type SignedUp } from './helpers/api';

let org: SignedUp;
let other: SignedUp;

async function deleteCompanies(ids: number[], who: SignedUp = org) {
  const deleted = await call('DELETE', '/api/company/delete', { token: who.token, body: { ids } });
  expect(deleted.status, deleted.text).toBe(200);
  return deleted.body.data.deleted as number;
}

const restore = (ids: number[], who: SignedUp = org) =>
  call('POST', '/api/company/restore', { token: who.token, body: { ids } });

const trashIds = async (query: Record<string, string | number> = {}, who: SignedUp = org) =>
  (await call('GET', '/api/company/deleted', { token: who.token, query: { limit: 100, ...query } })).body.data.map(
    (company: { id: number }) => company.id,
  ) as number[];

const liveTotal = async () =>
  (await call('GET', '/api/company/list', { token: org.token, query: { limit: 1 } })).body.total as number;

beforeAll(async () => {
  [org, other] = await Promise.all([signupOrganization('Company trash'), signupOrganization('Company trash other')]);
});

describe('GET /api/company/deleted', () => {
  it('lists the organization’s deleted companies with deleted_at, searchable, never another organization’s', async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const kept = await createCompany(org, { company_name: `Kept ${tag}` });
    const binned = await createCompany(org, { company_name: `Binned ${tag}`, city: 'Lisbon' });
    const foreign = await createCompany(other, { company_name: `Binned ${tag}` });
    expect(await deleteCompanies([binned])).toBe(1);
    expect(await deleteCompanies([foreign], other)).toBe(1);

    const listed = await call('GET', '/api/company/deleted', { token: org.token, query: { search_value: tag } });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.total).toBe(1);
    expect(listed.body.data[0]).toMatchObject({ id: binned, company_name: `Binned ${tag}`, city: 'Lisbon' });
    expect(Number.isNaN(Date.parse(listed.body.data[0].deleted_at))).toBe(false);
    expect(await trashIds()).not.toContain(kept);
    expect(await trashIds({ search_value: tag }, other)).toEqual([foreign]);
  });
});

describe('POST /api/company/restore', () => {
  it('brings a company back to its view, the list, its total and its lead count, with a restored feed entry', async () => {
    const name = `Phoenix ${crypto.randomUUID().slice(0, 8)}`;
    const id = await createCompany(org, { company_name: name });
    const lead = await call('POST', '/api/lead/add', {
      token: org.token,
      body: { first_name: 'Linked', last_name: 'Lead', email: uniqueEmail('phoenix'), company_id: id },
    });
    expect(lead.status, lead.text).toBe(201);
    const before = await liveTotal();
    await deleteCompanies([id]);
    expect(await liveTotal()).toBe(before - 1);
    const hidden = await call('GET', '/api/company/stats', { token: org.token, query: { company_id: id } });
    expect(hidden.body.data.total).toBe(0);

    const restored = await restore([id]);
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body).toMatchObject({ data: { restored: 1 }, message: '1 company restored' });
    expect((await call('GET', `/api/company/view/${id}`, { token: org.token })).body.data).toMatchObject({
      id,
      company_name: name,
    });
    expect(await liveTotal()).toBe(before);
    const stats = await call('GET', '/api/company/stats', { token: org.token, query: { company_id: id } });
    expect(stats.status, stats.text).toBe(200);
    expect(stats.body.data.total).toBe(1);
    expect(stats.body.data.companies).toEqual([expect.objectContaining({ id, lead_count: 1 })]);
    const feed = await call('GET', '/api/feed/list', {
      token: org.token,
      query: { model_type: 'company', model_id: id },
    });
    expect(feed.body.data.map((entry: { action: string }) => entry.action)).toEqual(['restored', 'deleted', 'created']);
  });

  it('ignores live, unknown and other organizations’ ids', async () => {
    const live = await createCompany(org);
    const foreign = await createCompany(other);
    await deleteCompanies([foreign], other);
    expect((await restore([live, foreign, 999_999_999])).body.data).toEqual({ restored: 0 });
    expect(await trashIds({}, other)).toContain(foreign);
  });

  it('answers 409 duplicate_company naming the live company that took the name (any case), and restores nothing', async () => {
    const name = `Taken ${crypto.randomUUID().slice(0, 8)}`;
    const gone = await createCompany(org, { company_name: name });
    const alsoGone = await createCompany(org);
    await deleteCompanies([gone, alsoGone]);
    const taker = await createCompany(org, { company_name: name.toUpperCase() });

    const refused = await restore([gone, alsoGone]);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: 'duplicate_company',
      details: { id: gone, company_id: taker, field: 'company_name' },
    });
    expect(refused.body.error.details.clashes).toEqual([{ id: gone, company_id: taker, field: 'company_name' }]);
    expect(await trashIds()).toEqual(expect.arrayContaining([gone, alsoGone]));

    await deleteCompanies([taker]);
    const together = await restore([gone, taker]);
    expect(together.status, together.text).toBe(409);
    expect(together.body.error.details).toMatchObject({ id: taker, company_id: gone, field: 'company_name' });
    expect((await restore([gone, alsoGone])).body.data).toEqual({ restored: 2 });
  });

  it('refuses an empty id list with 422 naming ids', async () => {
    const refused = await call('POST', '/api/company/restore', { token: org.token, body: { ids: [] } });
    expectFailure(refused, 422, 'validation_error');
    expect(refused.body.error.details[0].field).toBe('ids');
  });
});
