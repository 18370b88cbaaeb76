/**
 * POST /api/company/enrich: a job through the outbox and the jobs queue consumer that fills a
 * company's EMPTY firmographic fields from the organization's own leads and contacts at its
 * domain, records each value's source, never overwrites a value a person set, says which fields
 * it could not derive (they stay empty), and changes nothing when its message is redelivered.
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import worker from '../src/index';
import type { JobMessage } from '../src/jobs/messages';
import { DEAD_LETTER_QUEUE } from '../src/jobs/runner';
import { ENRICHMENT_DEAD_LETTER_REASON } from '../src/modules/companies/enrichment-job';
import { call, expectFailure, randomIp, signupOrganization, type SignedUp } from './helpers/api';
import { createCompany, createContact } from './helpers/accounts';
import { deliverJobs } from './cross-tenant/fixtures/jobs';

let owner: SignedUp;

beforeAll(async () => {
  owner = await signupOrganization('Enrichment');
});

async function addLead(body: Record<string, unknown>) {
  const response = await call('POST', '/api/lead/add', {
    token: owner.token,
    body: { first_name: 'Lead', last_name: 'Person', ...body },
  });
  if (response.status !== 201) throw new Error(`lead: ${response.status} ${response.text}`);
  return response.body.data.id as number;
}

/** POST /api/company/enrich through the Worker with a jobs queue that records what leaves it. */
async function enrichRecordingSends(companyId: number) {
  const sent: JobMessage[] = [];
  const queue = {
    send: async (body: JobMessage) => {
      sent.push(body);
    },
    sendBatch: async () => undefined,
  } as unknown as Queue<JobMessage>;
  const ctx = createExecutionContext();
  const response = await worker.fetch(
    new Request('http://lead.test/api/company/enrich', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${owner.token}`,
        'content-type': 'application/json',
        'cf-connecting-ip': randomIp(),
      },
      body: JSON.stringify({ company_id: companyId }),
    }),
    { ...env, JOBS: queue },
    ctx,
  );
  const body = (await response.json()) as { data: { id: number; status: string } };
  await waitOnExecutionContext(ctx);
  return { status: response.status, job: body.data, sent };
}

/** Enrich through the real route, then hand the message to the Worker's queue consumer. */
async function enrich(companyId: number) {
  const started = await call('POST', '/api/company/enrich', { token: owner.token, body: { company_id: companyId } });
  expect(started.status, started.text).toBe(202);
  const message: JobMessage = { kind: 'company-enrichment', orgId: owner.orgId, jobId: started.body.data.id };
  const result = await deliverJobs([message]);
  expect(result.explicitAcks).toHaveLength(1);
  return { job: await readJob(started.body.data.id), message };
}

async function readJob(id: number) {
  const response = await call('GET', `/api/company/enrich/${id}`, { token: owner.token });
  expect(response.status, response.text).toBe(200);
  return response.body.data;
}

const viewCompany = async (id: number) =>
  (await call('GET', `/api/company/view/${id}`, { token: owner.token })).body.data;

describe('company enrichment', () => {
  it('answers 202 with a queued job whose message leaves through the outbox after the commit', async () => {
    const id = await createCompany(owner);
    const { status, job, sent } = await enrichRecordingSends(id);
    expect(status).toBe(202);
    expect(job).toMatchObject({
      company_id: id,
      status: 'queued',
      total: 0,
      processed: 0,
      percentage: 0,
      result: null,
    });
    expect(sent).toEqual([{ kind: 'company-enrichment', orgId: owner.orgId, jobId: job.id }]);
    const result = await deliverJobs(sent);
    expect(result.explicitAcks).toHaveLength(1);
    expect(await readJob(job.id)).toMatchObject({ status: 'completed', total: 5, processed: 5, percentage: 100 });
  });

  it('fills the empty fields from the leads and contacts at the website’s domain, recording each source', async () => {
    const domain = `acme-${crypto.randomUUID().slice(0, 6)}.example`;
    const id = await createCompany(owner, { website: `https://www.${domain}/about` });
    await addLead({
      email: `a@${domain}`,
      industry: 'Fintech',
      country: 'Germany',
      city: 'Berlin',
      custom_fields: { employees: '120' },
    });
    await addLead({
      email: `b@${domain}`,
      industry: 'Fintech',
      country: 'Germany',
      custom_fields: { company_size: '51-200' },
    });
    await addLead({
      email: `c@${domain}`,
      industry: 'Retail',
      country: 'France',
      city: 'Paris',
      custom_fields: { employees: 9000 },
    });
    await addLead({ email: `d-${domain}@gmail.com`, company_id: id, industry: 'Fintech' });
    await addLead({ email: `e@other-${domain}`, industry: 'Mining', country: 'Chile' });
    await createContact(owner, { company_id: id });
    const { job } = await enrich(id);
    expect(job.result).toEqual({
      domain: { value: domain, source: 'website' },
      filled: {
        industry_type: { value: 'Fintech', source: 'leads_at_domain' },
        country: { value: 'Germany', source: 'leads_at_domain' },
        // Berlin and Paris tie once each; the alphabetically first wins.
        city: { value: 'Berlin', source: 'leads_at_domain' },
        employee_size: { value: '51-200', source: 'lead_headcount_hints' },
      },
      kept: { website: `https://www.${domain}/about` },
      unresolved: {},
      evidence: { leads: 4, contacts: 1 },
    });
    const company = await viewCompany(id);
    expect(company).toMatchObject({
      industry_type: 'Fintech',
      country: 'Germany',
      city: 'Berlin',
      employee_size: '51-200',
      enrichment: {
        industry_type: { source: 'leads_at_domain', value: 'Fintech', at: expect.any(String) },
        employee_size: { source: 'lead_headcount_hints', value: '51-200', at: expect.any(String) },
      },
    });
    expect(company.enrichment.website).toBeUndefined();
  });

  it('never overwrites a value a person set, and a value a person sets stops counting as enriched', async () => {
    const domain = `kept-${crypto.randomUUID().slice(0, 6)}.example`;
    const id = await createCompany(owner, { website: domain, industry_type: 'Set By Person' });
    await addLead({ email: `a@${domain}`, industry: 'Derived Industry', country: 'Spain' });
    const { job } = await enrich(id);
    expect(job.result.kept).toEqual({ website: domain, industry_type: 'Set By Person' });
    expect(job.result.filled).toEqual({ country: { value: 'Spain', source: 'leads_at_domain' } });
    expect(await viewCompany(id)).toMatchObject({ industry_type: 'Set By Person', country: 'Spain' });
    const updated = await call('POST', `/api/company/update/${id}`, {
      token: owner.token,
      body: { country: 'Portugal' },
    });
    expect(updated.body.data).toMatchObject({ country: 'Portugal', enrichment: {} });
  });

  it('reads headcount hints as bands, numbers or ranges, a tie going to the larger band', async () => {
    const domain = `bands-${crypto.randomUUID().slice(0, 6)}.example`;
    const id = await createCompany(owner, { website: domain });
    await addLead({ email: `a@${domain}`, custom_fields: { headcount: '30' } });
    await addLead({ email: `b@${domain}`, custom_fields: { employee_count: '1,000 - 2,000' } });
    await addLead({ email: `c@${domain}`, custom_fields: { employees: 'a lot' } });
    const { job } = await enrich(id);
    expect(job.result.filled.employee_size).toEqual({ value: '1001-5000', source: 'lead_headcount_hints' });
  });

  it('derives the domain from the contact email when there is no website, and fills the website with it', async () => {
    const domain = `beta-${crypto.randomUUID().slice(0, 6)}.example`;
    const id = await createCompany(owner, { contact_email: `info@${domain}` });
    await addLead({ email: `x@${domain}`, country: 'Norway' });
    const { job } = await enrich(id);
    expect(job.result.domain).toEqual({ value: domain, source: 'contact_email' });
    expect(job.result.filled.website).toEqual({ value: domain, source: 'contact_email' });
    expect(await viewCompany(id)).toMatchObject({ website: domain, website_domain: domain, country: 'Norway' });
  });

  it('leaves every field it cannot derive empty and says why (no fake success)', async () => {
    const id = await createCompany(owner);
    const { job } = await enrich(id);
    expect(job.status).toBe('completed');
    expect(job.result).toMatchObject({ domain: null, filled: {}, kept: {}, evidence: { leads: 0, contacts: 0 } });
    expect(Object.keys(job.result.unresolved).sort()).toEqual(
      ['city', 'country', 'employee_size', 'industry_type', 'website'].sort(),
    );
    expect(job.result.unresolved.website).toMatch(/no website/);
    expect(await viewCompany(id)).toMatchObject({
      website: null,
      industry_type: null,
      country: null,
      city: null,
      employee_size: null,
      enrichment: {},
    });
  });

  it('writes the fills as the company’s feed entry `enriched` (from/to, the job’s creator as actor), once, and none when nothing was filled', async () => {
    const feedOf = async (id: number) =>
      (
        await call('GET', '/api/feed/list', {
          token: owner.token,
          query: { model_type: 'company', model_id: id, limit: 20 },
        })
      ).body.data as { action: string; changes: Record<string, unknown>; actor_user_id: number | null }[];
    const domain = `feed-${crypto.randomUUID().slice(0, 6)}.example`;
    const id = await createCompany(owner, { website: domain });
    await addLead({ email: `a@${domain}`, industry: 'Aerospace', country: 'Italy', city: 'Turin' });
    const { message } = await enrich(id);
    await deliverJobs([message], 2);
    const entries = (await feedOf(id)).filter((entry) => entry.action === 'enriched');
    expect(entries).toEqual([
      expect.objectContaining({
        action: 'enriched',
        actor_user_id: owner.userId,
        actor_api_key_id: null,
        changes: {
          industry_type: { from: null, to: 'Aerospace' },
          country: { from: null, to: 'Italy' },
          city: { from: null, to: 'Turin' },
        },
      }),
    ]);
    // Nothing to fill: no entry.
    const empty = await createCompany(owner);
    await enrich(empty);
    expect((await feedOf(empty)).filter((entry) => entry.action === 'enriched')).toEqual([]);
  });

  it('changes nothing when the message is delivered again', async () => {
    const domain = `again-${crypto.randomUUID().slice(0, 6)}.example`;
    const id = await createCompany(owner, { website: domain });
    await addLead({ email: `a@${domain}`, industry: 'Logistics' });
    const { job, message } = await enrich(id);
    const before = await viewCompany(id);
    const again = await deliverJobs([message, message], 2);
    expect(again.explicitAcks).toHaveLength(2);
    expect(await readJob(job.id)).toEqual(job);
    expect(await viewCompany(id)).toEqual(before);
  });

  it('fails the job when the company was deleted before it ran, and when the queue gives up', async () => {
    const id = await createCompany(owner);
    const started = await call('POST', '/api/company/enrich', { token: owner.token, body: { company_id: id } });
    await call('DELETE', `/api/company/delete/${id}`, { token: owner.token });
    const message: JobMessage = { kind: 'company-enrichment', orgId: owner.orgId, jobId: started.body.data.id };
    await deliverJobs([message]);
    expect(await readJob(started.body.data.id)).toMatchObject({
      status: 'failed',
      error: `Company ${id} was deleted before it could be enriched`,
      result: null,
    });

    const other = await createCompany(owner);
    const queued = await call('POST', '/api/company/enrich', { token: owner.token, body: { company_id: other } });
    const { createMessageBatch, getQueueResult } = await import('cloudflare:test');
    const batch = createMessageBatch<JobMessage>(DEAD_LETTER_QUEUE, [
      {
        id: `dlq-${crypto.randomUUID()}`,
        timestamp: new Date(),
        attempts: 1,
        body: { kind: 'company-enrichment', orgId: owner.orgId, jobId: queued.body.data.id },
      },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toHaveLength(1);
    expect(await readJob(queued.body.data.id)).toMatchObject({
      status: 'failed',
      error: ENRICHMENT_DEAD_LETTER_REASON,
    });
  });

  it('refuses a missing company_id (422) and a company of no or another organization (404)', async () => {
    const missing = await call('POST', '/api/company/enrich', { token: owner.token, body: {} });
    expectFailure(missing, 422, 'validation_error');
    expect(missing.body.error.code).toBe('company_id');
    expectFailure(
      await call('POST', '/api/company/enrich', { token: owner.token, body: { company_id: 2_000_000_000 } }),
      404,
      'not_found',
    );
    const stranger = await signupOrganization('Enrichment stranger');
    const theirs = await createCompany(stranger);
    expectFailure(
      await call('POST', '/api/company/enrich', { token: owner.token, body: { company_id: theirs } }),
      404,
      'not_found',
    );
    expectFailure(await call('GET', '/api/company/enrich/2000000000', { token: owner.token }), 404, 'not_found');
  });
});
