/**
 * GET /api/lead/list: the standard list parameters and every lead filter, alone and combined,
 * and 400 naming the parameter for malformed filter values.
 */
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, expectFailure, signupOrganization, uniqueEmail, type SignedUp } from './helpers/api';
import { inOrganization } from './helpers/leads';
import { settleLeadScoring } from './helpers/scoring';

let org: SignedUp;
let rep: { id: number };
const ids: Record<string, number> = {};

async function add(key: string, body: Record<string, unknown>) {
  const response = await call('POST', '/api/lead/add', {
    token: org.token,
    body: { first_name: 'Lead', last_name: key.padEnd(2, '_'), ...body },
  });
  if (response.status !== 201) throw new Error(response.text);
  ids[key] = response.body.data.id;
}

async function listIds(query: Record<string, string | number>): Promise<number[]> {
  const response = await call('GET', '/api/lead/list', {
    token: org.token,
    query: { limit: 100, order_by: 'id', order_in: 'ASC', ...query },
  });
  if (response.status !== 200) throw new Error(response.text);
  return response.body.data.map((lead: { id: number }) => lead.id);
}

function idsOf(...keys: string[]): number[] {
  return keys.map((key) => ids[key]).sort((a, b) => a - b);
}

beforeAll(async () => {
  org = await signupOrganization('List');
  rep = (
    await call('POST', '/api/user/add', {
      token: org.token,
      body: { first_name: 'Rep', email: uniqueEmail('rep'), phone_no: '+15550100', password: 'password123' },
    })
  ).body.data;
  const tags = await call('GET', '/api/custom-lookups/list', { token: org.token, query: { type: 'tags' } });
  const hot = tags.body.data.find((tag: { name: string }) => tag.name === 'Hot').id;
  await add('alpha', {
    first_name: 'Grace',
    last_name: 'Hopper',
    email: 'grace@navy.example',
    company: 'Navy',
    city: 'Arlington',
    state: 'VA',
    country: 'USA',
    status: 1,
    priority: 4,
    lead_source: 1,
    assigned_to: org.userId,
    tags: [hot],
  });
  await add('beta', {
    first_name: 'Alan',
    last_name: 'Turing',
    email: 'alan@bletchley.example',
    company: 'Bletchley',
    city: 'London',
    country: 'UK',
    status: 2,
    priority: 2,
    lead_source: 3,
    assigned_to: rep.id,
  });
  await add('gamma', {
    first_name: 'Katherine',
    last_name: 'Johnson',
    job_title: 'Computer',
    phone_number: '+1 757 555 0199',
    city: 'hampton',
    country: 'usa',
    status: 3,
    lead_source: 5,
  });
  await add('delta', {
    first_name: 'Edsger',
    last_name: 'Dijkstra',
    email: 'ewd_dijkstra@tue.example',
    job_title: 'Prof 100%',
    company: 'navy',
    status: 2,
    priority: 1,
  });
  // Scores are read-only through the API and created_at is set by the database: adjust them directly,
  // once the scoring the creations queued has written its own scores (else it could land after).
  await settleLeadScoring(org);
  await inOrganization(org.orgId, async (tx) => {
    await tx.execute(
      sql`update leads set score = case id when ${ids.alpha} then 90 when ${ids.beta} then 40 when ${ids.gamma} then 10 else 0 end`,
    );
    await tx.execute(sql`update leads set created_at = '2024-03-15T12:00:00Z' where id = ${ids.gamma}`);
  });
});

