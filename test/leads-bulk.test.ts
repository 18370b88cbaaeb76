/**
 * Bulk actions: status change, assignment, adding and replacing tags, by ids or select_all +
 * filters (the list filters), each answering how many leads changed and writing feed entries.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { addMember, call, expectFailure, signupOrganization, type SignedUp } from './helpers/api';

let org: SignedUp;
let other: SignedUp;
let rep: { id: number; token: string };
let tags: Record<string, number>;

async function addLead(body: Record<string, unknown> = {}, who: SignedUp = org): Promise<number> {
  const response = await call('POST', '/api/lead/add', {
    token: who.token,
    body: { first_name: 'Bulk', last_name: 'Lead', ...body },
  });
  if (response.status !== 201) throw new Error(response.text);
  return response.body.data.id;
}

async function view(id: number, who: SignedUp = org) {
  return (await call('GET', `/api/lead/view/${id}`, { token: who.token })).body.data;
}

async function feedOf(id: number) {
  return (
    await call('GET', '/api/feed/list', { token: org.token, query: { model_type: 'lead', model_id: id, limit: 100 } })
  ).body.data;
}

beforeAll(async () => {
  [org, other] = await Promise.all([signupOrganization('Bulk'), signupOrganization('Other')]);
  const member = await addMember(org, { first_name: 'Rita', last_name: 'Rep' });
  rep = { id: member.userId, token: member.token };
  const lookups = await call('GET', '/api/custom-lookups/list', {
    token: org.token,
    query: { type: 'tags', limit: 100 },
  });
  tags = Object.fromEntries(lookups.body.data.map((tag: { name: string; id: number }) => [tag.name, tag.id]));
});

describe('POST /api/lead/status-change', () => {
  it('changes the listed leads, counts only real changes and records before/after in the feed', async () => {
    const [a, b] = [await addLead(), await addLead({ status: 3 })];
    const response = await call('POST', '/api/lead/status-change', {
      token: org.token,
      body: { ids: [a, b], status: 3 },
    });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ updated: 1 });
    expect(await view(a)).toMatchObject({ status: 3, status_text: 'Qualified' });
    const feed = await feedOf(a);
    expect(feed[0]).toMatchObject({
      action: 'status_changed',
      actor_user_id: org.userId,
      changes: { status: { from: 1, to: 3 } },
    });
  });

  it('with select_all acts on exactly the leads the same filters list', async () => {
    const city = `Town${crypto.randomUUID().slice(0, 6)}`;
    const inCity = [
      await addLead({ city, priority: 4 }),
      await addLead({ city, priority: 4 }),
      await addLead({ city, priority: 1 }),
    ];
    const filters = { city, priority: '4' };
    const listed = await call('GET', '/api/lead/list', { token: org.token, query: filters });
    const response = await call('POST', '/api/lead/status-change', {
      token: org.token,
      body: { select_all: true, filters, status: 6 },
    });
    expect(response.body.data.updated).toBe(listed.body.total);
    expect((await view(inCity[0])).status_text).toBe('Lost');
    expect((await view(inCity[2])).status).toBe(1);
  });

  it('with select_all refuses filters whose range ends before it starts (422 naming it), changing nothing', async () => {
    const mine = await addLead();
    const before = await view(mine);
    for (const [filters, field] of [
      [{ created_from: '2026-03-02', created_to: '2026-03-01' }, 'filters.created_from'],
      [{ start_date: '2026-03-02', end_date: '2026-03-01' }, 'filters.start_date'],
    ] as const) {
      const response = await call('POST', '/api/lead/status-change', {
        token: org.token,
        body: { select_all: true, filters, status: 5 },
      });
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code).toBe(field);
    }
    expect(await view(mine)).toEqual(before);
  });

  it('with select_all and no filters touches every lead of the caller’s organization and none of another’s', async () => {
    const foreign = await addLead({ city: 'Elsewhere' }, other);
    const foreignBefore = await view(foreign, other);
    const foreignFeed = (
      await call('GET', '/api/feed/list', { token: other.token, query: { model_type: 'lead', model_id: foreign } })
    ).body.total;
    const mine = await addLead();
    const total = (await call('GET', '/api/lead/list', { token: org.token, query: { limit: 1 } })).body.total;
    for (const [path, body] of [
      ['/api/lead/status-change', { select_all: true, status: 5 }],
      ['/api/lead/assign-user', { select_all: true, assigned_to: org.userId }],
      ['/api/lead/set-assign-tags', { select_all: true, tags: [tags.VIP] }],
    ] as const) {
      const response = await call('POST', path, { token: org.token, body });
      expect(response.status, response.text).toBe(200);
      expect(response.body.data.updated).toBeLessThanOrEqual(total);
    }
    expect(await view(mine)).toMatchObject({
      status: 5,
      assigned_to: org.userId,
      tags: [{ id: tags.VIP, name: 'VIP' }],
    });
    expect(await view(foreign, other)).toEqual(foreignBefore);
    expect(
      (await call('GET', '/api/feed/list', { token: other.token, query: { model_type: 'lead', model_id: foreign } }))
        .body.total,
    ).toBe(foreignFeed);
  });

  it('accepts JSON-typed filters (numbers, arrays, booleans) as well as query-string ones', async () => {
    const city = `Json${crypto.randomUUID().slice(0, 6)}`;
    const id = await addLead({ city, lead_source: 2, assigned_to: org.userId });
    const response = await call('POST', '/api/lead/status-change', {
      token: org.token,
      body: { select_all: true, filters: { city, lead_source: [2, 3], assigned_to: true, score_max: 0 }, status: 4 },
    });
    expect(response.body.data.updated).toBe(1);
    expect((await view(id)).status).toBe(4);
  });

  it('refuses unknown filter keys, bad filter values, an unknown status and a missing target with 422', async () => {
    const id = await addLead();
    for (const body of [
      { select_all: true, filters: { colour: 'red' }, status: 2 },
      { select_all: true, filters: { priority: 'high' }, status: 2 },
      { ids: [id], status: 42 },
      { status: 2 },
      { ids: [], status: 2 },
    ]) {
      expectFailure(await call('POST', '/api/lead/status-change', { token: org.token, body }), 422, 'validation_error');
    }
    expect((await view(id)).status).toBe(1);
  });

  it('changes nothing for another organization’s ids', async () => {
    const foreign = await addLead({}, other);
    const response = await call('POST', '/api/lead/status-change', {
      token: org.token,
      body: { ids: [foreign], status: 2 },
    });
    expect(response.body.data).toEqual({ updated: 0 });
    expect((await view(foreign, other)).status).toBe(1);
  });
});

describe('POST /api/lead/assign-user', () => {
  it('assigns, notifies the assignee once per action, and records the feed', async () => {
    const leads = [await addLead(), await addLead()];
    const response = await call('POST', '/api/lead/assign-user', {
      token: org.token,
      body: { ids: leads, assigned_to: rep.id },
    });
    expect(response.body.data).toEqual({ updated: 2 });
    expect((await view(leads[0])).assigned_to).toBe(rep.id);
    const notifications = await call('GET', '/api/notification/list', { token: rep.token, query: { type_id: '1' } });
    expect(notifications.body.data[0]).toMatchObject({
      type_id: 1,
      title: '2 leads assigned to you',
      is_read: false,
      data: { lead_ids: leads, count: 2 },
    });
    expect((await feedOf(leads[1]))[0]).toMatchObject({
      action: 'assigned',
      changes: { assigned_to: { from: null, to: rep.id } },
    });
  });

  it('unassigns with null and refuses a user of another organization', async () => {
    const id = await addLead({ assigned_to: rep.id });
    expect(
      (await call('POST', '/api/lead/assign-user', { token: org.token, body: { ids: [id], assigned_to: null } })).body
        .data,
    ).toEqual({ updated: 1 });
    expect((await view(id)).assigned_to).toBeNull();
    const refused = await call('POST', '/api/lead/assign-user', {
      token: org.token,
      body: { ids: [id], assigned_to: other.userId },
    });
    expectFailure(refused, 422, 'validation_error');
    expect(refused.body.error.code).toBe('assigned_to');
  });
});

describe('tags', () => {
  it('POST /api/lead/assign-tags adds tags and counts leads that gained one', async () => {
    const [a, b] = [await addLead({ tags: [tags.Hot] }), await addLead()];
    const response = await call('POST', '/api/lead/assign-tags', {
      token: org.token,
      body: { ids: [a, b], tags: [tags.Hot, tags.VIP] },
    });
    expect(response.body.data).toEqual({ updated: 2 });
    expect((await view(a)).tags.map((tag: { name: string }) => tag.name)).toEqual(['Hot', 'VIP']);
    expect(
      (await call('POST', '/api/lead/assign-tags', { token: org.token, body: { ids: [a], tags: [tags.Hot] } })).body
        .data,
    ).toEqual({ updated: 0 });
    expect((await feedOf(a))[0]).toMatchObject({
      action: 'tags_added',
      changes: { tags: { from: [tags.Hot], to: [tags.Hot, tags.VIP] } },
    });
  });

  it('POST /api/lead/set-assign-tags replaces tags, and [] clears them', async () => {
    const [a, b] = [await addLead({ tags: [tags.Hot, tags.Cold] }), await addLead({ tags: [tags.VIP] })];
    const response = await call('POST', '/api/lead/set-assign-tags', {
      token: org.token,
      body: { ids: [a, b], tags: [tags.VIP] },
    });
    expect(response.body.data).toEqual({ updated: 1 });
    expect((await view(a)).tags.map((tag: { name: string }) => tag.name)).toEqual(['VIP']);
    expect(
      (await call('POST', '/api/lead/set-assign-tags', { token: org.token, body: { ids: [a], tags: [] } })).body.data,
    ).toEqual({ updated: 1 });
    expect((await view(a)).tags).toEqual([]);
  });

  it('refuses tags that are not the organization’s active tags', async () => {
    const id = await addLead();
    const foreignTag = (await call('GET', '/api/custom-lookups/list', { token: other.token, query: { type: 'tags' } }))
      .body.data[0].id;
    const refused = await call('POST', '/api/lead/assign-tags', {
      token: org.token,
      body: { ids: [id], tags: [foreignTag] },
    });
    expectFailure(refused, 422, 'validation_error');
    expect(refused.body.error.code).toBe('tags.0');
  });
});
