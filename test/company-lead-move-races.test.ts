/**
 * A lead moved into a company while that company is deleted, at once (PostgreSQL only: PGlite runs
 * one transaction at a time, so these pass there whatever the locks). The move locks its company
 * FOR SHARE before its lead (companies before leads, as the delete locks them), and the delete
 * reads the companies' leads after it holds the companies: whichever comes first, the other sees
 * it. Before, neither waited for the other: a lead moved into a company being deleted ended up
 * linked to the deleted company, and a delete missed the open deals of a lead moved in meanwhile.
 */
import type { TenantContext } from '../src/db/tenant';
import { beforeAll, describe, expect, it } from 'vitest';
import { deleteCompanies } from '../src/modules/companies/service';
import { updateLead } from '../src/modules/leads/update';
import { createLead as createLeadOf } from '../src/modules/leads/create-leads';
import type { AddLeadInput } from '../src/modules/leads/schemas';
import { createCompany } from './helpers/accounts';
import { call, expectFailure, signupOrganization, type SignedUp, uniqueEmail } from './helpers/api';
import { addDeal, defaultPipeline } from './helpers/deals';
import { createLead } from './helpers/leads';
import { holding as holdingFor, onPglite, pause, transactionOf, waitsOn } from './helpers/lock-races';

let owner: SignedUp;

beforeAll(async () => {
  owner = await signupOrganization('Company move races');
});

/** `work` held uncommitted in a transaction of its own until `release()` (helpers/lock-races.ts). */
const holding = <T>(work: (ctx: TenantContext) => Promise<T>) => holdingFor(owner, work);

async function leadCompany(leadId: number): Promise<number | null> {
  const lead = await call('GET', `/api/lead/view/${leadId}`, { token: owner.token });
  expect(lead.status, lead.text).toBe(200);
  return lead.body.data.company_id;
}

describe('a lead moved into a company while the company is deleted', () => {
  it('a move after the delete waits for it and is refused (422 company_id); the lead keeps its company', async (context) => {
    if (await onPglite(owner.orgId)) context.skip();
    const from = await createCompany(owner);
    const doomed = await createCompany(owner);
    const lead = await createLead(owner, 'Moving', 'Lead');
    expect(
      (await call('POST', `/api/lead/update/${lead}`, { token: owner.token, body: { company_id: from } })).status,
    ).toBe(200);
    const deletion = holding((ctx) => deleteCompanies(ctx, { ids: [doomed] }));
    await deletion.held;
    const move = call('POST', `/api/lead/update/${lead}`, { token: owner.token, body: { company_id: doomed } });
    await pause(300);
    deletion.release();
    expect(await deletion.done).toBe(1);
    const moved = await move;
    expectFailure(moved, 422, 'validation_error');
    expect(moved.body.error.code).toBe('company_id');
    expect(await leadCompany(lead)).toBe(from);
  });

  it('a delete after the move waits for it and sees the lead: its open deal keeps the company (409)', async (context) => {
    if (await onPglite(owner.orgId)) context.skip();
    const pipeline = await defaultPipeline(owner);
    const target = await createCompany(owner);
    const lead = await createLead(owner, 'Dealing', 'Lead');
    await addDeal(owner, pipeline, { lead_id: lead, value: 1200 });
    const move = holding((ctx) => updateLead(ctx, lead, { company_id: target }));
    await move.held;
    const deletion = call('DELETE', `/api/company/delete/${target}`, { token: owner.token });
    await pause(300);
    move.release();
    await move.done;
    const refused = await deletion;
    expectFailure(refused, 409, 'conflict');
    expect(refused.body.error).toMatchObject({ code: 'company_has_open_deals', details: { company_ids: [target] } });
    expect((await call('GET', `/api/company/view/${target}`, { token: owner.token })).status).toBe(200);
    expect(await leadCompany(lead)).toBe(target);
  });

  it('a delete after a move by company name waits for it and sees the lead: its open deal keeps the company (409)', async (context) => {
    if (await onPglite(owner.orgId)) context.skip();
    const pipeline = await defaultPipeline(owner);
    const name = `Named ${crypto.randomUUID().slice(0, 6)}`;
    const target = await createCompany(owner, { company_name: name });
    const lead = await createLead(owner, 'Naming', 'Lead');
    await addDeal(owner, pipeline, { lead_id: lead, value: 900 });
    const move = holding((ctx) => updateLead(ctx, lead, { company: name.toUpperCase() }));
    await move.held;
    const deletion = call('DELETE', `/api/company/delete/${target}`, { token: owner.token });
    await pause(300);
    move.release();
    await move.done;
    const refused = await deletion;
    expectFailure(refused, 409, 'conflict');
    expect(refused.body.error).toMatchObject({ code: 'company_has_open_deals', details: { company_ids: [target] } });
    expect(await leadCompany(lead)).toBe(target);
  });

  it('a rename after a move waits for it: the moved lead shows the new name', async (context) => {
    if (await onPglite(owner.orgId)) context.skip();
    const target = await createCompany(owner);
    const lead = await createLead(owner, 'Renamed', 'Lead');
    const move = holding((ctx) => updateLead(ctx, lead, { company_id: target }));
    await move.held;
    const newName = `Renamed ${crypto.randomUUID().slice(0, 6)}`;
    const rename = call('POST', `/api/company/update/${target}`, {
      token: owner.token,
      body: { company_name: newName },
    });
    await pause(300);
    move.release();
    await move.done;
    expect((await rename).status).toBe(200);
    const moved = await call('GET', `/api/lead/view/${lead}`, { token: owner.token });
    expect(moved.body.data).toMatchObject({ company_id: target, company: newName });
  });
});

