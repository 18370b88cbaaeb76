/**
 * Target accounts (ABM): the account CRUD with its refusals, stakeholders, outreach plans and
 * the bulk email refused while no mail account exists. Health and the reports are in
 * abm-health.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, expectFailure, signupOrganization, type SignedUp } from './helpers/api';
import { createCompany, createContact } from './helpers/accounts';
import { statementsOf } from './helpers/statements';

describe('target accounts', () => {
  let owner: SignedUp;
  let other: SignedUp;
  let companyId: number;
  let otherCompanyId: number;
  let foreignCompanyId: number;
  let champion: number;
  let buyer: number;
  let outsider: number;
  let noEmail: number;

  const post = (path: string, body: unknown, as = owner) => call('POST', path, { token: as.token, body });
  const create = (body: Record<string, unknown>) => post('/api/target-accounts', body);

  beforeAll(async () => {
    [owner, other] = await Promise.all([signupOrganization('ABM'), signupOrganization('ABM other')]);
    [companyId, otherCompanyId, foreignCompanyId] = await Promise.all([
      createCompany(owner, { company_name: 'Initech Targeted' }),
      createCompany(owner, { company_name: 'Globex Elsewhere' }),
      createCompany(other),
    ]);
    champion = await createContact(owner, {
      name: 'Peter Champion',
      email: 'peter@initech.example',
      company_id: companyId,
    });
    buyer = await createContact(owner, { name: 'Bill Buyer', email: 'bill@initech.example', company_id: companyId });
    noEmail = await createContact(owner, { name: 'Milton Quiet', company_id: companyId });
    outsider = await createContact(owner, {
      name: 'Otto Outside',
      email: 'otto@globex.example',
      company_id: otherCompanyId,
    });
  });

  it('targets a company once, with documented defaults, and refuses a second time naming the account', async () => {
    const response = await create({ company_id: companyId, icp_fit_score: 80, estimated_decision_makers: 5 });
    expect(response.status, response.text).toBe(201);
    expect(response.body.data).toMatchObject({
      company_id: companyId,
      company_name: 'Initech Targeted',
      owner_id: null,
      tier: 3,
      status: 'active',
      icp_fit_score: 80,
      estimated_decision_makers: 5,
      created_by: owner.userId,
      health: { score: 0, band: 'cold', stage: 'targeted', engaged: false },
    });
    const again = await create({ company_id: companyId });
    expectFailure(again, 409, 'conflict');
    expect(again.body.error).toMatchObject({
      code: 'duplicate_target_account',
      details: { target_account_id: response.body.data.id, company_id: companyId },
    });
    const deleted = await call('DELETE', `/api/target-accounts/${response.body.data.id}`, { token: owner.token });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body.data).toEqual({ id: response.body.data.id });
    expectFailure(
      await call('GET', `/api/target-accounts/${response.body.data.id}`, { token: owner.token }),
      404,
      'not_found',
    );
    // The company stays.
    expect((await call('GET', `/api/company/view/${companyId}`, { token: owner.token })).status).toBe(200);
  });

  it('refuses a missing or foreign company (404), a foreign owner and out-of-range values (422 naming the field)', async () => {
    expectFailure(await create({ company_id: foreignCompanyId }), 404, 'not_found');
    expectFailure(await create({ company_id: 999_999_999 }), 404, 'not_found');
    for (const [body, field] of [
      [{ company_id: otherCompanyId, owner_id: other.userId }, 'owner_id'],
      [{ company_id: otherCompanyId, icp_fit_score: 101 }, 'icp_fit_score'],
      [{ company_id: otherCompanyId, icp_fit_score: -1 }, 'icp_fit_score'],
      [{ company_id: otherCompanyId, tier: 4 }, 'tier'],
      [{ company_id: otherCompanyId, tier: '1' }, 'tier'],
      [{ company_id: otherCompanyId, status: 'won' }, 'status'],
      [{ company_id: otherCompanyId, estimated_decision_makers: 1.5 }, 'estimated_decision_makers'],
      [{}, 'company_id'],
    ] as const) {
      const response = await create(body);
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code, JSON.stringify(body)).toBe(field);
    }
  });

  it('reads, changes and lists an account; stakeholders are idempotent and must be contacts of the company', async () => {
    const made = await create({ company_id: companyId, owner_id: owner.userId, tier: 1 });
    expect(made.status, made.text).toBe(201);
    const id = made.body.data.id as number;

    const added = await post(`/api/target-accounts/${id}/contacts`, {
      contact_id: champion,
      stakeholder_role: 'champion',
    });
    expect(added.status, added.text).toBe(201);
    expect(added.body.data).toMatchObject({
      target_account_id: id,
      contact_id: champion,
      contact_name: 'Peter Champion',
      contact_email: 'peter@initech.example',
      stakeholder_role: 'champion',
    });
    const same = await post(`/api/target-accounts/${id}/contacts`, { contact_id: champion });
    expect(same.status, same.text).toBe(200);
    expect(same.body.data).toMatchObject({ id: added.body.data.id, stakeholder_role: 'champion' });
    const recast = await post(`/api/target-accounts/${id}/contacts`, {
      contact_id: champion,
      stakeholder_role: 'decision_maker',
    });
    expect(recast.status).toBe(200);
    expect(recast.body.data).toMatchObject({ id: added.body.data.id, stakeholder_role: 'decision_maker' });

    const wrong = await post(`/api/target-accounts/${id}/contacts`, { contact_id: outsider });
    expectFailure(wrong, 422, 'validation_error');
    expect(wrong.body.error.code).toBe('contact_id');
    const badRole = await post(`/api/target-accounts/${id}/contacts`, { contact_id: buyer, stakeholder_role: 'boss' });
    expectFailure(badRole, 422, 'validation_error');
    expect(badRole.body.error.code).toBe('stakeholder_role');
    expectFailure(await post('/api/target-accounts/999999999/contacts', { contact_id: buyer }), 404, 'not_found');

    const viewed = await call('GET', `/api/target-accounts/${id}`, { token: owner.token });
    expect(viewed.status, viewed.text).toBe(200);
    expect(viewed.body.data).toMatchObject({ id, tier: 1, owner_id: owner.userId });
    expect(viewed.body.data.stakeholders).toHaveLength(1);
    expect(viewed.body.data.stakeholders[0]).toMatchObject({
      contact_id: champion,
      stakeholder_role: 'decision_maker',
    });

    const patched = await call('PATCH', `/api/target-accounts/${id}`, {
      token: owner.token,
      body: { tier: 2, status: 'paused', icp_fit_score: 40, owner_id: null },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.data).toMatchObject({ tier: 2, status: 'paused', icp_fit_score: 40, owner_id: null });
    expect(patched.body.data.stakeholders).toHaveLength(1);
    for (const [body, field] of [
      [{ owner_id: other.userId }, 'owner_id'],
      [{ status: 'lost' }, 'status'],
      [{}, 'status'],
    ] as const) {
      const refused = await call('PATCH', `/api/target-accounts/${id}`, { token: owner.token, body });
      expectFailure(refused, 422, 'validation_error');
      expect(refused.body.error.code, JSON.stringify(body)).toBe(field);
    }
    expectFailure(
      await call('PATCH', '/api/target-accounts/999999999', { token: owner.token, body: { tier: 1 } }),
      404,
      'not_found',
    );

    const byTier = await call('GET', '/api/target-accounts', { token: owner.token, query: { tier: 2 } });
    expect(byTier.body.data.map((row: { id: number }) => row.id)).toEqual([id]);
    const none = await call('GET', '/api/target-accounts', { token: owner.token, query: { tier: 1 } });
    expect(none.body.total).toBe(0);
    const searched = await call('GET', '/api/target-accounts', { token: owner.token, query: { search: 'initech' } });
    expect(searched.body.data.map((row: { id: number }) => row.id)).toEqual([id]);
    const byOwner = await call('GET', '/api/target-accounts', {
      token: owner.token,
      query: { owner_id: owner.userId },
    });
    expect(byOwner.body.total).toBe(0);
    const badSort = await call('GET', '/api/target-accounts', { token: owner.token, query: { sort: 'name' } });
    expectFailure(badSort, 400, 'bad_request');
    expect(badSort.body.error.code).toBe('sort');
    const badHealth = await call('GET', '/api/target-accounts', { token: owner.token, query: { health: 'tepid' } });
    expectFailure(badHealth, 400, 'bad_request');
    expect(badHealth.body.error.code).toBe('health');

    // Another organization sees none of it.
    const theirs = await call('GET', '/api/target-accounts', { token: other.token });
    expect(theirs.body.total).toBe(0);
    expectFailure(await call('GET', `/api/target-accounts/${id}`, { token: other.token }), 404, 'not_found');
  });

  it('plans outreach to contacts of the company and lists the plans', async () => {
    const made = await create({ company_id: otherCompanyId });
    expect(made.status, made.text).toBe(201);
    const id = made.body.data.id as number;
    const plan = await post(`/api/target-accounts/${id}/outreach-plans`, {
      contact_id: outsider,
      channel: 'linkedin',
      scheduled_at: '2026-03-09T09:00:00-04:00',
      notes: 'Congratulate on the funding',
    });
    expect(plan.status, plan.text).toBe(201);
    expect(plan.body.data).toMatchObject({
      target_account_id: id,
      contact_id: outsider,
      contact_name: 'Otto Outside',
      channel: 'linkedin',
      scheduled_at: '2026-03-09T13:00:00.000Z',
      assigned_to: owner.userId,
      notes: 'Congratulate on the funding',
      created_by: owner.userId,
    });
    for (const [body, field] of [
      [{ contact_id: champion, channel: 'email', scheduled_at: '2026-03-09T09:00:00Z' }, 'contact_id'],
      [{ contact_id: outsider, channel: 'fax', scheduled_at: '2026-03-09T09:00:00Z' }, 'channel'],
      [{ contact_id: outsider, channel: 'email', scheduled_at: '2026-03-09' }, 'scheduled_at'],
      [{ contact_id: outsider, channel: 'email', scheduled_at: 'tomorrow' }, 'scheduled_at'],
      [
        { contact_id: outsider, channel: 'email', scheduled_at: '2026-03-09T09:00:00Z', assigned_to: other.userId },
        'assigned_to',
      ],
      [{ channel: 'email', scheduled_at: '2026-03-09T09:00:00Z' }, 'contact_id'],
    ] as const) {
      const refused = await post(`/api/target-accounts/${id}/outreach-plans`, body);
      expectFailure(refused, 422, 'validation_error');
      expect(refused.body.error.code, JSON.stringify(body)).toBe(field);
    }
    const second = await post(`/api/target-accounts/${id}/outreach-plans`, {
      contact_id: outsider,
      channel: 'phone',
      scheduled_at: '2026-03-01T09:00:00Z',
      assigned_to: owner.userId,
    });
    expect(second.status).toBe(201);
    const listed = await call('GET', `/api/target-accounts/${id}/outreach-plans`, {
      token: owner.token,
      query: { order_by: 'scheduled_at', order_in: 'asc' },
    });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.total).toBe(2);
    expect(listed.body.data.map((row: { channel: string }) => row.channel)).toEqual(['phone', 'linkedin']);
    expectFailure(
      await call('GET', '/api/target-accounts/999999999/outreach-plans', { token: owner.token }),
      404,
      'not_found',
    );
  });

  it('validates a bulk email, then refuses it: no mail account is configured, nothing is sent', async () => {
    const list = await call('GET', '/api/target-accounts', { token: owner.token, query: { search: 'Initech' } });
    const id = list.body.data[0].id as number;
    const send = (body: unknown) => post(`/api/target-accounts/${id}/send-bulk-email`, body);
    for (const [body, field] of [
      [{ body: 'Hello' }, 'subject'],
      [{ subject: 'Hi' }, 'body'],
      [{ subject: 'Hi', body: 'Hello', mode: 'cc' }, 'mode'],
      [{ subject: 'Hi', body: 'Hello', contact_ids: [] }, 'contact_ids'],
      [{ subject: 'Hi', body: 'Hello', contact_ids: [buyer, outsider] }, 'contact_ids'],
      [{ subject: 'Hi', body: 'Hello', contact_ids: [noEmail] }, 'contact_ids'],
    ] as const) {
      const refused = await send(body);
      expectFailure(refused, 422, 'validation_error');
      expect(refused.body.error.code, JSON.stringify(body)).toBe(field);
    }
    const named = await send({ subject: 'Hi', body: 'Hello', contact_ids: [buyer, outsider] });
    expect(named.body.error.message).toContain(String(outsider));
    expect(named.body.error.message).not.toContain(String(buyer));

    for (const body of [
      { subject: 'Our roadmap', body: 'Hello' },
      { subject: 'Our roadmap', body: 'Hello', contact_ids: [buyer, champion], mode: 'bcc' },
    ]) {
      const refused = await send(body);
      expectFailure(refused, 422, 'validation_error');
      expect(refused.body.error.code).toBe('mail_not_configured');
      expect(refused.body.error.message).toMatch(/no mail account is configured/i);
    }
    expectFailure(
      await post('/api/target-accounts/999999999/send-bulk-email', { subject: 'Hi', body: 'Hello' }),
      404,
      'not_found',
    );
    // An account without stakeholders has no default recipients.
    const bare = await call('GET', '/api/target-accounts', { token: owner.token, query: { search: 'Globex' } });
    const refused = await post(`/api/target-accounts/${bare.body.data[0].id}/send-bulk-email`, {
      subject: 'Hi',
      body: 'Hello',
    });
    expectFailure(refused, 422, 'validation_error');
    expect(refused.body.error.code).toBe('contact_ids');
  });

  it('keeps each request within its round-trip budget', async () => {
    const listed = await statementsOf(() => call('GET', '/api/target-accounts', { token: owner.token }));
    expect(listed.response.status).toBe(200);
    // Scope and auth, then the page with its total and every row's health.
    expect(listed.statements.length).toBeLessThanOrEqual(2);
    const id = listed.response.body.data[0].id as number;
    const viewed = await statementsOf(() => call('GET', `/api/target-accounts/${id}`, { token: owner.token }));
    expect(viewed.response.status).toBe(200);
    expect(viewed.statements.length).toBeLessThanOrEqual(2);
    const company = await createCompany(owner);
    const added = await statementsOf(() => create({ company_id: company, owner_id: owner.userId }));
    expect(added.response.status).toBe(201);
    // Scope and auth, BEGIN, check company/owner/duplicate, insert, read with health, COMMIT.
    expect(added.statements.length).toBeLessThanOrEqual(6);
    const patched = await statementsOf(() =>
      call('PATCH', `/api/target-accounts/${added.response.body.data.id}`, { token: owner.token, body: { tier: 1 } }),
    );
    expect(patched.response.status).toBe(200);
    // Scope and auth, BEGIN, update, read, COMMIT.
    expect(patched.statements.length).toBeLessThanOrEqual(5);
    const plans = await statementsOf(() =>
      call('GET', `/api/target-accounts/${added.response.body.data.id}/outreach-plans`, { token: owner.token }),
    );
    expect(plans.response.status).toBe(200);
    // Scope and auth, the (empty) page, then whether the account exists.
    expect(plans.statements.length).toBeLessThanOrEqual(3);
  });
});
