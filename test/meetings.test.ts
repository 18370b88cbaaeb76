/**
 * Meetings (/api/meeting/*) and the caller's own availability (/api/calendar/availability):
 * every field round-trips, the spec's value sets and end-after-start are enforced with a 422
 * naming the field, linked records of another organization are 404, filters narrow the list,
 * and a meeting takes its slot off the rep's availability.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, expectFailure, signupOrganization, type SignedUp } from './helpers/api';
import { createLead, inOrganization } from './helpers/leads';
import { companies, contacts } from '../src/db/schema';

let org: SignedUp;
let other: SignedUp;
let leadId: number;
let otherLeadId: number;

const meeting = (overrides: Record<string, unknown> = {}) => ({
  title: 'Discovery call',
  start_time: '2027-03-01T09:00:00-05:00',
  end_time: '2027-03-01T09:30:00-05:00',
  ...overrides,
});

async function add(owner: SignedUp, body: Record<string, unknown>) {
  const response = await call('POST', '/api/meeting/add', { token: owner.token, body });
  if (response.status !== 201) throw new Error(`meeting add: ${response.status} ${response.text}`);
  return response.body.data;
}

beforeAll(async () => {
  [org, other] = await Promise.all([signupOrganization('Meetings'), signupOrganization('Meetings other')]);
  [leadId, otherLeadId] = await Promise.all([createLead(org), createLead(other)]);
});

describe('POST /api/meeting/add', () => {
  it('stores every field of the Meeting resource and reads it back', async () => {
    const [company] = await inOrganization(org.orgId, (tx) =>
      tx.insert(companies).values({ organizationId: org.orgId, companyName: 'Navy Labs' }).returning(),
    );
    const [contact] = await inOrganization(org.orgId, (tx) =>
      tx
        .insert(contacts)
        .values({ organizationId: org.orgId, name: 'Grace Hopper', companyId: company.id })
        .returning(),
    );
    const created = await add(
      org,
      meeting({
        lead_id: leadId,
        contact_id: contact.id,
        company_id: company.id,
        description: 'Agenda',
        location: 'Room 1',
        timezone: 'America/New_York',
        attendees: [{ email: 'grace@example.com', name: 'Grace' }],
        meeting_url: 'https://meet.example.com/abc',
        meeting_tool: 'tool_b',
        status: 2,
      }),
    );
    expect(created).toMatchObject({
      user_id: org.userId,
      lead_id: leadId,
      contact_id: contact.id,
      company_id: company.id,
      title: 'Discovery call',
      description: 'Agenda',
      location: 'Room 1',
      start_time: '2027-03-01T14:00:00.000Z',
      end_time: '2027-03-01T14:30:00.000Z',
      timezone: 'America/New_York',
      attendees: [{ email: 'grace@example.com', name: 'Grace' }],
      meeting_url: 'https://meet.example.com/abc',
      meeting_tool: 'tool_b',
      status: 2,
      status_text: 'Rescheduled',
      source: 'app',
      created_by: org.userId,
    });
    const view = await call('GET', `/api/meeting/view/${created.id}`, { token: org.token });
    expect(view.status).toBe(200);
    expect(view.body.data).toEqual(created);
  });

  it('defaults to the caller, status Scheduled, tool none and the caller’s timezone', async () => {
    const created = await add(org, meeting());
    expect(created).toMatchObject({
      user_id: org.userId,
      status: 1,
      meeting_tool: 'none',
      timezone: 'UTC',
      attendees: [],
    });
  });

  it('refuses an end at or before the start with 422 naming end_time', async () => {
    const response = await call('POST', '/api/meeting/add', {
      token: org.token,
      body: meeting({ end_time: '2027-03-01T09:00:00-05:00' }),
    });
    expectFailure(response, 422, 'validation_error');
    expect(response.body.error.code).toBe('end_time');
  });

  it.each([
    ['meeting_tool', { meeting_tool: 'zoom' }],
    ['status', { status: 6 }],
    ['start_time', { start_time: 'tomorrow' }],
    ['timezone', { timezone: 'Mars/Base' }],
    ['title', { title: '' }],
    ['attendees.0.email', { attendees: [{ email: 'nope' }] }],
  ])('refuses a bad %s with 422 naming it', async (field, override) => {
    const response = await call('POST', '/api/meeting/add', { token: org.token, body: meeting(override) });
    expectFailure(response, 422, 'validation_error');
    expect(response.body.error.code).toBe(field);
  });

  it('answers 404 for a lead, contact, company or user of another organization, and creates nothing', async () => {
    const before = await call('GET', '/api/meeting/list', { token: org.token });
    for (const body of [
      { lead_id: otherLeadId },
      { contact_id: 999999999 },
      { company_id: 999999999 },
      { user_id: other.userId },
    ]) {
      const response = await call('POST', '/api/meeting/add', { token: org.token, body: meeting(body) });
      expectFailure(response, 404, 'not_found');
    }
    const after = await call('GET', '/api/meeting/list', { token: org.token });
    expect(after.body.total).toBe(before.body.total);
  });
});

describe('GET /api/meeting/list', () => {
  it('filters by lead, status and time range', async () => {
    const owner = await signupOrganization('Meeting filters');
    const lead = await createLead(owner);
    const a = await add(
      owner,
      meeting({ lead_id: lead, start_time: '2027-04-01T10:00:00Z', end_time: '2027-04-01T11:00:00Z' }),
    );
    const b = await add(
      owner,
      meeting({ status: 4, start_time: '2027-04-02T10:00:00Z', end_time: '2027-04-02T11:00:00Z' }),
    );
    const c = await add(
      owner,
      meeting({ status: 3, start_time: '2027-04-03T10:00:00Z', end_time: '2027-04-03T11:00:00Z' }),
    );
    const ids = async (query: Record<string, string | number>) => {
      const response = await call('GET', '/api/meeting/list', { token: owner.token, query });
      expect(response.status, response.text).toBe(200);
      return response.body.data.map((row: { id: number }) => row.id).sort();
    };
    expect(await ids({ lead_id: lead })).toEqual([a.id]);
    expect(await ids({ status: '3,4' })).toEqual([b.id, c.id].sort());
    expect(await ids({ from: '2027-04-02T00:00:00Z', to: '2027-04-03T00:00:00Z' })).toEqual([b.id]);
    expect(await ids({ order_by: 'start_time', search_value: 'Discovery' })).toHaveLength(3);
    const bad = await call('GET', '/api/meeting/list', { token: owner.token, query: { from: 'soon' } });
    expectFailure(bad, 400, 'bad_request');
    expect(bad.body.error.code).toBe('from');
  });
});

describe('POST /api/meeting/update/{id} and DELETE /api/meeting/delete/{id}', () => {
  it('changes status and time, keeps end after start against the stored start, then deletes', async () => {
    const created = await add(org, meeting());
    const moved = await call('POST', `/api/meeting/update/${created.id}`, {
      token: org.token,
      body: { status: 2, start_time: '2027-03-02T09:00:00Z', end_time: '2027-03-02T10:00:00Z', attendees: [] },
    });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.data).toMatchObject({ status: 2, start_time: '2027-03-02T09:00:00.000Z' });
    const backwards = await call('POST', `/api/meeting/update/${created.id}`, {
      token: org.token,
      body: { end_time: '2027-03-02T08:00:00Z' },
    });
    expectFailure(backwards, 422, 'validation_error');
    expect(backwards.body.error.code).toBe('end_time');
    const badStatus = await call('POST', `/api/meeting/update/${created.id}`, {
      token: org.token,
      body: { status: 0 },
    });
    expectFailure(badStatus, 422, 'validation_error');
    const removed = await call('DELETE', `/api/meeting/delete/${created.id}`, { token: org.token });
    expect(removed.status).toBe(200);
    expectFailure(await call('GET', `/api/meeting/view/${created.id}`, { token: org.token }), 404, 'not_found');
  });

  it('answers 404 for a meeting of another organization', async () => {
    const mine = await add(org, meeting());
    expectFailure(await call('GET', `/api/meeting/view/${mine.id}`, { token: other.token }), 404, 'not_found');
  });
});

describe('transcripts and summaries', () => {
  it('answers 404 not_found for a meeting without a transcript yet', async () => {
    const created = await add(org, meeting());
    const transcript = await call('GET', `/api/meeting/${created.id}/transcript`, { token: org.token });
    expectFailure(transcript, 404, 'not_found');
    expect(transcript.body.error.message).toContain('Transcript');
    const summary = await call('POST', `/api/meeting/${created.id}/generate-summary`, {
      token: org.token,
      body: { detail: 'brief' },
    });
    expectFailure(summary, 404, 'not_found');
  });
});

describe('GET /api/calendar/availability', () => {
  it('gives the caller’s free slots, minus their meetings, in the zone asked for', async () => {
    const rep = await signupOrganization('Availability');
    const before = await call('GET', '/api/calendar/availability', {
      token: rep.token,
      query: { date: '2027-03-01', tz: 'America/New_York' },
    });
    expect(before.status, before.text).toBe(200);
    // UTC rep, 09:00-17:00 UTC = 04:00-12:00 EST.
    expect(before.body.data.slots).toHaveLength(16);
    expect(before.body.data.slots[0]).toEqual({ start: '2027-03-01T04:00:00-05:00', end: '2027-03-01T04:30:00-05:00' });
    await add(rep, meeting({ start_time: '2027-03-01T09:00:00Z', end_time: '2027-03-01T10:00:00Z' }));
    await add(rep, meeting({ status: 4, start_time: '2027-03-01T11:00:00Z', end_time: '2027-03-01T12:00:00Z' }));
    const after = await call('GET', '/api/calendar/availability', {
      token: rep.token,
      query: { date: '2027-03-01', tz: 'America/New_York' },
    });
    // The Scheduled meeting takes two slots; the Cancelled one takes none.
    expect(after.body.data.slots).toHaveLength(14);
    expect(after.body.data.slots[0].start).toBe('2027-03-01T05:00:00-05:00');
  });

  it.each([
    ['tz', { tz: 'Nowhere/Special' }],
    ['to', { from: '2027-01-01', to: '2027-03-05' }],
    ['to', { from: '2027-01-10', to: '2027-01-01' }],
    ['duration', { duration: 2 }],
    ['date', { date: '2027-02-30' }],
  ])('answers 400 naming %s', async (field, query) => {
    const response = await call('GET', '/api/calendar/availability', { token: org.token, query });
    expectFailure(response, 400, 'bad_request');
    expect(response.body.error.code).toBe(field);
  });

  it('accepts a 62-day range', async () => {
    const response = await call('GET', '/api/calendar/availability', {
      token: org.token,
      query: { from: '2027-01-01', to: '2027-03-03' },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toMatchObject({ from: '2027-01-01', to: '2027-03-03' });
  });
});

describe('a meeting of a deleted lead', () => {
  it('stays listed and viewable, and can still be cancelled: it is an appointment on the calendars, as a deal outlives its lead', async () => {
    const doomed = await createLead(org);
    const created = await add(org, meeting({ title: 'Kept appointment', lead_id: doomed }));
    const deleted = await call('DELETE', '/api/lead/delete', { token: org.token, body: { ids: [doomed] } });
    expect(deleted.status, deleted.text).toBe(200);
    const viewed = await call('GET', `/api/meeting/view/${created.id}`, { token: org.token });
    expect(viewed.status, viewed.text).toBe(200);
    expect(viewed.body.data).toMatchObject({ id: created.id, lead_id: doomed });
    const listed = await call('GET', '/api/meeting/list', { token: org.token, query: { lead_id: doomed } });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data.map((row: { id: number }) => row.id)).toEqual([created.id]);
    expect(listed.body.total).toBe(1);
    const cancelled = await call('POST', `/api/meeting/update/${created.id}`, {
      token: org.token,
      body: { status: 4 },
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.data.status).toBe(4);
  });
});
