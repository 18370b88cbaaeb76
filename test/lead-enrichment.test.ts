/**
 * Lead enrichment (spec "Lead enrichment"): the local provider's profile (free and disposable
 * mail by the packages' lists, company guessed from a work email, names from the email and the
 * profile URL, the phone's country and line type, the organization's own company by domain),
 * stored as a profile lead; merged into a lead's EMPTY fields only, with a feed entry; the bulk
 * job with item errors and redelivery; the Apollo adapter against its documented wire format.
 */
import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { connections, profileLeads } from '../src/db/schema';
import { priceOf, reserveCredits, STARTING_GRANT } from '../src/modules/credits';
import { sealCredentials } from '../src/providers/connections';
import { apolloEnrichment, APOLLO_PEOPLE_MATCH_URL } from '../src/providers/enrichment/apollo';
import { APOLLO_HEALTH_URL } from '../src/providers/enrichment/connect-check';
import { ProviderFailure } from '../src/providers/failures';
import { call, expectFailure, signupOrganization, uniqueEmail, type SignedUp } from './helpers/api';
import { heldAnswer, paidCallMeanwhile } from './helpers/held-answer';
import { createCompany } from './helpers/accounts';
import { json, mockFetch, type Seen } from './helpers/fetch-mock';
import { asOrganization, deliverJobs } from './cross-tenant/fixtures/jobs';
import { asTenant } from './helpers/leads';
import { onPglite } from './helpers/lock-races';
import { enrichOne } from '../src/modules/lead-enrichment/service';

let owner: SignedUp;
let other: SignedUp;

beforeAll(async () => {
  [owner, other] = await Promise.all([signupOrganization('Enrich'), signupOrganization('Enrich other')]);
});

afterEach(() => {
  vi.restoreAllMocks();
});

const unique = () => crypto.randomUUID().slice(0, 8);

async function enrich(body: Record<string, unknown>, who: SignedUp = owner) {
  return call('POST', '/api/lead-enrichment/enrich', { token: who.token, body });
}

/** Answers Apollo's calls; anything else (the database driver's connections) goes through. */
function mockApollo(answer: (seen: Seen) => Response) {
  return mockFetch([answer], { only: (url) => url.startsWith('https://api.apollo.io/') });
}

async function connectApollo(org: SignedUp, apiKey = 'apollo-test-key') {
  const sealed = await sealCredentials(env, org.orgId, { api_key: apiKey });
  await asOrganization(org.orgId, (tx) =>
    tx
      .insert(connections)
      .values({ organizationId: org.orgId, kind: 'enrichment', provider: 'apollo', identity: 'apollo', ...sealed })
      .returning(),
  );
}

