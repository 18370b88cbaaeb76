/**
 * Deleted contacts and their restore: `GET /api/contact/deleted` lists what a delete hid, and
 * `POST /api/contact/restore` brings it back (list, total, view, feed), unless a live contact now
 * holds its email (409 duplicate_contact, nothing restored).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createCompany, createContact } from './helpers/accounts';
import { call, expectFailure, signupOrganization, uniqueEmail, type SignedUp } from './helpers/api';

let org: SignedUp;
let other: SignedUp;
let companyId: number;

const addContact = (body: Record<string, unknown> = {}, who: SignedUp = org, company = companyId) =>
  createContact(who, { company_id: company, email: uniqueEmail('contact'), ...body });

async function deleteContacts(ids: number[], who: SignedUp = org) {
  const deleted = await call('DELETE', '/api/contact/delete', { token: who.token, body: { ids } });
  expect(deleted.status, deleted.text).toBe(200);
  return deleted.body.data.deleted as number;
}

const restore = (ids: number[], who: SignedUp = org) =>
  call('POST', '/api/contact/restore', { token: who.token, body: { ids } });

const trashIds = async (query: Record<string, string | number> = {}, who: SignedUp = org) =>
  (await call('GET', '/api/contact/deleted', { token: who.token, query: { limit: 100, ...query } })).body.data.map(
    (contact: { id: number }) => contact.id,
  ) as number[];

const liveTotal = async () =>
  (await call('GET', '/api/contact/list', { token: org.token, query: { limit: 1 } })).body.total as number;

beforeAll(async () => {
  [org, other] = await Promise.all([signupOrganization('Contact trash'), signupOrganization('Contact trash other')]);
  companyId = await createCompany(org);
});

describe('GET /api/contact/deleted', () => {
  it('lists the organization’s deleted contacts with deleted_at, searchable, never another organization’s', async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const kept = await addContact({ name: `Kept ${tag}` });
    const binned = await addContact({ name: `Binned ${tag}`, designation: 'CFO' });
    const foreign = await addContact({ name: `Binned ${tag}` }, other, await createCompany(other));
    expect(await deleteContacts([binned])).toBe(1);
    expect(await deleteContacts([foreign], other)).toBe(1);

    const listed = await call('GET', '/api/contact/deleted', { token: org.token, query: { search_value: tag } });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.total).toBe(1);
    expect(listed.body.data[0]).toMatchObject({ id: binned, name: `Binned ${tag}`, designation: 'CFO' });
    expect(Number.isNaN(Date.parse(listed.body.data[0].deleted_at))).toBe(false);
    expect(await trashIds()).not.toContain(kept);
    expect(await trashIds({ search_value: tag }, other)).toEqual([foreign]);
  });
});

describe('POST /api/contact/restore', () => {
  it('brings a contact back to its view, the list and its total, with a restored feed entry', async () => {
    const id = await addContact();
    const before = await liveTotal();
    await deleteContacts([id]);
    expect(await liveTotal()).toBe(before - 1);

    const restored = await restore([id]);
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body).toMatchObject({ data: { restored: 1 }, message: '1 contact restored' });
    expect((await call('GET', `/api/contact/view/${id}`, { token: org.token })).status).toBe(200);
    expect(await liveTotal()).toBe(before);
    expect(await trashIds()).not.toContain(id);
    const feed = await call('GET', '/api/feed/list', {
      token: org.token,
      query: { model_type: 'contact', model_id: id },
    });
    expect(feed.status, feed.text).toBe(200);
    expect(feed.body.data.map((entry: { action: string }) => entry.action)).toEqual(['restored', 'deleted', 'created']);
  });

  it('ignores live, unknown and other organizations’ ids', async () => {
    const live = await addContact();
    const foreign = await addContact({}, other, await createCompany(other));
    await deleteContacts([foreign], other);
    expect((await restore([live, foreign, 999_999_999])).body.data).toEqual({ restored: 0 });
    expect(await trashIds({}, other)).toContain(foreign);
  });

  it('answers 409 duplicate_contact naming the live contact that took the email, or the other contact restored with it', async () => {
    const email = uniqueEmail('taken');
    const gone = await addContact({ email });
    await deleteContacts([gone]);
    const taker = await addContact({ email: email.toUpperCase() });
    const refused = await restore([gone]);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: 'duplicate_contact',
      details: {
        id: gone,
        contact_id: taker,
        field: 'email',
        clashes: [{ id: gone, contact_id: taker, field: 'email' }],
      },
    });
    expect(await trashIds()).toContain(gone);

    await deleteContacts([taker]);
    const together = await restore([gone, taker]);
    expect(together.status, together.text).toBe(409);
    expect(together.body.error.details).toMatchObject({ id: taker, contact_id: gone, field: 'email' });
    expect(await trashIds()).toEqual(expect.arrayContaining([gone, taker]));
    expect((await restore([gone])).body.data).toEqual({ restored: 1 });
  });

  it('refuses an empty id list with 422 naming ids', async () => {
    const refused = await call('POST', '/api/contact/restore', { token: org.token, body: { ids: [] } });
    expectFailure(refused, 422, 'validation_error');
    expect(refused.body.error.details[0].field).toBe('ids');
  });
});
