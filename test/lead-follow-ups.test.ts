/**
 * Follow-ups on a lead: statuses 1 to 6 (1 pending, 2 completed, 3 rescheduled, 4 cancelled,
 * 5 missed, 6 no response), filters by status and date, status changes, feed entries and
 * last_activity_at, 404 across organizations and for deleted leads.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, expectFailure, signupOrganization, type SignedUp } from './helpers/api';
import { createLead, feedOf, leadActivity, softDeleteLead } from './helpers/leads';

describe('lead follow-ups', () => {
  let owner: SignedUp;
  let other: SignedUp;
  let leadId: number;

  beforeAll(async () => {
    [owner, other] = await Promise.all([signupOrganization('FollowUps'), signupOrganization('Other')]);
    leadId = await createLead(owner);
  });

  const add = (body: Record<string, unknown>, who: SignedUp = owner) =>
    call('POST', '/api/lead/follow-up/add', { token: who.token, body });
  const listOf = (query: Record<string, string | number>) =>
    call('GET', '/api/lead/follow-up/list', { token: owner.token, query });

  it('adds a pending follow-up by default, with feed entry and last_activity_at', async () => {
    const response = await add({ lead_id: leadId, follow_up_date: '2026-03-01T09:30:00+02:00', notes: 'Call back' });
    expect(response.status, response.text).toBe(201);
    expect(response.body.data).toMatchObject({
      lead_id: leadId,
      follow_up_date: '2026-03-01T07:30:00.000Z',
      notes: 'Call back',
      status: 1,
      status_text: 'Pending',
      created_by: owner.userId,
    });
    expect(await leadActivity(owner, leadId)).not.toBeNull();
    const feed = await feedOf(owner, 'lead', leadId);
    expect(feed.at(-1)).toMatchObject({ action: 'follow_up_added', changes: { status: { from: null, to: 1 } } });
    expect(feed.at(-1)?.changes).toEqual({
      follow_up_id: { from: null, to: response.body.data.id },
      follow_up_date: { from: null, to: '2026-03-01T07:30:00.000Z' },
      notes: { from: null, to: 'Call back' },
      status: { from: null, to: 1 },
    });
  });

  it('accepts a date without time (midnight UTC) and every status 1 to 6 with its label', async () => {
    const labels = ['Pending', 'Completed', 'Rescheduled', 'Cancelled', 'Missed', 'No response'];
    for (const [index, label] of labels.entries()) {
      const response = await add({ lead_id: leadId, follow_up_date: '2026-04-10', status: index + 1 });
      expect(response.status, response.text).toBe(201);
      expect(response.body.data).toMatchObject({
        status: index + 1,
        status_text: label,
        follow_up_date: '2026-04-10T00:00:00.000Z',
      });
    }
  });

  it('refuses a bad status, a missing or malformed date with 422 naming the field', async () => {
    for (const status of [0, 7, 1.5, 'pending']) {
      const response = await add({ lead_id: leadId, follow_up_date: '2026-03-01', status });
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code).toBe('status');
    }
    for (const follow_up_date of [undefined, 'tomorrow', '2026-02-30', '2026-03-01T25:00:00Z', '2026-03-01T10:00:00']) {
      const response = await add({ lead_id: leadId, follow_up_date });
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code).toBe('follow_up_date');
    }
  });

  it('answers 404 for a lead of another organization and for a deleted lead', async () => {
    expectFailure(await add({ lead_id: await createLead(other), follow_up_date: '2026-03-01' }), 404, 'not_found');
    const doomed = await createLead(owner);
    const followUp = (await add({ lead_id: doomed, follow_up_date: '2026-03-01' })).body.data;
    await softDeleteLead(owner, doomed);
    expectFailure(await add({ lead_id: doomed, follow_up_date: '2026-03-01' }), 404, 'not_found');
    expectFailure(await listOf({ lead_id: doomed }), 404, 'not_found');
    expectFailure(
      await call('POST', `/api/lead/follow-up/update/${followUp.id}`, { token: owner.token, body: { status: 2 } }),
      404,
      'not_found',
    );
    expectFailure(
      await call('DELETE', `/api/lead/follow-up/delete/${followUp.id}`, { token: owner.token }),
      404,
      'not_found',
    );
  });

  it('filters by status (one or a comma list) and by follow-up date range', async () => {
    const lead = await createLead(owner);
    await add({ lead_id: lead, follow_up_date: '2026-05-01T10:00:00Z', status: 1 });
    await add({ lead_id: lead, follow_up_date: '2026-05-02T10:00:00Z', status: 2 });
    await add({ lead_id: lead, follow_up_date: '2026-05-03T23:59:00Z', status: 3 });
    await add({ lead_id: lead, follow_up_date: '2026-05-04T00:00:00Z', status: 1 });
    const all = await listOf({ lead_id: lead });
    expect(all.status, all.text).toBe(200);
    expect(all.body.total).toBe(4);
    expect((await listOf({ lead_id: lead, status: 1 })).body.total).toBe(2);
    const several = await listOf({ lead_id: lead, status: '2,3', order_by: 'follow_up_date', order_in: 'ASC' });
    expect(several.body.data.map((f: { status: number }) => f.status)).toEqual([2, 3]);
    const range = await listOf({
      lead_id: lead,
      follow_up_from: '2026-05-02',
      follow_up_to: '2026-05-03',
      order_by: 'follow_up_date',
      order_in: 'ASC',
    });
    expect(range.body.data.map((f: { follow_up_date: string }) => f.follow_up_date)).toEqual([
      '2026-05-02T10:00:00.000Z',
      '2026-05-03T23:59:00.000Z',
    ]);
    const instant = await listOf({ lead_id: lead, follow_up_to: '2026-05-02T10:00:00Z' });
    expect(instant.body.total).toBe(2);
  });

  it('refuses follow_up_from after follow_up_to with 400 naming follow_up_from; one day or one instant is a range', async () => {
    for (const [from, to] of [
      ['2026-05-03', '2026-05-02'],
      ['2026-05-02T10:00:01Z', '2026-05-02T10:00:00Z'],
      ['2026-05-03T00:00:00Z', '2026-05-02'],
    ]) {
      const response = await listOf({ lead_id: leadId, follow_up_from: from, follow_up_to: to });
      expectFailure(response, 400, 'bad_request');
      expect(response.body.error.code, `${from} ${to}`).toBe('follow_up_from');
    }
    for (const [from, to] of [
      ['2026-05-02', '2026-05-02'],
      ['2026-05-02T10:00:00Z', '2026-05-02T10:00:00Z'],
      ['2026-05-02T23:00:00Z', '2026-05-02'],
    ])
      expect((await listOf({ lead_id: leadId, follow_up_from: from, follow_up_to: to })).status).toBe(200);
  });

  it('refuses bad list filters with 400 naming the parameter', async () => {
    for (const [key, value] of [
      ['status', '7'],
      ['status', '1,x'],
      ['follow_up_from', 'soon'],
      ['lead_id', 'abc'],
    ] as const) {
      const response = await listOf({ lead_id: leadId, [key]: value });
      expectFailure(response, 400, 'bad_request');
      expect(response.body.error.code).toBe(key);
    }
  });

  it('changes status, date and notes; the feed says which', async () => {
    const followUp = (await add({ lead_id: leadId, follow_up_date: '2026-06-01T10:00:00Z', notes: 'first' })).body.data;
    const done = await call('POST', `/api/lead/follow-up/update/${followUp.id}`, {
      token: owner.token,
      body: { status: 2 },
    });
    expect(done.status, done.text).toBe(200);
    expect(done.body.data).toMatchObject({
      id: followUp.id,
      status: 2,
      status_text: 'Completed',
      notes: 'first',
      follow_up_date: '2026-06-01T10:00:00.000Z',
    });
    expect((await feedOf(owner, 'lead', leadId)).at(-1)).toMatchObject({
      action: 'follow_up_status_changed',
      changes: { status: { from: 1, to: 2 } },
    });
    expect((await feedOf(owner, 'lead', leadId)).at(-1)!.changes).toEqual({
      follow_up_id: { from: followUp.id, to: followUp.id },
      status: { from: 1, to: 2 },
    });
    const moved = await call('POST', `/api/lead/follow-up/update/${followUp.id}`, {
      token: owner.token,
      body: { follow_up_date: '2026-06-08T10:00:00Z', notes: null },
    });
    expect(moved.body.data).toMatchObject({ status: 2, notes: null, follow_up_date: '2026-06-08T10:00:00.000Z' });
    const last = (await feedOf(owner, 'lead', leadId)).at(-1)!;
    expect(last).toMatchObject({ action: 'follow_up_updated', changes: { notes: { from: 'first', to: null } } });
    expect(last.changes).toEqual({
      follow_up_id: { from: followUp.id, to: followUp.id },
      follow_up_date: { from: '2026-06-01T10:00:00.000Z', to: '2026-06-08T10:00:00.000Z' },
      notes: { from: 'first', to: null },
    });
    expectFailure(
      await call('POST', `/api/lead/follow-up/update/${followUp.id}`, { token: owner.token, body: {} }),
      422,
      'validation_error',
    );
    expectFailure(
      await call('POST', `/api/lead/follow-up/update/${followUp.id}`, { token: owner.token, body: { status: 9 } }),
      422,
      'validation_error',
    );
  });

  it('deletes a follow-up', async () => {
    const followUp = (await add({ lead_id: leadId, follow_up_date: '2026-07-01' })).body.data;
    const response = await call('DELETE', `/api/lead/follow-up/delete/${followUp.id}`, { token: owner.token });
    expect(response.status, response.text).toBe(200);
    expect((await listOf({ lead_id: leadId, limit: 100 })).body.data.map((f: { id: number }) => f.id)).not.toContain(
      followUp.id,
    );
    const entry = (await feedOf(owner, 'lead', leadId)).at(-1);
    expect(entry).toMatchObject({ action: 'follow_up_deleted', actorUserId: owner.userId });
    expect(entry?.changes).toEqual({
      follow_up_id: { from: followUp.id, to: null },
      follow_up_date: { from: '2026-07-01T00:00:00.000Z', to: null },
      notes: { from: null, to: null },
      status: { from: 1, to: null },
    });
  });

  it('does not let another organization list, change or delete the follow-ups', async () => {
    const followUp = (await add({ lead_id: leadId, follow_up_date: '2026-08-01' })).body.data;
    expectFailure(
      await call('GET', '/api/lead/follow-up/list', { token: other.token, query: { lead_id: leadId } }),
      404,
      'not_found',
    );
    expectFailure(
      await call('POST', `/api/lead/follow-up/update/${followUp.id}`, { token: other.token, body: { status: 4 } }),
      404,
      'not_found',
    );
    expectFailure(
      await call('DELETE', `/api/lead/follow-up/delete/${followUp.id}`, { token: other.token }),
      404,
      'not_found',
    );
    const listed = await listOf({ lead_id: leadId, limit: 100 });
    expect(listed.body.data.find((f: { id: number }) => f.id === followUp.id)).toMatchObject({ status: 1 });
  });
});