describe('POST /api/lead-enrichment/enrich with the local provider', () => {
  it('derives names, company and domain from a work email, marks the profile local and stores it as a profile lead', async () => {
    const domain = `analytical-engines-${unique()}.co.uk`;
    const response = await enrich({ email: `ada.lovelace@${domain}` });
    expect(response.status, response.text).toBe(201);
    const profile = response.body.data;
    expect(profile).toMatchObject({
      provider: 'local',
      local: true,
      lead_id: null,
      full_name: 'Ada Lovelace',
      email: `ada.lovelace@${domain}`,
      domain,
      filled: [],
    });
    expect(profile.company).toMatch(/^Analytical Engines [0-9a-f]+$/i);
    expect(profile.fields.first_name).toMatchObject({ value: 'Ada', source: 'local:email_local_part' });
    expect(profile.fields.free_email).toMatchObject({ value: false, source: 'local:free-email-domains-typescript' });
    expect(profile.fields.disposable_email).toMatchObject({ value: false });
    expect(profile.fields.website).toMatchObject({ value: `https://${domain}`, source: 'local:email_domain' });
    for (const value of Object.values(profile.fields) as { at: string }[]) expect(Date.parse(value.at)).not.toBeNaN();

    const read = await call('GET', `/api/lead-enrichment/profile-leads/${profile.id}`, { token: owner.token });
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(profile);
    const recent = await call('GET', '/api/lead-enrichment/profile-leads/recent', {
      token: owner.token,
      query: { search: domain, limit: 5 },
    });
    expect(recent.status, recent.text).toBe(200);
    expect(recent.body.data.map((row: { id: number }) => row.id)).toEqual([profile.id]);
    expect(recent.body).toMatchObject({ total: 1, page: 1, limit: 5 });
  });

  it('flags free and disposable mail from the packages’ lists and guesses no company for them', async () => {
    const free = (await enrich({ email: `grace.hopper.${unique()}@gmail.com` })).body.data;
    expect(free.fields.free_email.value).toBe(true);
    expect(free.fields.disposable_email.value).toBe(false);
    expect(free.fields.company).toBeUndefined();
    const throwaway = (await enrich({ email: `someone@mailinator.com` })).body.data;
    expect(throwaway.fields.disposable_email.value).toBe(true);
    expect(throwaway.fields.company).toBeUndefined();
  });

  it('reads a name from a profile URL’s slug and the phone’s country and line type', async () => {
    const response = await enrich({
      profile_url: 'https://www.linkedin.com/in/grace-hopper-1a2b3c4d/',
      phone_number: '+33 6 12 34 56 78',
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body.data.full_name).toBe('Grace Hopper');
    expect(response.body.data.fields.first_name.source).toBe('local:profile_url_slug');
    expect(response.body.data.fields.phone_country).toMatchObject({ value: 'FR', source: 'local:libphonenumber' });
    expect(response.body.data.fields.phone_line_type.value).toBe('mobile');
  });

  it('matches the organization’s own company by domain', async () => {
    const domain = `babbage-${unique()}.com`;
    const companyId = await createCompany(owner, {
      company_name: 'Babbage Works',
      website: `https://www.${domain}`,
      industry_type: 'Machinery',
      country: 'United Kingdom',
    });
    const profile = (await enrich({ email: `charles@${domain}` })).body.data;
    expect(profile.fields.company_id).toMatchObject({ value: companyId, source: 'local:company_match' });
    expect(profile.company).toBe('Babbage Works');
    expect(profile.fields.industry).toMatchObject({ value: 'Machinery', source: 'local:company_match' });
    // Another organization's company at the same domain is not matched.
    const theirs = (await enrich({ email: `charles@${domain}` }, other)).body.data;
    expect(theirs.fields.company_id).toBeUndefined();
  });

  it('merges into a lead’s empty fields only, records sources on the lead and lists the filled fields in the feed', async () => {
    const domain = `jacquard-${unique()}.com`;
    const companyId = await createCompany(owner, {
      company_name: `Jacquard ${unique()}`,
      website: domain,
      industry_type: 'Textiles',
      country: 'France',
    });
    const created = await call('POST', '/api/lead/add', {
      token: owner.token,
      body: { first_name: 'Joseph', last_name: 'Jacquard', email: `joseph@${domain}`, country: 'Belgium' },
    });
    expect(created.status, created.text).toBe(201);
    const leadId = created.body.data.id;
    const response = await enrich({ lead_id: leadId });
    expect(response.status, response.text).toBe(201);
    expect(response.body.data.lead_id).toBe(leadId);
    expect([...response.body.data.filled].sort()).toEqual(['company', 'industry', 'website']);

    const lead = (await call('GET', `/api/lead/view/${leadId}`, { token: owner.token })).body.data;
    expect(lead).toMatchObject({
      industry: 'Textiles',
      country: 'Belgium',
      company_id: companyId,
      website: `https://${domain}`,
    });
    expect(lead.ai_information.enrichment).toMatchObject({ provider: 'local', profile_lead_id: response.body.data.id });
    expect([...lead.ai_information.enrichment.filled].sort()).toEqual(['company', 'industry', 'website']);
    expect(lead.ai_information.enrichment.fields.industry).toMatchObject({
      value: 'Textiles',
      source: 'local:company_match',
    });

    const feed = await call('GET', '/api/feed/list', {
      token: owner.token,
      query: { model_type: 'lead', model_id: leadId, limit: 20 },
    });
    const entry = feed.body.data.find((row: { action: string }) => row.action === 'enriched');
    expect(Object.keys(entry.changes).sort()).toEqual(['company', 'industry', 'website']);
    expect(entry.changes.industry).toEqual({ from: null, to: 'Textiles' });
    expect(entry).toMatchObject({ actor_user_id: owner.userId, actor_api_key_id: null });

    // Again: nothing left to fill, nothing overwritten.
    const again = await enrich({ lead_id: leadId, domain: 'elsewhere.example' });
    expect(again.body.data.filled).toEqual([]);
    const after = (await call('GET', `/api/lead/view/${leadId}`, { token: owner.token })).body.data;
    expect(after).toMatchObject({ industry: 'Textiles', country: 'Belgium', website: `https://${domain}` });
  });

  it('answers 422 without anything to enrich from, and 404 for another organization’s lead', async () => {
    const empty = await enrich({});
    expectFailure(empty, 422, 'validation_error');
    expect(empty.body.error.code).toBe('lead_id');
    expectFailure(await enrich({ email: 'not-an-email' }), 422, 'validation_error');
    const theirs = await call('POST', '/api/lead/add', {
      token: other.token,
      body: { first_name: 'Their', last_name: 'Lead', email: uniqueEmail('their') },
    });
    expectFailure(await enrich({ lead_id: theirs.body.data.id }), 404, 'not_found');
    expectFailure(
      await call('GET', '/api/lead-enrichment/profile-leads/999999999', { token: owner.token }),
      404,
      'not_found',
    );
  });
});

describe('POST /api/lead-enrichment/enrich/bulk', () => {
  it('enriches every item in a job, and a redelivered message enriches nothing twice', async () => {
    const org = await signupOrganization('Bulk enrich');
    const response = await call('POST', '/api/lead-enrichment/enrich/bulk', {
      token: org.token,
      body: {
        group_id: 4,
        leads: [
          { email: `ada@engines-${unique()}.com` },
          { profile_url: 'linkedin.com/in/alan-turing' },
          { name: 'Grace Hopper' },
        ],
      },
    });
    expect(response.status, response.text).toBe(202);
    const jobId = response.body.data.id;
    expect(response.body.data).toMatchObject({ status: 'queued', total: 3, group_id: 4, items: [] });
    const message = { kind: 'lead-enrichment' as const, orgId: org.orgId, jobId };
    await deliverJobs([message]);
    await deliverJobs([message], 2);
    const job = await call('GET', `/api/lead-enrichment/job/${jobId}`, { token: org.token });
    expect(job.status).toBe(200);
    expect(job.body.data).toMatchObject({
      status: 'completed',
      processed: 3,
      succeeded: 3,
      failed: 0,
      percentage: 100,
    });
    expect(job.body.data.items.map((item: { item: number; status: string }) => [item.item, item.status])).toEqual([
      [0, 'completed'],
      [1, 'completed'],
      [2, 'completed'],
    ]);
    const stored = await asOrganization(org.orgId, (tx) =>
      tx.select().from(profileLeads).where(eq(profileLeads.jobId, jobId)),
    );
    expect(stored).toHaveLength(3);
    expect(stored.find((row) => row.jobItem === 1)?.fullName).toBe('Alan Turing');
  });

  it('keeps an item the provider refuses as an item error and completes the rest', async () => {
    const org = await signupOrganization('Bulk item errors');
    await connectApollo(org);
    const response = await call('POST', '/api/lead-enrichment/enrich/bulk', {
      token: org.token,
      body: { leads: [{ email: 'ok@apollo-test.example' }, { email: 'refused@apollo-test.example' }] },
    });
    expect(response.status, response.text).toBe(202);
    mockApollo((seen) =>
      seen.url.includes('refused')
        ? json(422, { error: 'invalid' })
        : json(200, { person: { first_name: 'Ok', last_name: 'Person', title: 'CTO' } }),
    );
    await deliverJobs([{ kind: 'lead-enrichment', orgId: org.orgId, jobId: response.body.data.id }]);
    const job = (await call('GET', `/api/lead-enrichment/job/${response.body.data.id}`, { token: org.token })).body
      .data;
    expect(job).toMatchObject({ status: 'completed', succeeded: 1, failed: 1 });
    expect(job.items[1]).toMatchObject({ status: 'failed', profile_lead_id: null });
    expect(job.items[1].error).toMatch(/apollo refused the people match \(422\)/);
  });

  it('asks the provider with no lock on the credits: a rep’s paid call meanwhile is answered, not held up by the job', async () => {
    const org = await signupOrganization('Bulk enrich lock');
    await connectApollo(org);
    const response = await call('POST', '/api/lead-enrichment/enrich/bulk', {
      token: org.token,
      body: { leads: [{ email: 'one@apollo-test.example' }, { email: 'two@apollo-test.example' }] },
    });
    expect(response.status, response.text).toBe(202);
    const gate = heldAnswer();
    // A slow Apollo: it answers once the rep's call has been tried.
    const realFetch = globalThis.fetch;
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const url = new Request(input, init).url;
      if (!url.startsWith('https://api.apollo.io/')) return realFetch(input, init);
      await gate.hold();
      return json(200, { person: { first_name: 'Slow', last_name: 'Answer', title: 'CTO' } });
    });
    const delivery = deliverJobs([{ kind: 'lead-enrichment', orgId: org.orgId, jobId: response.body.data.id }]);
    await gate.asked;
    const meanwhile = await paidCallMeanwhile(org, 'held up by the job');
    gate.release();
    await delivery;
    expect(meanwhile).toBe(200);
    const job = (await call('GET', `/api/lead-enrichment/job/${response.body.data.id}`, { token: org.token })).body
      .data;
    expect(job).toMatchObject({ status: 'completed', succeeded: 2, failed: 0 });
    const credits = (await call('GET', '/api/credits', { token: org.token })).body.data;
    expect(credits.balance).toBe(STARTING_GRANT - 2 * priceOf('enrichment_bulk_item') - 1);
  });

  it('with an Idempotency-Key (one transaction) asks the provider with no lock on the credits: another paid call meanwhile is answered', async (context) => {
    const org = await signupOrganization('Enrich key lock');
    // PGlite runs one transaction at a time: the other call waits there whatever the locks.
    if (await onPglite(org.orgId)) context.skip();
    await connectApollo(org);
    const gate = heldAnswer();
    const realFetch = globalThis.fetch;
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const url = new Request(input, init).url;
      if (!url.startsWith('https://api.apollo.io/')) return realFetch(input, init);
      await gate.hold();
      return json(200, { person: { first_name: 'Slow', last_name: 'Answer', title: 'CTO' } });
    });
    // What a request with an Idempotency-Key runs: the enrichment on the request's transaction.
    const keyed = asTenant(org, (ctx) => enrichOne(ctx, env, { email: 'slow@apollo-test.example' }));
    await gate.asked;
    const meanwhile = await paidCallMeanwhile(org, 'held up by the keyed enrichment');
    gate.release();
    const profile = await keyed;
    expect(meanwhile).toBe(200);
    expect(profile).toMatchObject({ provider: 'apollo', full_name: 'Slow Answer' });
    const credits = (await call('GET', '/api/credits', { token: org.token })).body.data;
    expect(credits.balance).toBe(STARTING_GRANT - priceOf('enrichment_single') - 1);
  });

  it('refuses more than 1000 items and an item with nothing to enrich from (422)', async () => {
    const tooMany = await call('POST', '/api/lead-enrichment/enrich/bulk', {
      token: owner.token,
      body: { leads: Array.from({ length: 1001 }, () => ({ name: 'X Y' })) },
    });
    expectFailure(tooMany, 422, 'validation_error');
    expect(tooMany.body.error.code).toBe('leads');
    const emptyItem = await call('POST', '/api/lead-enrichment/enrich/bulk', {
      token: owner.token,
      body: { leads: [{ name: 'X Y' }, {}] },
    });
    expectFailure(emptyItem, 422, 'validation_error');
    expect(emptyItem.body.error.code).toBe('leads.1.email');
  });
});

