/**
 * A call is its lead's or contact's record, as the call's recording already was: the call of a
 * deleted lead or contact is a 404 on GET /api/call/:id and its transcript, and leaves
 * GET /api/call/list (its rows and its total), until the record is restored. A call that also has
 * a live lead or contact on it stays, and so does a call to a number alone.
 */
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { calls, contacts } from '../src/db/schema';
import { call, expectFailure, signupOrganization, type SignedUp, uniqueEmail } from './helpers/api';
import { createCompany, createContact } from './helpers/accounts';
import { inOrganization, restoreLead, softDeleteLead } from './helpers/leads';
import { leadWithPhone } from './helpers/voice';

let org: SignedUp;

beforeAll(async () => {
  org = await signupOrganization('Deleted call records');
});

/** A completed call with a transcript, on the lead and/or contact given (or on a number alone). */
async function insertCall(owner: SignedUp, on: { leadId?: number; contactId?: number }): Promise<number> {
  const [row] = await inOrganization(owner.orgId, (tx) =>
    tx
      .insert(calls)
      .values({
        organizationId: owner.orgId,
        userId: owner.userId,
        leadId: on.leadId ?? null,
        contactId: on.contactId ?? null,
        direction: 'outbound',
        kind: 'agent',
        fromNumber: '+14155550100',
        toNumber: '+14155550142',
        provider: 'local',
        status: 'completed',
        durationSec: 30,
        transcript: [{ speaker: 'agent', text: 'Hi, Acme here.', at_sec: 0 }],
      })
      .returning({ id: calls.id }),
  );
  return row.id;
}

async function listed(owner: SignedUp, query: Record<string, string | number> = {}) {
  const response = await call('GET', '/api/call/list', { token: owner.token, query: { limit: 100, ...query } });
  expect(response.status, response.text).toBe(200);
  return {
    ids: (response.body.data as { id: number }[]).map((row) => row.id),
    total: response.body.total as number,
    estimate: response.body.total_is_estimate as boolean,
  };
}

async function shown(owner: SignedUp, id: number): Promise<boolean> {
  const one = await call('GET', `/api/call/${id}`, { token: owner.token });
  const transcript = await call('GET', `/api/call/${id}/transcript`, { token: owner.token });
  if (one.status === 404) {
    expectFailure(one, 404, 'not_found');
    expectFailure(transcript, 404, 'not_found');
    return false;
  }
  expect(one.status, one.text).toBe(200);
  expect(one.body.data.id).toBe(id);
  expect(transcript.status, transcript.text).toBe(200);
  expect(transcript.body.data.turns[0].text).toBe('Hi, Acme here.');
  return true;
}

describe('calls of a deleted lead or contact', () => {
  it('a deleted lead’s calls are 404 (the call, its transcript) and leave the list and its total, until the lead is restored', async () => {
    const lead = await leadWithPhone(org, '+14155550142', 'Gone');
    const contact = await createContact(org, { company_id: await createCompany(org), email: uniqueEmail('kept') });
    const onLead = await insertCall(org, { leadId: lead });
    const onLeadAndContact = await insertCall(org, { leadId: lead, contactId: contact });
    const onNumber = await insertCall(org, {});
    const all = [onLead, onLeadAndContact, onNumber];

    const before = await listed(org);
    expect(before.ids).toEqual(expect.arrayContaining(all));
    expect(before.total).toBe(before.ids.length);
    expect((await listed(org, { lead_id: lead })).ids.sort()).toEqual([onLead, onLeadAndContact].sort());
    for (const id of all) expect(await shown(org, id)).toBe(true);

    await softDeleteLead(org, lead);
    const after = await listed(org);
    expect(after.ids).not.toContain(onLead);
    // A live contact is still on this one, and the other is on no record at all.
    expect(after.ids).toEqual(expect.arrayContaining([onLeadAndContact, onNumber]));
    expect(after).toMatchObject({ total: before.total - 1, estimate: false });
    expect(after.total).toBe(after.ids.length);
    expect(await listed(org, { lead_id: lead })).toMatchObject({ ids: [onLeadAndContact], total: 1 });
    // Paged, the total still agrees with the rows.
    const paged = await call('GET', '/api/call/list', { token: org.token, query: { limit: 1 } });
    expect(paged.body.total).toBe(after.total);
    expect(await shown(org, onLead)).toBe(false);
    expect(await shown(org, onLeadAndContact)).toBe(true);
    expect(await shown(org, onNumber)).toBe(true);

    await restoreLead(org, lead);
    const restored = await listed(org);
    expect(restored.ids).toEqual(before.ids);
    expect(restored.total).toBe(before.total);
    for (const id of all) expect(await shown(org, id)).toBe(true);
  });

  it('a deleted contact’s calls are 404 and leave the list too, until the contact is restored', async () => {
    const owner = await signupOrganization('Deleted contact calls');
    const contact = await createContact(owner, { company_id: await createCompany(owner), email: uniqueEmail('gone') });
    const lead = await leadWithPhone(owner, '+14155550143', 'Kept');
    const onContact = await insertCall(owner, { contactId: contact });
    const onContactAndLead = await insertCall(owner, { contactId: contact, leadId: lead });
    expect(await listed(owner)).toMatchObject({ total: 2 });

    const deleted = await call('DELETE', `/api/contact/delete/${contact}`, { token: owner.token });
    expect(deleted.status, deleted.text).toBe(200);
    expect(await listed(owner)).toMatchObject({ ids: [onContactAndLead], total: 1 });
    expect(await listed(owner, { contact_id: contact })).toMatchObject({ ids: [onContactAndLead], total: 1 });
    expect(await shown(owner, onContact)).toBe(false);
    expect(await shown(owner, onContactAndLead)).toBe(true);

    await inOrganization(owner.orgId, (tx) =>
      tx.update(contacts).set({ deletedAt: null }).where(eq(contacts.id, contact)),
    );
    expect((await listed(owner)).ids.sort()).toEqual([onContact, onContactAndLead].sort());
    expect(await shown(owner, onContact)).toBe(true);
    // Another organization never sees them, restored or not.
    const stranger = await signupOrganization('Stranger calls');
    expectFailure(await call('GET', `/api/call/${onContact}`, { token: stranger.token }), 404, 'not_found');
    expect((await listed(stranger)).total).toBe(0);
  });
});