describe('GET /api/lead/list filters', () => {
  it('matches search_value against name, email, phone, company and job title, case-insensitively', async () => {
    expect(await listIds({ search_value: 'HOPPER' })).toEqual(idsOf('alpha'));
    expect(await listIds({ search_value: 'bletchley.exa' })).toEqual(idsOf('beta'));
    expect(await listIds({ search_value: '757 555' })).toEqual(idsOf('gamma'));
    expect(await listIds({ search_value: 'navy' })).toEqual(idsOf('alpha', 'delta'));
    expect(await listIds({ search_value: 'computer' })).toEqual(idsOf('gamma'));
  });

  it('treats % and _ in search_value literally', async () => {
    expect(await listIds({ search_value: '100%' })).toEqual(idsOf('delta'));
    expect(await listIds({ search_value: '_' })).toEqual(idsOf('delta'));
  });

  it('searches what the lead says now: after an update, a bulk status change, a delete and a restore', async () => {
    // The search documents are kept by triggers on leads (lead_search_documents): every writing
    // path must move them, or a search finds a lead by its old name or after its deletion.
    const created = await call('POST', '/api/lead/add', {
      token: org.token,
      body: { first_name: 'Ada', last_name: 'Byron', email: 'ada@analytical.example', company: 'Engines' },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id;
    expect(await listIds({ search_value: 'BYRON' })).toEqual([id]);

    const updated = await call('POST', `/api/lead/update/${id}`, {
      token: org.token,
      body: { last_name: 'Lovelace', job_title: 'Countess' },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(await listIds({ search_value: 'byron' })).toEqual([]);
    expect(await listIds({ search_value: 'lovelace' })).toEqual([id]);
    expect(await listIds({ search_value: 'countess' })).toEqual([id]);
    // A write that changes no searched column leaves the document as it was.
    const moved = await call('POST', '/api/lead/status-change', { token: org.token, body: { ids: [id], status: 2 } });
    expect(moved.status, moved.text).toBe(200);
    expect(await listIds({ search_value: 'ada lovelace' })).toEqual([id]);

    const deleted = await call('DELETE', '/api/lead/delete', { token: org.token, body: { ids: [id] } });
    expect(deleted.status, deleted.text).toBe(200);
    expect(await listIds({ search_value: 'lovelace' })).toEqual([]);

    // No route restores a lead; the trigger must still take a restore written by SQL.
    await inOrganization(org.orgId, (tx) => tx.execute(sql`update leads set deleted_at = null where id = ${id}`));
    expect(await listIds({ search_value: 'lovelace' })).toEqual([id]);
    await call('DELETE', '/api/lead/delete', { token: org.token, body: { ids: [id] } });
  });

  it('filters by score range', async () => {
    expect(await listIds({ score_min: 40 })).toEqual(idsOf('alpha', 'beta'));
    expect(await listIds({ score_min: 5, score_max: 50 })).toEqual(idsOf('beta', 'gamma'));
  });

  it('filters assigned_to by id, comma list and true for the caller, and unassigned=true', async () => {
    expect(await listIds({ assigned_to: rep.id })).toEqual(idsOf('beta'));
    expect(await listIds({ assigned_to: `${rep.id},${org.userId}` })).toEqual(idsOf('alpha', 'beta'));
    expect(await listIds({ assigned_to: 'true' })).toEqual(idsOf('alpha'));
    expect(await listIds({ unassigned: 'true' })).toEqual(idsOf('gamma', 'delta'));
  });

  it('filters lead_source, priority and state_id by comma-separated values, and tags by id', async () => {
    expect(await listIds({ lead_source: '1,5' })).toEqual(idsOf('alpha', 'gamma'));
    expect(await listIds({ priority: '2, 1' })).toEqual(idsOf('beta', 'delta'));
    expect(await listIds({ state_id: '2' })).toEqual(idsOf('beta', 'delta'));
    const hot = (
      await call('GET', '/api/custom-lookups/list', { token: org.token, query: { type: 'tags' } })
    ).body.data.find((t: { name: string }) => t.name === 'Hot').id;
    expect(await listIds({ tags: hot })).toEqual(idsOf('alpha'));
  });

  it('filters company, city, state and country case-insensitively', async () => {
    expect(await listIds({ company: 'NAVY' })).toEqual(idsOf('alpha', 'delta'));
    expect(await listIds({ city: 'Hampton' })).toEqual(idsOf('gamma'));
    expect(await listIds({ state: 'va' })).toEqual(idsOf('alpha'));
    expect(await listIds({ country: 'USA' })).toEqual(idsOf('alpha', 'gamma'));
  });

  it('filters created_from / created_to (inclusive days) and start_date / end_date', async () => {
    expect(await listIds({ created_from: '2024-03-15', created_to: '2024-03-15' })).toEqual(idsOf('gamma'));
    expect(await listIds({ created_to: '2024-03-14' })).toEqual([]);
    expect(await listIds({ start_date: '2024-03-16' })).toEqual(idsOf('alpha', 'beta', 'delta'));
    expect(await listIds({ end_date: '2024-03-15' })).toEqual(idsOf('gamma'));
  });

  it('combines every filter with every other', async () => {
    expect(await listIds({ country: 'usa', state_id: '1,3', score_max: 50 })).toEqual(idsOf('gamma'));
    expect(await listIds({ company: 'navy', priority: '4', assigned_to: 'true', search_value: 'grace' })).toEqual(
      idsOf('alpha'),
    );
    expect(await listIds({ company: 'navy', unassigned: 'true', state_id: '1' })).toEqual([]);
  });

  it('answers 400 naming the parameter for malformed values', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ lead_source: '1,x' }, 'lead_source'],
      [{ priority: 'high' }, 'priority'],
      [{ state_id: '1;2' }, 'state_id'],
      [{ assigned_to: 'me' }, 'assigned_to'],
      [{ created_from: '2024-02-30' }, 'created_from'],
      [{ created_to: '15/03/2024' }, 'created_to'],
      [{ score_min: 'lots' }, 'score_min'],
      [{ unassigned: 'yes' }, 'unassigned'],
      [{ city: 'x'.repeat(201) }, 'city'],
      // A range that ends before it starts selects nothing: refused, never an empty page.
      [{ created_from: '2024-03-16', created_to: '2024-03-15' }, 'created_from'],
    ];
    for (const [query, field] of cases) {
      const response = await call('GET', '/api/lead/list', { token: org.token, query });
      expectFailure(response, 400, 'bad_request');
      expect(response.body.error.code, JSON.stringify(query)).toBe(field);
    }
  });
});