describe('credits', () => {
  async function balance(org: SignedUp): Promise<number> {
    const response = await call('GET', '/api/credits', { token: org.token });
    expect(response.status, response.text).toBe(200);
    return response.body.data.balance;
  }

  /** Holds all but `left` credits of the organization's balance. */
  async function spendAllBut(org: SignedUp, left: number) {
    const now = await balance(org);
    await asOrganization(org.orgId, (tx) =>
      reserveCredits(
        { db: tx, orgId: org.orgId, userId: org.userId },
        { feature: 'enrichment_bulk_item', idempotencyKey: `drain-${unique()}`, quantity: now - left },
      ),
    );
  }

  it('charges an enrichment, refunds one whose provider fails, and refuses one the balance cannot pay (402, nothing stored)', async () => {
    const org = await signupOrganization('Enrich credits');
    const start = await balance(org);
    expect((await enrich({ email: `a@credits-${unique()}.com` }, org)).status).toBe(201);
    expect(await balance(org)).toBe(start - priceOf('enrichment_single'));

    await connectApollo(org);
    mockApollo(() => json(503, {}));
    expectFailure(await enrich({ email: `b@credits-${unique()}.com` }, org), 503, 'service_unavailable');
    expect(await balance(org)).toBe(start - priceOf('enrichment_single'));
    vi.restoreAllMocks();

    await spendAllBut(org, priceOf('enrichment_single') - 1);
    const refused = await enrich({ email: `c@credits-${unique()}.com` }, org);
    expectFailure(refused, 402, 'payment_required');
    expect(refused.body.error.code).toBe('insufficient_credits');
    expect(refused.body.error.details).toMatchObject({
      price: priceOf('enrichment_single'),
      balance: priceOf('enrichment_single') - 1,
    });
    const stored = await call('GET', '/api/lead-enrichment/profile-leads/recent', {
      token: org.token,
      query: { limit: 100 },
    });
    expect(stored.body.total).toBe(1);
  });

  it('charges a bulk job per item once, however often its message is delivered, and refuses a job the balance cannot cover', async () => {
    const org = await signupOrganization('Bulk credits');
    const start = await balance(org);
    const response = await call('POST', '/api/lead-enrichment/enrich/bulk', {
      token: org.token,
      body: { leads: [{ name: 'Ada Lovelace' }, { name: 'Alan Turing' }] },
    });
    expect(response.status, response.text).toBe(202);
    const message = { kind: 'lead-enrichment' as const, orgId: org.orgId, jobId: response.body.data.id };
    await deliverJobs([message]);
    await deliverJobs([message], 2);
    expect(await balance(org)).toBe(start - 2 * priceOf('enrichment_bulk_item'));

    await spendAllBut(org, priceOf('enrichment_bulk_item'));
    const refused = await call('POST', '/api/lead-enrichment/enrich/bulk', {
      token: org.token,
      body: { leads: [{ name: 'Grace Hopper' }, { name: 'Edsger Dijkstra' }] },
    });
    expectFailure(refused, 402, 'payment_required');
    expect(refused.body.error.code).toBe('insufficient_credits');
  });
});

