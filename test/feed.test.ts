/**
 * GET /api/feed/list: every change to a lead is recorded (who, what, before/after) and read
 * back per record with model_type and model_id.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, expectFailure, signupOrganization, type SignedUp } from './helpers/api';

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
