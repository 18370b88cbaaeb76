/**
 * GET /api/feed/list: every change to a lead is recorded (who, what, before/after) and read
 * back per record with model_type and model_id.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, call, expectFailure, signupOrganization, type SignedUp } from './helpers/api';
import { createCompany, createContact } from './helpers/accounts';
import { statementsOf } from './helpers/statements';
import { observeStatements } from '../src/db/client';
import { csvOf, importAndWait } from './cross-tenant/fixtures/jobs';

/** Statements per route (the scope, BEGIN with its first statement, the write, COMMIT), as before the feed entries. */
const CONTACT_BUDGETS = { add: 5, update: 5, bulkUpdate: 4, delete: 2 };
const COMPANY_BUDGETS = { add: 5, update: 4, delete: 2 };

let org: SignedUp;
let other: SignedUp;

async function feedOf(who: SignedUp, leadId: number, query: Record<string, string> = {}) {
  const response = await call('GET', '/api/feed/list', {
    token: who.token,
    query: { model_type: 'lead', model_id: leadId, ...query },
  });
  expect(response.status).toBe(200);
  return response.body;
}

beforeAll(async () => {
  [org, other] = await Promise.all([signupOrganization('Feed'), signupOrganization('Other')]);
});

describe('GET /api/feed/list', () => {
  it('records creation, each update with before/after of the changed fields, and deletion, newest first', async () => {
    const lead = (
      await call('POST', '/api/lead/add', {
        token: org.token,
        body: { first_name: 'Feed', last_name: 'Me', city: 'Rome' },
      })
    ).body.data;
    await call('POST', `/api/lead/update/${lead.id}`, {
      token: org.token,
      body: { city: 'Milan', custom_fields: { size: 'L' }, status: 2 },
    });
    await call('POST', `/api/lead/update/${lead.id}`, { token: org.token, body: { city: 'Milan' } });
    await call('DELETE', '/api/lead/delete', { token: org.token, body: { ids: [lead.id] } });
    const feed = await feedOf(org, lead.id);
    expect(feed.total).toBe(3);
    expect(feed.data.map((entry: { action: string }) => entry.action)).toEqual(['deleted', 'updated', 'created']);
    expect(feed.data[1]).toMatchObject({
      model_type: 'lead',
      model_id: lead.id,
      actor_user_id: org.userId,
      actor_name: 'Ada Admin',
      changes: {
        city: { from: 'Rome', to: 'Milan' },
        status: { from: 1, to: 2 },
        custom_fields: { from: {}, to: { size: 'L' } },
      },
    });
    expect(Object.keys(feed.data[1].changes).sort()).toEqual(['city', 'custom_fields', 'status']);
  });

  it('pages oldest first on request and filters by date', async () => {
    const lead = (
      await call('POST', '/api/lead/add', { token: org.token, body: { first_name: 'Paged', last_name: 'Feed' } })
    ).body.data;
    for (const city of ['A1', 'B2', 'C3'])
      await call('POST', `/api/lead/update/${lead.id}`, { token: org.token, body: { city } });
    const page = await feedOf(org, lead.id, { order_in: 'ASC', limit: '2' });
    expect(page.data.map((entry: { action: string }) => entry.action)).toEqual(['created', 'updated']);
    expect(page.next_cursor).not.toBeNull();
    expect((await feedOf(org, lead.id, { end_date: '2000-01-01' })).total).toBe(0);
  });

  it('shows nothing of another organization', async () => {
    const lead = (
      await call('POST', '/api/lead/add', { token: org.token, body: { first_name: 'Private', last_name: 'Feed' } })
    ).body.data;
    expect((await feedOf(other, lead.id)).total).toBe(0);
  });

  it('answers 400 naming model_type for a kind of record the feed does not hold, and takes Lead as lead', async () => {
    const lead = (
      await call('POST', '/api/lead/add', { token: org.token, body: { first_name: 'Typed', last_name: 'Kind' } })
    ).body.data;
    // "leads" (the route's plural) used to answer an empty feed, as if nothing had happened to the lead.
    const plural = await call('GET', '/api/feed/list', {
      token: org.token,
      query: { model_type: 'leads', model_id: lead.id },
    });
    expectFailure(plural, 400, 'bad_request');
    expect(plural.body.error).toMatchObject({
      code: 'model_type',
      message: 'model_type: must be one of: lead, contact, company, deal',
    });
    const capital = await call('GET', '/api/feed/list', {
      token: org.token,
      query: { model_type: 'Lead', model_id: lead.id },
    });
    expect(capital.status, capital.text).toBe(200);
    expect(capital.body.data.map((entry: { action: string }) => entry.action)).toEqual(['created']);
  });

  it('answers 400 for a malformed model_id', async () => {
    expectFailure(
      await call('GET', '/api/feed/list', { token: org.token, query: { model_type: 'lead', model_id: 'abc' } }),
      400,
      'bad_request',
    );
  });
});