/**
 * A lead created with `company_id` while that company is deleted or renamed. The create runs
 * without a transaction (one read, one insert), so its insert locks the company FOR SHARE before
 * it inserts the lead, in the insert's own statement (companies before leads). Before 2026-12-02
 * the create read the company unlocked: a lead created while the company was being deleted was
 * linked to the deleted company, and a delete or rename did not wait for it.
 */
describe('a lead created with company_id while the company is deleted or renamed', () => {
  const newLead = (company_id: number) =>
    ({ first_name: 'Racing', last_name: 'Lead', email: uniqueEmail('racing'), company_id }) as AddLeadInput;
  /** `work` held as `holding` holds it, once done; with its transaction's id (what `waitsOn` looks for). */
  async function heldTransaction<T>(work: (ctx: TenantContext) => Promise<T>) {
    let xid = '';
    const held = holding(async (ctx) => {
      const result = await work(ctx);
      xid = await transactionOf(ctx);
      return result;
    });
    await held.held;
    return { ...held, xid };
  }

  it('a create after the delete waits for it and is refused (422 company_id): no lead is made', async (context) => {
    if (await onPglite(owner.orgId)) context.skip();
    const doomed = await createCompany(owner);
    const deletion = await heldTransaction((ctx) => deleteCompanies(ctx, { ids: [doomed] }));
    const body = newLead(doomed);
    const create = call('POST', '/api/lead/add', { token: owner.token, body });
    const waited = await waitsOn(owner.orgId, deletion.xid, create);
    deletion.release();
    expect(await deletion.done).toBe(1);
    const created = await create;
    expect(created.status, created.text).toBe(422);
    expect(created.body.error.code).toBe('company_id');
    expect(waited, 'the create waits for the delete holding its company').toBe(true);
    const found = await call('GET', '/api/lead/list', {
      token: owner.token,
      query: { search_value: body.email as string },
    });
    expect(found.body.total).toBe(0);
  });

  it('a delete after the create waits for it', async (context) => {
    if (await onPglite(owner.orgId)) context.skip();
    const target = await createCompany(owner);
    const create = await heldTransaction((ctx) => createLeadOf(ctx, newLead(target)));
    const deletion = call('DELETE', `/api/company/delete/${target}`, { token: owner.token });
    const waited = await waitsOn(owner.orgId, create.xid, deletion);
    create.release();
    const { lead } = await create.done;
    expect((await deletion).status).toBe(200);
    expect(waited, 'the delete waits for the create holding its company').toBe(true);
    expect(lead.company_id).toBe(target);
  });

  it('a rename after the create waits for it: the created lead shows the new name', async (context) => {
    if (await onPglite(owner.orgId)) context.skip();
    const target = await createCompany(owner);
    const create = await heldTransaction((ctx) => createLeadOf(ctx, newLead(target)));
    const newName = `Renamed ${crypto.randomUUID().slice(0, 6)}`;
    const rename = call('POST', `/api/company/update/${target}`, {
      token: owner.token,
      body: { company_name: newName },
    });
    const waited = await waitsOn(owner.orgId, create.xid, rename);
    create.release();
    const { lead } = await create.done;
    expect((await rename).status).toBe(200);
    expect(waited, 'the rename waits for the create holding its company').toBe(true);
    const created = await call('GET', `/api/lead/view/${lead.id}`, { token: owner.token });
    expect(created.body.data).toMatchObject({ company_id: target, company: newName });
  });
});
