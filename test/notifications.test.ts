/**
 * /api/notification/*: a user's own notifications; assigning a lead to a user notifies them,
 * and the end of an import or export notifies the user who started it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { deliverJobs, exportAndWait, importAndWait } from './cross-tenant/fixtures/jobs';
import { eq } from 'drizzle-orm';
import { webhookDeliveries } from '../src/db/schema';
import { addMember, call, expectFailure, signupOrganization, uniqueEmail, type SignedUp } from './helpers/api';
import { inOrganization } from './helpers/leads';

let admin: SignedUp;
let rep: { id: number; token: string };

async function notifications(token: string, query: Record<string, string> = {}) {
  const response = await call('GET', '/api/notification/list', { token, query: { limit: 100, ...query } });
  expect(response.status).toBe(200);
  return response.body.data as {
    id: number;
    type_id: number;
    title: string;
    is_read: boolean;
    read_at: string | null;
    data: Record<string, unknown>;
  }[];
}

beforeAll(async () => {
  admin = await signupOrganization('Notify');
  const member = await addMember(admin, { first_name: 'Rosa' });
  rep = { id: member.userId, token: member.token };
});

describe('lead assignment notifications', () => {
  it('notifies the assignee when a lead is created for them or reassigned to them', async () => {
    const created = (
      await call('POST', '/api/lead/add', {
        token: admin.token,
        body: { first_name: 'Ann', last_name: 'Signed', assigned_to: rep.id },
      })
    ).body.data;
    const other = (
      await call('POST', '/api/lead/add', { token: admin.token, body: { first_name: 'Bob', last_name: 'Later' } })
    ).body.data;
    await call('POST', `/api/lead/update/${other.id}`, { token: admin.token, body: { assigned_to: rep.id } });
    await call('POST', `/api/lead/update/${other.id}`, {
      token: admin.token,
      body: { city: 'Same assignee, no new notice' },
    });
    const mine = await notifications(rep.token);
    expect(mine.map((notice) => notice.title)).toEqual([
      'Lead assigned to you: Bob Later',
      'Lead assigned to you: Ann Signed',
    ]);
    expect(mine[1]).toMatchObject({
      type_id: 1,
      is_read: false,
      read_at: null,
      data: { lead_id: created.id, assigned_by: admin.userId },
    });
    expect(await notifications(admin.token)).toEqual([]);
  });
});

describe('a lead captured without a name', () => {
  it('is announced as a lead assigned, not with a blank name (the notification, the lead.assigned webhook)', async () => {
    const keyed = await call('POST', '/api/api-keys/add', { token: admin.token, body: { name: 'site' } });
    expect(keyed.status, keyed.text).toBe(201);
    const ingested = await call('POST', '/api/v1/lead', {
      apiKey: keyed.body.data.key,
      body: { email: uniqueEmail('nameless') },
    });
    expect(ingested.status, ingested.text).toBe(201);
    const leadId = ingested.body.data.id as number;
    const hook = await call('POST', '/api/webhooks', {
      token: admin.token,
      body: { url: 'https://hooks.example.test/assigned', events: ['lead.assigned'] },
    });
    expect(hook.status, hook.text).toBe(201);
    const assigned = await call('POST', `/api/lead/update/${leadId}`, {
      token: admin.token,
      body: { assigned_to: rep.id },
    });
    expect(assigned.status, assigned.text).toBe(200);
    const notice = (await notifications(rep.token)).find((row) => row.data.lead_id === leadId);
    expect(notice?.title).toBe('Lead assigned to you');
    const [delivery] = await inOrganization(admin.orgId, (tx) =>
      tx
        .select({ payload: webhookDeliveries.payload })
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.endpointId, hook.body.data.id)),
    );
    expect(delivery.payload.data).toMatchObject({ lead_id: leadId, lead_name: null, assigned_to: rep.id });
    // Nothing of this organization's later writes goes out to it.
    expect((await call('DELETE', `/api/webhooks/${hook.body.data.id}`, { token: admin.token })).status).toBe(200);
  });
});

describe('no notice of one’s own assignment', () => {
  it('does not tell a rep that they assigned a lead to themselves (create, update, bulk), but tells them of others’', async () => {
    const before = (await notifications(rep.token)).length;
    const own = (
      await call('POST', '/api/lead/add', {
        token: rep.token,
        body: { first_name: 'Self', last_name: 'Made', assigned_to: rep.id },
      })
    ).body.data;
    const later = (
      await call('POST', '/api/lead/add', { token: rep.token, body: { first_name: 'Self', last_name: 'Later' } })
    ).body.data;
    const bulk = (
      await call('POST', '/api/lead/add', { token: rep.token, body: { first_name: 'Self', last_name: 'Bulk' } })
    ).body.data;
    expect(
      (await call('POST', `/api/lead/update/${later.id}`, { token: rep.token, body: { assigned_to: rep.id } })).status,
    ).toBe(200);
    expect(
      (await call('POST', '/api/lead/assign-user', { token: rep.token, body: { ids: [bulk.id], assigned_to: rep.id } }))
        .status,
    ).toBe(200);
    for (const id of [own.id, later.id, bulk.id]) {
      expect((await call('GET', `/api/lead/view/${id}`, { token: rep.token })).body.data.assigned_to).toBe(rep.id);
    }
    expect((await notifications(rep.token)).length).toBe(before);
    // The rep assigns a lead to the admin: the admin hears of it.
    await call('POST', '/api/lead/assign-user', {
      token: rep.token,
      body: { ids: [bulk.id], assigned_to: admin.userId },
    });
    expect((await notifications(admin.token)).map((notice) => notice.title)).toContain(
      'Lead assigned to you: Self Bulk',
    );
  });
});

describe('POST /api/notification/read', () => {
  it('marks the caller’s notifications read and filters by is_read and type_id', async () => {
    await call('POST', '/api/lead/add', {
      token: admin.token,
      body: { first_name: 'Cy', last_name: 'Read', assigned_to: rep.id },
    });
    const unread = await notifications(rep.token, { is_read: 'false' });
    const response = await call('POST', '/api/notification/read', { token: rep.token, body: { ids: [unread[0].id] } });
    expect(response.body.data).toEqual({ updated: 1 });
    expect((await notifications(rep.token, { is_read: 'true' })).map((notice) => notice.id)).toEqual([unread[0].id]);
    expect((await notifications(rep.token, { is_read: 'false' })).length).toBe(unread.length - 1);
    expect((await notifications(rep.token, { type_id: '3' })).length).toBe(0);
    expect(
      (await call('POST', '/api/notification/read', { token: rep.token, body: { ids: [unread[0].id] } })).body.data,
    ).toEqual({ updated: 0 });
  });

  it('changes nothing for someone else’s notifications', async () => {
    const theirs = (await notifications(rep.token, { is_read: 'false' }))[0];
    expect(
      (await call('POST', '/api/notification/read', { token: admin.token, body: { ids: [theirs.id] } })).body.data,
    ).toEqual({ updated: 0 });
    expect((await notifications(rep.token, { is_read: 'false' })).map((notice) => notice.id)).toContain(theirs.id);
  });

  it('refuses an empty or malformed id list with 422', async () => {
    expectFailure(
      await call('POST', '/api/notification/read', { token: rep.token, body: { ids: [] } }),
      422,
      'validation_error',
    );
    expectFailure(
      await call('POST', '/api/notification/read', { token: rep.token, body: { ids: ['x'] } }),
      422,
      'validation_error',
    );
  });
});

describe('job notifications', () => {
  it('tells the user who started an import that it finished, with its counts, once even when the message is redelivered', async () => {
    const csv = 'First Name,Last Name,Email\r\nJob,Done,job-done@example.com\r\nX,Bad,not-an-email';
    const job = await importAndWait(admin, csv, { name: 'finished.csv' });
    expect(job.status).toBe('completed');
    await deliverJobs([{ kind: 'lead-import', orgId: admin.orgId, jobId: job.id }], 2);
    const notices = (await notifications(admin.token, { type_id: '2' })).filter(
      (notice) => notice.data.import_job_id === job.id,
    );
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({
      type_id: 2,
      is_read: false,
      title: 'Import of finished.csv finished: 1 created, 0 updated, 0 skipped, 1 failed',
      data: { status: 'completed' },
    });
    expect(await notifications(rep.token, { type_id: '2' })).toEqual([]);
  });

  it('tells the user who requested an export that it is ready to download, once', async () => {
    const job = await exportAndWait(admin, { export_type: 'leads' });
    expect(job.status).toBe('completed');
    await deliverJobs([{ kind: 'export', orgId: admin.orgId, jobId: job.id }], 2);
    const notices = (await notifications(admin.token, { type_id: '3' })).filter(
      (notice) => notice.data.export_id === job.id,
    );
    expect(notices).toHaveLength(1);
    expect(notices[0].title).toMatch(/^Your leads export is ready \(\d+ rows\)$/);
    expect(notices[0].data).toMatchObject({ status: 'completed', download_path: `/api/exports/download/${job.id}` });
  });
});