describe('the Apollo adapter (people match)', () => {
  const context = { matchCompany: async () => null, now: new Date('2026-05-04T10:00:00Z') };

  it('sends the documented request and maps the person and organization', async () => {
    const seen = mockApollo(() =>
      json(200, {
        person: {
          id: '5f1',
          first_name: 'Tim',
          last_name: 'Zheng',
          title: 'Founder & CEO',
          linkedin_url: 'http://www.linkedin.com/in/tim-zheng-677ba010',
          city: 'San Francisco',
          state: 'California',
          country: 'United States',
          organization: {
            name: 'Apollo',
            website_url: 'http://www.apollo.io',
            primary_domain: 'apollo.io',
            industry: 'information technology & services',
            estimated_num_employees: 1600,
          },
        },
      }),
    );
    const profile = await apolloEnrichment('secret-key').enrich(
      { email: 'tim@apollo.io', name: 'Tim Zheng', domain: 'apollo.io' },
      context,
    );
    expect(seen).toHaveLength(1);
    const url = new URL(seen[0].url);
    expect(`${url.origin}${url.pathname}`).toBe(APOLLO_PEOPLE_MATCH_URL);
    expect(seen[0].method).toBe('POST');
    expect(seen[0].headers.get('x-api-key')).toBe('secret-key');
    expect(seen[0].headers.get('content-type')).toBe('application/json');
    expect(seen[0].headers.get('cache-control')).toBe('no-cache');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      email: 'tim@apollo.io',
      name: 'Tim Zheng',
      domain: 'apollo.io',
      reveal_personal_emails: 'false',
      reveal_phone_number: 'false',
    });
    expect(profile).toMatchObject({ provider: 'apollo', local: false });
    expect(profile.fields.job_title).toEqual({
      value: 'Founder & CEO',
      source: 'apollo',
      at: '2026-05-04T10:00:00.000Z',
    });
    expect(profile.fields.company?.value).toBe('Apollo');
    expect(profile.fields.employee_count?.value).toBe(1600);
    expect(profile.fields.free_email).toMatchObject({ value: false, source: 'local:free-email-domains-typescript' });
  });

  it('answers no person without fields of its own, and turns 401 and 429 into provider failures', async () => {
    mockApollo(() => json(200, { person: null }));
    const none = await apolloEnrichment('k').enrich({ name: 'Nobody Known' }, context);
    expect(none.fields.job_title).toBeUndefined();
    vi.restoreAllMocks();
    mockApollo(() => json(401, { error: 'invalid key' }));
    await expect(apolloEnrichment('k').enrich({ email: 'a@b.example' }, context)).rejects.toMatchObject({
      kind: 'auth',
    });
    vi.restoreAllMocks();
    mockApollo(() => json(429, {}, { 'retry-after': '12' }));
    const throttled = await apolloEnrichment('k')
      .enrich({ email: 'a@b.example' }, context)
      .catch((error: unknown) => error);
    expect(throttled).toBeInstanceOf(ProviderFailure);
    expect(throttled).toMatchObject({ kind: 'unavailable', retryAfterSeconds: 12 });
  });

  it('through the route: a refused key is 409 connection_needs_reconnect, a provider down 503 with Retry-After', async () => {
    const org = await signupOrganization('Apollo route');
    await connectApollo(org);
    mockApollo(() => json(503, {}, { 'retry-after': '20' }));
    const down = await enrich({ email: 'x@apollo-route.example' }, org);
    expectFailure(down, 503, 'service_unavailable');
    expect(down.headers.get('retry-after')).toBe('20');
    vi.restoreAllMocks();
    mockApollo(() => json(401, {}));
    const refused = await enrich({ email: 'x@apollo-route.example' }, org);
    expectFailure(refused, 409, 'conflict');
    expect(refused.body.error.code).toBe('connection_needs_reconnect');
  });
});

