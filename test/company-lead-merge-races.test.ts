/**
 * An import that merges into an existing lead (onDuplicate: merge) moving it into a company while
 * that company is deleted, at once (PostgreSQL only: PGlite runs one transaction at a time, so
 * these pass there whatever the locks). The merge locks the companies it moves leads into FOR
 * SHARE before the leads (companies before leads, as the delete and the single-lead update lock
 * them; test/company-lead-move-races.test.ts), by id and by name in one statement: whichever
 * comes first, the other sees it. Before, the merge read the companies unlocked: a lead merged
 * into a company being deleted ended up linked to the deleted company, and a delete missed the
 * open deals of a lead merged in meanwhile.
 */
import type { TenantContext } from '../src/db/tenant';
import { beforeAll, describe, expect, it } from 'vitest';
import { deleteCompanies } from '../src/modules/companies/service';
import { createLeadsBatch } from '../src/modules/leads/create-leads';
import { AddLeadBody } from '../src/modules/leads/schemas';
import { createCompany } from './helpers/accounts';
import { call, expectFailure, signupOrganization, uniqueEmail, type SignedUp } from './helpers/api';
import { addDeal, defaultPipeline } from './helpers/deals';
import { asTenant } from './helpers/leads';
import { holding as holdingFor, onPglite, pause } from './helpers/lock-races';

let owner: SignedUp;

beforeAll(async () => {
  owner = await signupOrganization('Company merge races');
});

/** `work` held uncommitted in a transaction of its own until `release()` (helpers/lock-races.ts). */
const holding = <T>(work: (ctx: TenantContext) => Promise<T>) => holdingFor(owner, work);

async function leadWithEmail(first: string): Promise<{ id: number; email: string }> {
  const email = uniqueEmail(first.toLowerCase());
  const response = await call('POST', '/api/lead/add', {
    token: owner.token,
    body: { first_name: first, last_name: 'Merged', email },
  });
  expect(response.status, response.text).toBe(201);
  return { id: response.body.data.id, email };
}

async function leadCompany(leadId: number): Promise<{ company_id: number | null; company: string | null }> {
  const lead = await call('GET', `/api/lead/view/${leadId}`, { token: owner.token });
  expect(lead.status, lead.text).toBe(200);
  return { company_id: lead.body.data.company_id, company: lead.body.data.company };
}

/** One import row merging into the lead holding `email`. */
function mergeRow(email: string, fields: Record<string, unknown>) {
  return asTenant(owner, (ctx) =>
    createLeadsBatch(
      ctx,
      [{ rowNumber: 2, input: AddLeadBody.parse({ first_name: 'Imported', last_name: 'Row', email, ...fields }) }],
      { onDuplicate: 'merge' },
    ),
  );
}

describe('an import merging a lead into a company while the company is deleted', () => {
  it('a merge after the delete waits for it and refuses the row (company_id); the lead keeps its company', async (context) => {
    if (await onPglite(owner.orgId)) context.skip();
    const from = await createCompany(owner);
    const doomed = await createCompany(owner);
    const lead = await leadWithEmail('Moving');
    expect(
      (await call('POST', `/api/lead/update/${lead.id}`, { token: owner.token, body: { company_id: from } })).status,
    ).toBe(200);
    const deletion = holding((ctx) => deleteCompanies(ctx, { ids: [doomed] }));
    await deletion.held;
    const merge = mergeRow(lead.email, { company_id: doomed });
    await pause(300);
    deletion.release();
    expect(await deletion.done).toBe(1);
    const result = await merge;
    expect(result).toMatchObject({ updated: 0, merged: [] });
    expect(result.errors).toEqual([
      { rowNumber: 2, field: 'company_id', message: 'is not a company of this organization' },
    ]);
    expect((await leadCompany(lead.id)).company_id).toBe(from);
  });

  it('a delete after the merge waits for it and sees the lead: its open deal keeps the company (409)', async (context) => {
    if (await onPglite(owner.orgId)) context.skip();
    const pipeline = await defaultPipeline(owner);
    const target = await createCompany(owner);
    const lead = await leadWithEmail('Dealing');
    await addDeal(owner, pipeline, { lead_id: lead.id, value: 1200 });
    const merge = holding((ctx) =>
      createLeadsBatch(
        ctx,
        [
          {
            rowNumber: 2,
            input: AddLeadBody.parse({
              first_name: 'Imported',
              last_name: 'Row',
              email: lead.email,
              company_id: target,
            }),
          },
        ],
        { onDuplicate: 'merge' },
      ),
    );
    await merge.held;
    const deletion = call('DELETE', `/api/company/delete/${target}`, { token: owner.token });
    await pause(300);
    merge.release();
    expect(await merge.done).toMatchObject({ updated: 1, errors: [] });
    const refused = await deletion;
    expectFailure(refused, 409, 'conflict');
    expect(refused.body.error).toMatchObject({ code: 'company_has_open_deals', details: { company_ids: [target] } });
    expect((await leadCompany(lead.id)).company_id).toBe(target);
  });

  it('a delete after a merge by company name waits for it and sees the lead: its open deal keeps the company (409)', async (context) => {
    if (await onPglite(owner.orgId)) context.skip();
    const pipeline = await defaultPipeline(owner);
    const name = `Merged into ${crypto.randomUUID().slice(0, 6)}`;
    const target = await createCompany(owner, { company_name: name });
    const lead = await leadWithEmail('Naming');
    await addDeal(owner, pipeline, { lead_id: lead.id, value: 900 });
    const merge = holding((ctx) =>
      createLeadsBatch(
        ctx,
        [
          {
            rowNumber: 2,
            input: AddLeadBody.parse({
              first_name: 'Imported',
              last_name: 'Row',
              email: lead.email,
              company: name.toUpperCase(),
            }),
          },
        ],
        { onDuplicate: 'merge' },
      ),
    );
    await merge.held;
    const deletion = call('DELETE', `/api/company/delete/${target}`, { token: owner.token });
    await pause(300);
    merge.release();
    expect(await merge.done).toMatchObject({ updated: 1, errors: [] });
    const refused = await deletion;
    expectFailure(refused, 409, 'conflict');
    expect(refused.body.error).toMatchObject({ code: 'company_has_open_deals', details: { company_ids: [target] } });
    expect(await leadCompany(lead.id)).toEqual({ company_id: target, company: name });
  });

  it('a merge by name after the delete waits for it and links a live company of that name, never the deleted one', async (context) => {
    if (await onPglite(owner.orgId)) context.skip();
    const name = `Doomed ${crypto.randomUUID().slice(0, 6)}`;
    const doomed = await createCompany(owner, { company_name: name });
    const lead = await leadWithEmail('Relinked');
    const deletion = holding((ctx) => deleteCompanies(ctx, { ids: [doomed] }));
    await deletion.held;
    const merge = mergeRow(lead.email, { company: name });
    await pause(300);
    deletion.release();
    expect(await deletion.done).toBe(1);
    expect(await merge).toMatchObject({ updated: 1, errors: [] });
    const linked = await leadCompany(lead.id);
    expect(linked.company).toBe(name);
    expect(linked.company_id).not.toBe(doomed);
    const company = await call('GET', `/api/company/view/${linked.company_id}`, { token: owner.token });
    expect(company.status, company.text).toBe(200);
  });
});
