/**
 * Follow-up reminders (notification type 4): the minute cron tells the lead's assignee (else the
 * follow-up's creator) once when a pending follow-up falls due, never twice however often the
 * sweep runs or overlaps; a follow-up not yet due, done, or on a deleted lead reminds nobody; a
 * moved date reminds again.
 *
 * Test files share one database and other files' cron runs may sweep these rows too, so the tests
 * assert the notices written for their own follow-ups, never a sweep's count.
 */
import { env } from 'cloudflare:workers';
import { and, eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { withOwnDatabase } from '../src/db/client';
import { leads, notifications } from '../src/db/schema';
import { readConfig } from '../src/env';
import { sweepFollowUpReminders } from '../src/modules/lead-follow-ups';
import { call, signupOrganization, uniqueEmail, type SignedUp } from './helpers/api';
import { runMinuteCron } from './helpers/cron';
import { createLead, inOrganization, softDeleteLead } from './helpers/leads';

const sweep = () => withOwnDatabase(readConfig(env), (db) => sweepFollowUpReminders(db));

const minutesFromNow = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

async function addFollowUp(owner: SignedUp, leadId: number, date: string, status = 1): Promise<number> {
  const response = await call('POST', '/api/lead/follow-up/add', {
    token: owner.token,
    body: { lead_id: leadId, follow_up_date: date, notes: 'Call back', status },
  });
  if (response.status !== 201) throw new Error(`follow-up add: ${response.status} ${response.text}`);
  return response.body.data.id;
}

/** The reminders written for one follow-up: who got them. */
async function remindersOf(owner: SignedUp, followUpId: number) {
  return inOrganization(owner.orgId, (tx) =>
    tx
      .select({ userId: notifications.userId, title: notifications.title, data: notifications.data })
      .from(notifications)
      .where(and(eq(notifications.typeId, 4), sql`${notifications.data}->>'follow_up_id' = ${String(followUpId)}`)),
  );
}

describe('follow-up reminders (minute cron)', () => {
  let owner: SignedUp;
  let repId: number;

  beforeAll(async () => {
    owner = await signupOrganization('Reminders');
    const roles = await call('GET', '/api/role/list', { token: owner.token });
    const salesRep = roles.body.data.find((role: { name: string }) => role.name === 'sales_rep').id;
    const rep = await call('POST', '/api/user/add', {
      token: owner.token,
      body: {
        first_name: 'Rep',
        email: uniqueEmail('rep'),
        phone_no: '+15550100',
        password: 'password123',
        role_id: salesRep,
      },
    });
    if (rep.status !== 201) throw new Error(`user add: ${rep.status} ${rep.text}`);
    repId = rep.body.data.id;
  });

  it('reminds the follow-up’s creator once when it falls due, through the minute cron', async () => {
    const lead = await createLead(owner, 'Ada', 'Lovelace');
    const dueDate = minutesFromNow(-5);
    const due = await addFollowUp(owner, lead, dueDate);
    const later = await addFollowUp(owner, lead, minutesFromNow(60));
    await runMinuteCron();
    const reminders = await remindersOf(owner, due);
    // The date as every timestamp of the API is written (isoTimestampSql): the follow-up's own, to the millisecond.
    expect(dueDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(reminders).toEqual([
      {
        userId: owner.userId,
        title: 'Follow-up due: Ada Lovelace',
        data: { follow_up_id: due, lead_id: lead, follow_up_date: dueDate },
      },
    ]);
    expect(await remindersOf(owner, later)).toEqual([]);
    // Redelivered and overlapping runs write nothing more.
    await sweep();
    await Promise.all([sweep(), sweep(), runMinuteCron()]);
    expect(await remindersOf(owner, due)).toHaveLength(1);
    // The user sees it in their notifications.
    const listed = await call('GET', '/api/notification/list', { token: owner.token });
    expect(
      listed.body.data.some(
        (row: { type_id: number; data: { follow_up_id?: number } }) =>
          row.type_id === 4 && row.data.follow_up_id === due,
      ),
    ).toBe(true);
  });

  it('writes one reminder per follow-up when sweeps overlap (run on PostgreSQL: TEST_DATABASE_URL)', async () => {
    const lead = await createLead(owner);
    const ids = await Promise.all(Array.from({ length: 20 }, () => addFollowUp(owner, lead, minutesFromNow(-2))));
    await Promise.all([sweep(), sweep(), sweep(), sweep(), runMinuteCron()]);
    for (const id of ids) expect(await remindersOf(owner, id)).toHaveLength(1);
  });

  it('reminds the lead’s assignee rather than the creator', async () => {
    const lead = await createLead(owner);
    await inOrganization(owner.orgId, (tx) => tx.update(leads).set({ assignedTo: repId }).where(eq(leads.id, lead)));
    const due = await addFollowUp(owner, lead, minutesFromNow(-1));
    await sweep();
    expect((await remindersOf(owner, due)).map((row) => row.userId)).toEqual([repId]);
  });

  it('reminds nobody of a completed or cancelled follow-up, one on a deleted lead, or one due long ago', async () => {
    const lead = await createLead(owner);
    const completed = await addFollowUp(owner, lead, minutesFromNow(-5), 2);
    const cancelled = await addFollowUp(owner, lead, minutesFromNow(-5), 4);
    const longAgo = await addFollowUp(owner, lead, minutesFromNow(-3 * 24 * 60));
    const deletedLead = await createLead(owner);
    const onDeleted = await addFollowUp(owner, deletedLead, minutesFromNow(-5));
    await softDeleteLead(owner, deletedLead);
    await sweep();
    for (const id of [completed, cancelled, longAgo, onDeleted]) expect(await remindersOf(owner, id)).toEqual([]);
  });

  it('reminds again when the follow-up is moved to a new date', async () => {
    const lead = await createLead(owner);
    const due = await addFollowUp(owner, lead, minutesFromNow(-5));
    await sweep();
    expect(await remindersOf(owner, due)).toHaveLength(1);
    // Same date sent again: not a new reminder.
    const current = await call('GET', '/api/lead/follow-up/list', { token: owner.token, query: { lead_id: lead } });
    const date = current.body.data.find((row: { id: number }) => row.id === due).follow_up_date;
    await call('POST', `/api/lead/follow-up/update/${due}`, { token: owner.token, body: { follow_up_date: date } });
    await sweep();
    expect(await remindersOf(owner, due)).toHaveLength(1);
    const moved = await call('POST', `/api/lead/follow-up/update/${due}`, {
      token: owner.token,
      body: { follow_up_date: minutesFromNow(-1), status: 3 },
    });
    expect(moved.status, moved.text).toBe(200);
    await sweep();
    expect(await remindersOf(owner, due)).toHaveLength(2);
  });
});
