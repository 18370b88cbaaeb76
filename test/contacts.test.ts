/**
 * Contacts: add (name and a company of the organization required), view, update, list filters,
 * email unique per organization (409 naming the holder), set-based bulk update and delete by
 * path id, body ids or select_all + filters (the list's filter builder); list and view cost at
 * most 2 statements.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, expectFailure, signupOrganization, uniqueEmail, type SignedUp } from './helpers/api';
import { createCompany, createContact } from './helpers/accounts';
import { statementsOf } from './helpers/statements';

let owner: SignedUp;
let other: SignedUp;
let company: number;
let foreignCompany: number;

beforeAll(async () => {
  [owner, other] = await Promise.all([signupOrganization('Contacts'), signupOrganization('Contacts other')]);
  company = await createCompany(owner);
  foreignCompany = await createCompany(other);
});

const view = (id: number, who = owner) => call('GET', `/api/contact/view/${id}`, { token: who.token });
const add = (body: Record<string, unknown>, who = owner) =>
  call('POST', '/api/contact/add', { token: who.token, body });

describe('POST /api/contact/add', () => {
  it('creates a contact with every field of the resource', async () => {
    const lead = await call('POST', '/api/lead/add', {
      token: owner.token,
      body: { first_name: 'Ada', last_name: 'Lead' },
    });
    const email = uniqueEmail('Ada');
    const response = await add({
      name: 'Ada Lovelace',
      email,
      phone_number: '+44 20 7946 0000',
      company_id: company,
      lead_id: lead.body.data.id,
      designation: 'CTO',
      seniority: 'C-level',
      decision_maker: 'yes',
      profile_url: 'https://www.linkedin.com/in/ada',
      lead_score: 70,
      status: 1,
      tags: ['emea', 'vip', 'emea'],
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body.data).toMatchObject({
      name: 'Ada Lovelace',
      email,
      company_id: company,
      lead_id: lead.body.data.id,
      lead_score: 70,
      status: 1,
      tags: ['emea', 'vip'],
      created_by: owner.userId,
    });
    expect((await view(response.body.data.id)).body.data).toEqual(response.body.data);
  });

  it('requires a name and a company of the caller’s organization', async () => {
    const noName = await add({ company_id: company });
    expectFailure(noName, 422, 'validation_error');
    expect(noName.body.error.code).toBe('name');
    const noCompany = await add({ name: 'Nobody' });
    expectFailure(noCompany, 422, 'validation_error');
    expect(noCompany.body.error.code).toBe('company_id');
    expectFailure(await add({ name: 'Intruder', company_id: foreignCompany }), 404, 'not_found');
    expectFailure(await add({ name: 'Ghost', company_id: 2_000_000_000 }), 404, 'not_found');
  });

  it('refuses each invalid field with a 422 naming it', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ email: 'nope' }, 'email'],
      [{ lead_score: 101 }, 'lead_score'],
      [{ lead_score: 1.5 }, 'lead_score'],
      [{ status: 999 }, 'status'],
      [{ lead_id: 2_000_000_000 }, 'lead_id'],
      [{ profile_url: 'javascript:alert(1)' }, 'profile_url'],
      [{ tags: ['x'.repeat(51)] }, 'tags.0'],
    ];
    for (const [fields, field] of cases) {
      const response = await add({ name: 'Bad', company_id: company, ...fields });
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code, JSON.stringify(fields)).toBe(field);
    }
  });

  it('keeps emails unique per organization, any letter case, naming the holder', async () => {
    const email = uniqueEmail('dup');
    const first = await createContact(owner, { company_id: company, email });
    const again = await add({ name: 'Twin', company_id: company, email: email.toUpperCase() });
    expectFailure(again, 409, 'conflict');
    expect(again.body.error).toMatchObject({
      code: 'duplicate_contact',
      details: { contact_id: first, field: 'email' },
    });
    expect((await add({ name: 'Elsewhere', company_id: foreignCompany, email }, other)).status).toBe(201);
    const second = await createContact(owner, { company_id: company });
    const taken = await call('POST', `/api/contact/update/${second}`, { token: owner.token, body: { email } });
    expect(taken.body.error).toMatchObject({ code: 'duplicate_contact', details: { contact_id: first } });
    // Its own email is not a conflict, and a deleted contact's email is free again.
    expect((await call('POST', `/api/contact/update/${first}`, { token: owner.token, body: { email } })).status).toBe(
      200,
    );
    await call('DELETE', `/api/contact/delete/${first}`, { token: owner.token });
    expect((await add({ name: 'Heir', company_id: company, email })).status).toBe(201);
  });

  it('lets exactly one of two concurrent adds of one email through; the other gets the declared 409', async () => {
    const email = uniqueEmail('race');
    const answers = await Promise.all([1, 2, 3].map((n) => add({ name: `Racer ${n}`, company_id: company, email })));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([201, 409, 409]);
    const winner = answers.find((answer) => answer.status === 201)?.body.data.id;
    for (const loser of answers.filter((answer) => answer.status === 409)) {
      expect(loser.body.error).toMatchObject({ code: 'duplicate_contact', details: { contact_id: winner } });
    }
  });
});

describe('POST /api/contact/update/{id}', () => {
  it('changes the fields sent and refuses another organization’s company or contact', async () => {
    const id = await createContact(owner, { company_id: company, designation: 'CTO', tags: ['a'] });
    const moved = await createCompany(owner);
    const updated = await call('POST', `/api/contact/update/${id}`, {
      token: owner.token,
      body: { company_id: moved, designation: null, tags: ['b', 'c'] },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.data).toMatchObject({ company_id: moved, designation: null, tags: ['b', 'c'] });
    const foreign = await call('POST', `/api/contact/update/${id}`, {
      token: owner.token,
      body: { company_id: foreignCompany },
    });
    expectFailure(foreign, 404, 'not_found');
    expectFailure(
      await call('POST', `/api/contact/update/${id}`, { token: other.token, body: { name: 'Stolen' } }),
      404,
      'not_found',
    );
    expect((await view(id)).body.data.company_id).toBe(moved);
  });
});

describe('concurrent contact updates', () => {
  // On PostgreSQL (TEST_DATABASE_URL) the losers hit the unique index without the email lock and
  // answered an anonymous 409 `duplicate`; PGlite runs one transaction at a time.
  it('give one email to exactly one of ten contacts at once; the others get the declared 409 naming it', async () => {
    const org = await signupOrganization('Contact races');
    const companyId = await createCompany(org);
    const ids = await Promise.all(
      Array.from({ length: 10 }, () => createContact(org, { company_id: companyId, email: uniqueEmail('own') })),
    );
    const email = uniqueEmail('shared');
    const answers = await Promise.all(
      ids.map((id, i) =>
        call('POST', `/api/contact/update/${id}`, {
          token: org.token,
          body: { email: i % 2 ? email.toUpperCase() : email },
        }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, ...Array(9).fill(409)]);
    const winner = answers.find((answer) => answer.status === 200)?.body.data.id;
    for (const loser of answers.filter((answer) => answer.status === 409)) {
      expect(loser.body.error).toMatchObject({ code: 'duplicate_contact', details: { contact_id: winner } });
    }
  });
});

describe('an email change racing an add of the same email', () => {
  // On PostgreSQL (TEST_DATABASE_URL) an update whose check ran before a concurrent add (which
  // takes no email lock: its insert settles on the unique index) committed hit the index and
  // answered an anonymous 409 `duplicate` its contract does not list; PGlite runs one at a time.
  it('answers whichever side loses with the declared 409 duplicate_contact naming the winner', async () => {
    const org = await signupOrganization('Contact add races');
    const companyId = await createCompany(org);
    const ids = await Promise.all(
      Array.from({ length: 12 }, () => createContact(org, { company_id: companyId, email: uniqueEmail('own') })),
    );
    const emails = ids.map(() => uniqueEmail('raced'));
    const answers = await Promise.all(
      ids.flatMap((id, i) => [
        call('POST', `/api/contact/update/${id}`, { token: org.token, body: { email: emails[i] } }),
        call('POST', '/api/contact/add', {
          token: org.token,
          body: { name: 'Racer', company_id: companyId, email: emails[i].toUpperCase() },
        }),
      ]),
    );
    for (let i = 0; i < ids.length; i++) {
      const [updated, added] = [answers[2 * i], answers[2 * i + 1]];
      expect([
        [200, 409],
        [409, 201],
      ]).toContainEqual([updated.status, added.status]);
      const winner = updated.status === 200 ? ids[i] : added.body.data.id;
      const loser = updated.status === 200 ? added : updated;
      expect(loser.body.error).toMatchObject({ code: 'duplicate_contact', details: { contact_id: winner } });
    }
  });
});

describe('list, bulk update and delete share one filter builder', () => {
  let org: SignedUp;
  let acme: number;
  let globex: number;
  let a: number;
  let b: number;
  let c: number;

  beforeAll(async () => {
    org = await signupOrganization('Contact filters');
    acme = await createCompany(org);
    globex = await createCompany(org);
    a = await createContact(org, { company_id: acme, lead_score: 10, tags: ['vip'] });
    b = await createContact(org, { company_id: acme, lead_score: 20, tags: ['emea'] });
    c = await createContact(org, { company_id: globex, lead_score: 10 });
  });

  const ids = async (query: Record<string, string | number>) => {
    const response = await call('GET', '/api/contact/list', { token: org.token, query: { limit: 100, ...query } });
    expect(response.status, response.text).toBe(200);
    return (response.body.data as { id: number }[]).map((row) => row.id);
  };

  it('lists by company_id, lead_score, tags, my and date range', async () => {
    expect(await ids({ company_id: acme })).toEqual([b, a]);
    expect(await ids({ lead_score: 10 })).toEqual([c, a]);
    expect(await ids({ tags: 'vip,emea' })).toEqual([b, a]);
    expect(await ids({ my: 'true' })).toEqual([c, b, a]);
    expect(await ids({ start_date: '2000-01-01', end_date: '2000-01-02' })).toEqual([]);
    expectFailure(
      await call('GET', '/api/contact/list', { token: org.token, query: { lead_score: 'x' } }),
      400,
      'bad_request',
    );
  });

  it('answers a page and a view in at most 2 statements each', async () => {
    const listed = await statementsOf(() =>
      call('GET', '/api/contact/list', { token: org.token, query: { tags: 'vip' } }),
    );
    expect(listed.response.status).toBe(200);
    expect(listed.statements.length).toBeLessThanOrEqual(2);
    const viewed = await statementsOf(() => view(a, org));
    expect(viewed.response.status).toBe(200);
    expect(viewed.statements.length).toBeLessThanOrEqual(2);
  });

  it('bulk-updates contact_ids, or select_all + filters, in one statement, counting the contacts that changed', async () => {
    const byIds = await statementsOf(() =>
      call('POST', '/api/contact/bulk-update', {
        token: org.token,
        body: { contact_ids: [a, c], lead_score: 10 },
      }),
    );
    // a and c already have 10.
    expect(byIds.response.body.data).toEqual({ updated: 0 });
    const updates = byIds.statements.filter((text) => /update\s+"?contacts"?/i.test(text));
    expect(updates).toHaveLength(1);

    const byFilter = await call('POST', '/api/contact/bulk-update', {
      token: org.token,
      body: { select_all: true, filters: { company_id: String(acme) }, company_id: globex, tags: ['moved'] },
    });
    expect(byFilter.status, byFilter.text).toBe(200);
    expect(byFilter.body.data).toEqual({ updated: 2 });
    expect(await ids({ company_id: globex })).toEqual([c, b, a]);
    expect(await ids({ tags: 'moved' })).toEqual([b, a]);
  });

  it('refuses a bulk update without targets or changes, or to another organization’s company', async () => {
    const noTarget = await call('POST', '/api/contact/bulk-update', { token: org.token, body: { lead_score: 1 } });
    expectFailure(noTarget, 422, 'validation_error');
    expect(noTarget.body.error.code).toBe('contact_ids');
    const noChange = await call('POST', '/api/contact/bulk-update', { token: org.token, body: { contact_ids: [a] } });
    expectFailure(noChange, 422, 'validation_error');
    expect(noChange.body.error.code).toBe('company_id');
    const badScore = await call('POST', '/api/contact/bulk-update', {
      token: org.token,
      body: { contact_ids: [a], lead_score: 500 },
    });
    expect(badScore.body.error.code).toBe('lead_score');
    const foreign = await call('POST', '/api/contact/bulk-update', {
      token: org.token,
      body: { select_all: true, company_id: foreignCompany },
    });
    expectFailure(foreign, 404, 'not_found');
    expect((await view(a, org)).body.data.company_id).toBe(globex);
  });

  it('deletes by path id, body ids and select_all + filters', async () => {
    const d = await createContact(org, { company_id: acme, tags: ['gone'] });
    const e = await createContact(org, { company_id: acme, tags: ['gone'] });
    const f = await createContact(org, { company_id: acme });
    expect((await call('DELETE', `/api/contact/delete/${d}`, { token: org.token })).body.data).toEqual({ id: d });
    expectFailure(await call('DELETE', `/api/contact/delete/${d}`, { token: org.token }), 404, 'not_found');
    const foreign = await createContact(other, { company_id: foreignCompany });
    const byIds = await call('DELETE', '/api/contact/delete', { token: org.token, body: { ids: [e, foreign] } });
    expect(byIds.body.data).toEqual({ deleted: 1 });
    expect((await view(foreign, other)).status).toBe(200);
    const byFilter = await call('DELETE', '/api/contact/delete', {
      token: org.token,
      body: { select_all: true, filters: { company_id: String(acme) } },
    });
    expect(byFilter.body.data).toEqual({ deleted: 1 });
    expectFailure(await view(f, org), 404, 'not_found');
  });
});