/**
 * Contacts and companies: every create, update (only the fields that changed, from/to; nothing
 * when nothing changed), bulk update, bulk delete and delete writes a feed entry, in the statement
 * of the write itself: each route sends as many statements as it did before it wrote any.
 */
describe('GET /api/feed/list of contacts and companies', () => {
  const historyOf = async (who: SignedUp, modelType: string, id: number) => {
    const response = await call('GET', '/api/feed/list', {
      token: who.token,
      query: { model_type: modelType, model_id: id, order_in: 'ASC', limit: '100' },
    });
    expect(response.status, response.text).toBe(200);
    return response.body.data as { action: string; changes: Record<string, unknown>; actor_user_id: number }[];
  };
  /** The request's statements: as many as the route sent before it wrote feed entries, each entry inside a write of the record. */
  const measured = async (
    request: () => Promise<ApiResponse>,
    budget: number,
    table: 'contacts' | 'companies',
    status = 200,
  ) => {
    const { response, statements } = await statementsOf(request);
    expect(response.status, response.text).toBe(status);
    expect(statements.length, statements.join('\n---\n')).toBe(budget);
    for (const text of statements.filter((statement) => /feed_entries/.test(statement)))
      expect(text, 'the feed entry rides in the write').toMatch(new RegExp(`(insert into|update) "?${table}"?`, 'i'));
    return response;
  };

  it('records a contact’s creation, its changed fields (nothing for an update that changes nothing), bulk update and delete', async () => {
    const company = await createCompany(org);
    const otherCompany = await createCompany(org);
    const added = await measured(
      () =>
        call('POST', '/api/contact/add', {
          token: org.token,
          body: { name: 'Feed Contact', company_id: company, designation: 'CTO', tags: ['emea'] },
        }),
      CONTACT_BUDGETS.add,
      'contacts',
      201,
    );
    const id = added.body.data.id as number;
    await measured(
      () =>
        call('POST', `/api/contact/update/${id}`, {
          token: org.token,
          body: { name: 'Feed Contact', designation: 'CEO', lead_score: 40, tags: ['emea', 'vip'] },
        }),
      CONTACT_BUDGETS.update,
      'contacts',
    );
    await measured(
      () => call('POST', `/api/contact/update/${id}`, { token: org.token, body: { designation: 'CEO' } }),
      CONTACT_BUDGETS.update,
      'contacts',
    );
    const bulk = await measured(
      () =>
        call('POST', '/api/contact/bulk-update', {
          token: org.token,
          body: { contact_ids: [id], company_id: otherCompany, lead_score: 40 },
        }),
      CONTACT_BUDGETS.bulkUpdate,
      'contacts',
    );
    expect(bulk.body.data).toEqual({ updated: 1 });
    await measured(
      () => call('DELETE', `/api/contact/delete/${id}`, { token: org.token }),
      CONTACT_BUDGETS.delete,
      'contacts',
    );

    const history = await historyOf(org, 'contact', id);
    expect(history.map((entry) => entry.action)).toEqual(['created', 'updated', 'updated', 'deleted']);
    expect(history.every((entry) => entry.actor_user_id === org.userId)).toBe(true);
    expect(history[0].changes).toEqual({
      name: { from: null, to: 'Feed Contact' },
      company_id: { from: null, to: company },
      designation: { from: null, to: 'CTO' },
      tags: { from: null, to: ['emea'] },
    });
    // The name sent unchanged is no change.
    expect(history[1].changes).toEqual({
      designation: { from: 'CTO', to: 'CEO' },
      lead_score: { from: null, to: 40 },
      tags: { from: ['emea'], to: ['emea', 'vip'] },
    });
    // The bulk update's lead_score was already 40.
    expect(history[2].changes).toEqual({ company_id: { from: company, to: otherCompany } });
    expect(history[3].changes).toEqual({ name: { from: 'Feed Contact', to: null } });

    const many = await Promise.all(
      ['One', 'Two'].map(
        async (name) =>
          (await call('POST', '/api/contact/add', { token: org.token, body: { name, company_id: company } })).body.data
            .id as number,
      ),
    );
    await measured(
      () => call('DELETE', '/api/contact/delete', { token: org.token, body: { ids: many } }),
      CONTACT_BUDGETS.delete,
      'contacts',
    );
    for (const contact of many)
      expect((await historyOf(org, 'contact', contact)).map((entry) => entry.action)).toEqual(['created', 'deleted']);
  });

  it('records a company’s creation, its changed fields, and its deletion by path and in bulk', async () => {
    const name = `Feed Co ${crypto.randomUUID().slice(0, 8)}`;
    const added = await measured(
      () =>
        call('POST', '/api/company/add', {
          token: org.token,
          body: { company_name: name, country: 'Italy', rating: 3 },
        }),
      COMPANY_BUDGETS.add,
      'companies',
      201,
    );
    const id = added.body.data.id as number;
    await measured(
      () =>
        call('POST', `/api/company/update/${id}`, {
          token: org.token,
          body: { country: 'Spain', rating: 3, technologies: ['postgres'] },
        }),
      COMPANY_BUDGETS.update,
      'companies',
    );
    await measured(
      () => call('POST', `/api/company/update/${id}`, { token: org.token, body: { country: 'Spain' } }),
      COMPANY_BUDGETS.update,
      'companies',
    );
    await measured(
      () => call('DELETE', `/api/company/delete/${id}`, { token: org.token }),
      COMPANY_BUDGETS.delete,
      'companies',
    );
    const history = await historyOf(org, 'company', id);
    expect(history.map((entry) => entry.action)).toEqual(['created', 'updated', 'deleted']);
    expect(history[0].changes).toEqual({
      company_name: { from: null, to: name },
      country: { from: null, to: 'Italy' },
      rating: { from: null, to: 3 },
    });
    expect(history[1].changes).toEqual({
      country: { from: 'Italy', to: 'Spain' },
      technologies: { from: [], to: ['postgres'] },
    });
    expect(history[2].changes).toEqual({ company_name: { from: name, to: null } });

    const bulk = await Promise.all([createCompany(org), createCompany(org)]);
    await measured(
      () => call('DELETE', '/api/company/delete', { token: org.token, body: { ids: bulk } }),
      COMPANY_BUDGETS.delete,
      'companies',
    );
    for (const company of bulk)
      expect((await historyOf(org, 'company', company)).map((entry) => entry.action)).toEqual(['created', 'deleted']);
  });

  it('records a company made by name (lead add, lead update, CSV import) as created, in the statement that made it, as a company added with only its name', async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const direct = `Direct ${tag}`;
    const directId = (await call('POST', '/api/company/add', { token: org.token, body: { company_name: direct } })).body
      .data.id as number;
    const [directEntry] = await historyOf(org, 'company', directId);
    expect(directEntry.changes).toEqual({ company_name: { from: null, to: direct } });
    /** The company's history, and the statements that wrote companies, each carrying the entries. */
    const madeBy = async (name: string, statements: string[]) => {
      const companies = await call('GET', '/api/company/list', { token: org.token, query: { search_value: name } });
      const company = (companies.body.data as { id: number; company_name: string }[]).find(
        (row) => row.company_name === name,
      );
      expect(company, name).toBeDefined();
      const history = await historyOf(org, 'company', company?.id as number);
      expect(
        history.map((entry) => ({ action: entry.action, changes: entry.changes, by: entry.actor_user_id })),
      ).toEqual([{ action: 'created', changes: { company_name: { from: null, to: name } }, by: org.userId }]);
      const writes = statements.filter((text) => /insert into "companies"/i.test(text));
      expect(writes, statements.join('\n---\n')).toHaveLength(1);
      expect(writes[0], 'the entry rides in the insert').toMatch(/insert into "feed_entries"/i);
      return company?.id as number;
    };

    const added = `Added ${tag}`;
    const add = await statementsOf(() =>
      call('POST', '/api/lead/add', {
        token: org.token,
        body: { first_name: 'Side', last_name: 'Effect', email: `side-${tag}@example.com`, company: added },
      }),
    );
    expect(add.response.status, add.response.text).toBe(201);
    const addedId = await madeBy(added, add.statements);
    expect(add.response.body.data.company_id).toBe(addedId);

    const lead = add.response.body.data.id as number;
    const moved = `Moved ${tag}`;
    const update = await statementsOf(() =>
      call('POST', `/api/lead/update/${lead}`, { token: org.token, body: { company: moved } }),
    );
    expect(update.response.status, update.response.text).toBe(200);
    expect(update.response.body.data.company_id).toBe(await madeBy(moved, update.statements));

    // Naming a company that exists (any case) makes nothing and records nothing.
    for (const request of [
      () =>
        call('POST', '/api/lead/add', {
          token: org.token,
          body: {
            first_name: 'Side',
            last_name: 'Again',
            email: `again-${tag}@example.com`,
            company: added.toUpperCase(),
          },
        }),
      () => call('POST', `/api/lead/update/${lead}`, { token: org.token, body: { company: direct.toLowerCase() } }),
    ]) {
      const response = await request();
      expect(response.status, response.text).toBeLessThan(300);
    }
    expect(await historyOf(org, 'company', addedId)).toHaveLength(1);
    expect(await historyOf(org, 'company', directId)).toHaveLength(1);

    // An import makes its batch's companies in one statement, each with its entry.
    const imported = [`Imported A ${tag}`, `Imported B ${tag}`];
    const statements: string[] = [];
    const stop = observeStatements((text) => statements.push(text), { pools: true });
    try {
      const job = await importAndWait(
        org,
        csvOf([
          ['First Name', 'Last Name', 'Email', 'Company'],
          ['Imp', 'One', `imp1-${tag}@example.com`, imported[0]],
          ['Imp', 'Two', `imp2-${tag}@example.com`, imported[1]],
          ['Imp', 'Three', `imp3-${tag}@example.com`, imported[0].toLowerCase()],
          ['Imp', 'Four', `imp4-${tag}@example.com`, added],
        ]),
      );
      expect(job).toMatchObject({ status: 'completed', created: 4, failed: 0 });
    } finally {
      stop();
    }
    for (const name of imported) await madeBy(name, statements);
    expect(await historyOf(org, 'company', addedId)).toHaveLength(1);
  });

  it('shows another organization nothing of a contact’s or company’s history, and writes none for its refused changes', async () => {
    const company = await createCompany(org);
    const contact = await createContact(org, { company_id: company });
    for (const [path, body] of [
      [`/api/contact/update/${contact}`, { designation: 'Spy' }],
      [`/api/company/update/${company}`, { country: 'Nowhere' }],
    ] as const)
      expect((await call('POST', path, { token: other.token, body })).status).toBe(404);
    expect((await call('DELETE', `/api/contact/delete/${contact}`, { token: other.token })).status).toBe(404);
    expect(
      (await call('DELETE', '/api/company/delete', { token: other.token, body: { ids: [company] } })).body.data,
    ).toEqual({ deleted: 0 });
    expect(await historyOf(other, 'contact', contact)).toEqual([]);
    expect(await historyOf(other, 'company', company)).toEqual([]);
    expect((await historyOf(org, 'contact', contact)).map((entry) => entry.action)).toEqual(['created']);
    expect((await historyOf(org, 'company', company)).map((entry) => entry.action)).toEqual(['created']);
  });
});