describe('GET /api/lead/list paging and order', () => {
  it('pages with total, page and limit, and follows next_cursor without repeats', async () => {
    const first = await call('GET', '/api/lead/list', { token: org.token, query: { limit: 3, order_by: 'score' } });
    expect(first.body).toMatchObject({ total: 4, page: 1, limit: 3 });
    expect(first.body.data.map((lead: { id: number }) => lead.id)).toEqual([ids.alpha, ids.beta, ids.gamma]);
    const next = await call('GET', '/api/lead/list', {
      token: org.token,
      query: { limit: 3, order_by: 'score', cursor: first.body.next_cursor },
    });
    expect(next.body.data.map((lead: { id: number }) => lead.id)).toEqual([ids.delta]);
    expect(next.body.next_cursor).toBeNull();
  });

  it('orders by nullable columns too (email, priority, last_activity_at)', async () => {
    expect(await listIds({ order_by: 'priority', order_in: 'desc' })).toEqual([
      ids.alpha,
      ids.beta,
      ids.delta,
      ids.gamma,
    ]);
    const byEmail = await call('GET', '/api/lead/list', {
      token: org.token,
      query: { order_by: 'email', order_in: 'ASC', limit: 2 },
    });
    const rest = await call('GET', '/api/lead/list', {
      token: org.token,
      query: { order_by: 'email', order_in: 'ASC', limit: 2, cursor: byEmail.body.next_cursor },
    });
    expect([...byEmail.body.data, ...rest.body.data].map((lead: { email: string | null }) => lead.email)).toEqual([
      null,
      'alan@bletchley.example',
      'ewd_dijkstra@tue.example',
      'grace@navy.example',
    ]);
    expect((await listIds({ order_by: 'last_activity_at' })).length).toBe(4);
  });

  it('returns resolved labels and tags on every listed lead', async () => {
    const response = await call('GET', '/api/lead/list', { token: org.token, query: { search_value: 'hopper' } });
    expect(response.body.data[0]).toMatchObject({
      status_text: 'New',
      priority_text: 'Urgent',
      lead_source_text: 'Website',
      tags: [{ name: 'Hot' }],
    });
  });
});
