/**
 * Notes on a lead: add, list (paging, search), update, delete; feed entries and
 * last_activity_at; 404 for leads of other organizations and for deleted leads.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, expectFailure, signupOrganization, type SignedUp } from './helpers/api';
import { createLead, feedOf, leadActivity, softDeleteLead } from './helpers/leads';

describe('lead notes', () => {
  let owner: SignedUp;
  let other: SignedUp;
  let leadId: number;

  beforeAll(async () => {
    [owner, other] = await Promise.all([signupOrganization('Notes'), signupOrganization('Other')]);
    leadId = await createLead(owner);
  });

  const addNote = (body: Record<string, unknown>, who: SignedUp = owner) =>
    call('POST', '/api/lead/note/add', { token: who.token, body });

  it('adds a note, writes a note_added feed entry and moves last_activity_at', async () => {
    const before = await leadActivity(owner, leadId);
    const response = await addNote({ lead_id: leadId, title: '  First call ', note: 'Talked about pricing' });
    expect(response.status, response.text).toBe(201);
    expect(response.body).toMatchObject({
      success: true,
      data: { lead_id: leadId, title: 'First call', note: 'Talked about pricing', created_by: owner.userId },
    });
    expect(response.body.data.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const after = await leadActivity(owner, leadId);
    expect(after).not.toBeNull();
    if (before) expect(after!.getTime()).toBeGreaterThanOrEqual(before.getTime());
    const feed = await feedOf(owner, 'lead', leadId);
    expect(feed.at(-1)).toMatchObject({
      action: 'note_added',
      actorUserId: owner.userId,
      changes: { note_id: { from: null, to: response.body.data.id } },
    });
    expect(feed.at(-1)?.changes).toEqual({
      note_id: { from: null, to: response.body.data.id },
      title: { from: null, to: 'First call' },
    });
  });

  it('accepts a note without text', async () => {
    const response = await addNote({ lead_id: leadId, title: 'Just a title' });
    expect(response.status, response.text).toBe(201);
    expect(response.body.data.note).toBeNull();
  });

  it('refuses a missing title, an over-long title and a missing lead_id with 422 naming the field', async () => {
    const missing = await addNote({ lead_id: leadId });
    expectFailure(missing, 422, 'validation_error');
    expect(missing.body.error.code).toBe('title');
    const long = await addNote({ lead_id: leadId, title: 'x'.repeat(256) });
    expect(long.body.error.code).toBe('title');
    const noLead = await addNote({ title: 'Orphan' });
    expectFailure(noLead, 422, 'validation_error');
    expect(noLead.body.error.code).toBe('lead_id');
  });

  it('answers 404 for a lead of another organization, an unknown lead and a deleted lead', async () => {
    const foreign = await createLead(other);
    expectFailure(await addNote({ lead_id: foreign, title: 'Sneaky' }), 404, 'not_found');
    expectFailure(await addNote({ lead_id: 999_999_999, title: 'Nobody' }), 404, 'not_found');
    const doomed = await createLead(owner);
    const note = await addNote({ lead_id: doomed, title: 'Before deletion' });
    await softDeleteLead(owner, doomed);
    expectFailure(await addNote({ lead_id: doomed, title: 'After deletion' }), 404, 'not_found');
    expectFailure(
      await call('GET', '/api/lead/note/list', { token: owner.token, query: { lead_id: doomed } }),
      404,
      'not_found',
    );
    expectFailure(
      await call('POST', `/api/lead/note/update/${note.body.data.id}`, { token: owner.token, body: { title: 'x' } }),
      404,
      'not_found',
    );
    expectFailure(
      await call('DELETE', `/api/lead/note/delete/${note.body.data.id}`, { token: owner.token }),
      404,
      'not_found',
    );
  });

  it('lists the notes of one lead with paging, order and search', async () => {
    const lead = await createLead(owner);
    for (const title of ['Alpha', 'Bravo', 'Charlie'])
      await addNote({ lead_id: lead, title, note: `about ${title.toLowerCase()}` });
    await addNote({ lead_id: leadId, title: 'Other lead' });
    const page = await call('GET', '/api/lead/note/list', { token: owner.token, query: { lead_id: lead, limit: 2 } });
    expect(page.status, page.text).toBe(200);
    expect(page.body).toMatchObject({ success: true, total: 3, page: 1, limit: 2 });
    expect(page.body.data.map((n: { title: string }) => n.title)).toEqual(['Charlie', 'Bravo']);
    const asc = await call('GET', '/api/lead/note/list', {
      token: owner.token,
      query: { lead_id: lead, order_by: 'title', order_in: 'asc' },
    });
    expect(asc.body.data.map((n: { title: string }) => n.title)).toEqual(['Alpha', 'Bravo', 'Charlie']);
    const search = await call('GET', '/api/lead/note/list', {
      token: owner.token,
      query: { lead_id: lead, search_value: 'BRAV' },
    });
    expect(search.body.data.map((n: { title: string }) => n.title)).toEqual(['Bravo']);
    const searchText = await call('GET', '/api/lead/note/list', {
      token: owner.token,
      query: { lead_id: lead, search_value: 'about char' },
    });
    expect(searchText.body.total).toBe(1);
  });

  it('requires lead_id on the list (400 naming it)', async () => {
    const response = await call('GET', '/api/lead/note/list', { token: owner.token });
    expectFailure(response, 400, 'bad_request');
    expect(response.body.error.code).toBe('lead_id');
  });

  it('updates a note, recording what changed', async () => {
    const note = (await addNote({ lead_id: leadId, title: 'Draft', note: 'old' })).body.data;
    const response = await call('POST', `/api/lead/note/update/${note.id}`, {
      token: owner.token,
      body: { note: 'new text' },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toMatchObject({ id: note.id, title: 'Draft', note: 'new text' });
    expect(Date.parse(response.body.data.updated_at)).toBeGreaterThanOrEqual(Date.parse(note.updated_at));
    const feed = await feedOf(owner, 'lead', leadId);
    expect(feed.at(-1)).toMatchObject({ action: 'note_updated', changes: { note: { from: 'old', to: 'new text' } } });
    expect(feed.at(-1)!.changes).toEqual({
      note_id: { from: note.id, to: note.id },
      note: { from: 'old', to: 'new text' },
    });
    // The same text again changes nothing but the note's id is recorded.
    const same = await call('POST', `/api/lead/note/update/${note.id}`, {
      token: owner.token,
      body: { title: 'Draft', note: 'new text' },
    });
    expect(same.status, same.text).toBe(200);
    expect((await feedOf(owner, 'lead', leadId)).at(-1)).toMatchObject({
      action: 'note_updated',
      changes: { note_id: { from: note.id, to: note.id } },
    });
    expect((await feedOf(owner, 'lead', leadId)).at(-1)!.changes).toEqual({ note_id: { from: note.id, to: note.id } });
    const empty = await call('POST', `/api/lead/note/update/${note.id}`, { token: owner.token, body: {} });
    expectFailure(empty, 422, 'validation_error');
  });

  it('deletes a note; it is gone from the list and a second delete is 404', async () => {
    const note = (await addNote({ lead_id: leadId, title: 'Temporary' })).body.data;
    const response = await call('DELETE', `/api/lead/note/delete/${note.id}`, { token: owner.token });
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toEqual({ id: note.id });
    const listed = await call('GET', '/api/lead/note/list', {
      token: owner.token,
      query: { lead_id: leadId, limit: 100 },
    });
    expect(listed.body.data.map((n: { id: number }) => n.id)).not.toContain(note.id);
    expectFailure(await call('DELETE', `/api/lead/note/delete/${note.id}`, { token: owner.token }), 404, 'not_found');
    const entry = (await feedOf(owner, 'lead', leadId)).at(-1);
    expect(entry).toMatchObject({ action: 'note_deleted', actorUserId: owner.userId });
    expect(entry?.changes).toEqual({ note_id: { from: note.id, to: null }, title: { from: 'Temporary', to: null } });
  });

  it('does not let another organization list, change or delete the notes', async () => {
    const note = (await addNote({ lead_id: leadId, title: 'Private' })).body.data;
    expectFailure(
      await call('GET', '/api/lead/note/list', { token: other.token, query: { lead_id: leadId } }),
      404,
      'not_found',
    );
    expectFailure(
      await call('POST', `/api/lead/note/update/${note.id}`, { token: other.token, body: { title: 'Mine' } }),
      404,
      'not_found',
    );
    expectFailure(await call('DELETE', `/api/lead/note/delete/${note.id}`, { token: other.token }), 404, 'not_found');
    const listed = await call('GET', '/api/lead/note/list', {
      token: owner.token,
      query: { lead_id: leadId, limit: 100 },
    });
    expect(listed.body.data.find((n: { id: number }) => n.id === note.id)).toMatchObject({ title: 'Private' });
  });
});