describe('the provider chosen per organization (POST /api/connected-apps/connect, kind enrichment)', () => {
  const connect = (org: SignedUp, body: Record<string, unknown>) =>
    call('POST', '/api/connected-apps/connect', { token: org.token, body });

  it('connects Apollo with its key checked and sealed, enriches through it, and switches back to local', async () => {
    const org = await signupOrganization('Apollo choice');
    const seen = mockApollo(({ url }) =>
      url.startsWith(APOLLO_HEALTH_URL)
        ? json(200, { healthy: true, is_logged_in: true })
        : json(200, { person: { first_name: 'Tim', last_name: 'Zheng', title: 'Founder & CEO' } }),
    );
    const connected = await connect(org, { kind: 'enrichment', provider: 'apollo', access_token: 'apollo-key-1' });
    expect(connected.status, connected.text).toBe(201);
    expect(connected.body.data).toMatchObject({ kind: 'enrichment', provider: 'apollo', identity: 'apollo' });
    expect(JSON.stringify(connected.body)).not.toContain('apollo-key-1');
    expect(seen).toHaveLength(1);
    expect(seen[0].method).toBe('GET');
    expect(seen[0].headers.get('x-api-key')).toBe('apollo-key-1');
    const [stored] = await asOrganization(org.orgId, (tx) =>
      tx.select().from(connections).where(eq(connections.id, connected.body.data.id)),
    );
    expect(stored.secret).not.toBeNull();
    expect(stored.secret).not.toContain('apollo-key-1');

    const viaApollo = await enrich({ email: `tim@choice-${unique()}.example` }, org);
    expect(viaApollo.status, viaApollo.text).toBe(201);
    expect(viaApollo.body.data).toMatchObject({ provider: 'apollo', local: false });
    expect(seen.at(-1)?.url.startsWith(APOLLO_PEOPLE_MATCH_URL)).toBe(true);
    expect(seen.at(-1)?.headers.get('x-api-key')).toBe('apollo-key-1');

    const local = await connect(org, { kind: 'enrichment', provider: 'local' });
    expect(local.status, local.text).toBe(201);
    const calls = seen.length;
    const viaLocal = await enrich({ email: `tim@choice-${unique()}.example` }, org);
    expect(viaLocal.body.data).toMatchObject({ provider: 'local', local: true });
    expect(seen).toHaveLength(calls);
    const apps = await call('GET', '/api/connected-apps/list', { token: org.token, query: { kind: 'enrichment' } });
    expect(apps.body.data.map((app: { provider: string }) => app.provider)).toEqual(['local']);
  });

  it('refuses a key Apollo does not accept (422 naming access_token) and stores nothing', async () => {
    const org = await signupOrganization('Apollo refused');
    mockApollo(() => json(200, { healthy: true, is_logged_in: false }));
    expectFailure(
      await connect(org, { kind: 'enrichment', provider: 'apollo', access_token: 'wrong' }),
      422,
      'validation_error',
    );
    vi.restoreAllMocks();
    mockApollo(() => json(401, { error: 'Invalid access credentials.' }));
    const refused = await connect(org, { kind: 'enrichment', provider: 'apollo', access_token: 'wrong' });
    expectFailure(refused, 422, 'validation_error');
    expect(JSON.stringify(refused.body.error)).toContain('access_token');
    expectFailure(
      await connect(org, { kind: 'enrichment', provider: 'clearbit', access_token: 'x' }),
      422,
      'validation_error',
    );
    const rows = await asOrganization(org.orgId, (tx) =>
      tx.select().from(connections).where(eq(connections.kind, 'enrichment')),
    );
    expect(rows).toEqual([]);
  });
});
