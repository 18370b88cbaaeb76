/**
 * Connected apps and the CRM import through the Worker: connecting (checked with the provider,
 * sealed, admin only), the list of every kind without a secret, disconnecting, the CRM's
 * properties, the mapping checked up front, and an import of the local data set run through the
 * queue handler: leads and companies created with the mapping applied, duplicates merged, bad
 * records reported with their CRM id, a second run creating nothing, a redelivered message
 * changing nothing, and a HubSpot import that stops mid-way resuming at its checkpoint.
 */
import { count, eq, isNull, and, sql } from 'drizzle-orm';
import { createScheduledController } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import worker from '../src/index';
import { withOwnDatabase } from '../src/db/client';
import { readConfig } from '../src/env';
import { companies, connections, crmImportJobs, feedEntries, leads } from '../src/db/schema';
import type { JobMessage } from '../src/jobs/messages';
import { call, expectFailure, memberToken, signupOrganization, uniqueEmail, type SignedUp } from './helpers/api';
import { inOrganization } from './helpers/leads';
import { addLocalAccount, deliverJobs, requestRecordingJobs } from './helpers/mail';

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

async function connectLocalCrm(org: SignedUp): Promise<number> {
  const response = await call('POST', '/api/connected-apps/connect', {
    token: org.token,
    body: { kind: 'crm', provider: 'local' },
  });
  expect(response.status, response.text).toBe(201);
  return response.body.data.id;
}

const MAPPING = {
  lead: {
    firstname: 'first_name',
    lastname: 'last_name',
    email: 'email',
    jobtitle: 'job_title',
    company: 'company',
    city: 'city',
    linkedin_url: 'profile_url',
    lifecyclestage: 'custom_fields.lifecycle_stage',
  },
  company: {
    name: 'company_name',
    domain: 'website',
    industry: 'industry_type',
    city: 'city',
    numberofemployees: 'employee_size',
  },
};

/** Starts an import and delivers its job message until it ends; answers the job id and the message. */
async function runImport(org: SignedUp, body: Record<string, unknown>) {
  const started = await requestRecordingJobs('POST', '/api/connected-apps/crm/import', { token: org.token, body });
  expect(started.status, started.text).toBe(202);
  const message = started.sent.find((sent) => sent.kind === 'crm-import') as JobMessage;
  expect(message).toEqual({ kind: 'crm-import', orgId: org.orgId, jobId: started.body.data.id });
  const result = await deliverJobs([message]);
  expect(result.explicitAcks).toHaveLength(1);
  return { id: started.body.data.id as number, message };
}

async function status(org: SignedUp, id: number) {
  const response = await call('GET', `/api/connected-apps/crm/import/${id}/status`, { token: org.token });
  expect(response.status, response.text).toBe(200);
  return response.body.data;
}

async function tally(org: SignedUp) {
  return inOrganization(org.orgId, async (tx) => {
    const [leadCount] = await tx.select({ n: count() }).from(leads).where(isNull(leads.deletedAt));
    const [companyCount] = await tx.select({ n: count() }).from(companies).where(isNull(companies.deletedAt));
    return { leads: leadCount.n, companies: companyCount.n };
  });
}

afterEach(() => vi.restoreAllMocks());

describe('connected apps', () => {
  let org: SignedUp;
  let rep: string;

  beforeAll(async () => {
    org = await signupOrganization('Connected');
    rep = await memberToken(org, 'sales_rep');
  });

  it('keeps the access token of a connect retried with an Idempotency-Key out of idempotency_keys', async () => {
    vi.spyOn(globalThis, 'fetch').mockImplementation(async () =>
      json(200, { portalId: 62516, uiDomain: 'app.hubspot.com' }),
    );
    const own = await signupOrganization('Connect retry');
    const token = 'pat-na1-retried-secret-token';
    const send = () =>
      call('POST', '/api/connected-apps/connect', {
        token: own.token,
        headers: { 'idempotency-key': 'connect-1' },
        body: { kind: 'crm', provider: 'hubspot', access_token: token },
      });
    const first = await send();
    expect(first.status, first.text).toBe(201);
    const retried = await send();
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    const stored = await withOwnDatabase(readConfig(env), (db) =>
      db.execute<{ body: string }>(sql`select body from idempotency_keys where organization_id = ${own.orgId}`),
    );
    expect(stored.rows).toHaveLength(1);
    expect(stored.rows[0].body).not.toContain(token);
  });

  it('connects a HubSpot account after one check, sealed; lists every kind without a secret', async () => {
    vi.spyOn(globalThis, 'fetch').mockImplementation(async () =>
      json(200, { portalId: 62515, uiDomain: 'app.hubspot.com' }),
    );
    const token = 'pat-na1-very-secret-token';
    const connected = await call('POST', '/api/connected-apps/connect', {
      token: org.token,
      body: { kind: 'crm', provider: 'hubspot', access_token: token, scopes: ['crm.objects.contacts.read'] },
    });
    expect(connected.status, connected.text).toBe(201);
    expect(connected.body.data).toMatchObject({
      kind: 'crm',
      provider: 'hubspot',
      identity: 'portal 62515',
      state: 'active',
      scopes: ['crm.objects.contacts.read'],
    });
    const [stored] = await inOrganization(org.orgId, (tx) =>
      tx.select().from(connections).where(eq(connections.id, connected.body.data.id)),
    );
    expect(stored.secret).toMatch(/^v1\./);
    expect(stored.secret).not.toContain(token);

    // Connecting the same portal again reconnects the same connection.
    const again = await call('POST', '/api/connected-apps/connect', {
      token: org.token,
      body: { kind: 'crm', provider: 'hubspot', access_token: token },
    });
    expect(again.status).toBe(201);
    expect(again.body.message).toBe('Reconnected');
    expect(again.body.data.id).toBe(connected.body.data.id);

    vi.restoreAllMocks();
    await addLocalAccount(org, uniqueEmail('rep'));
    await call('POST', '/api/connected-apps/connect', { token: org.token, body: { kind: 'chat', provider: 'local' } });
    const listed = await call('GET', '/api/connected-apps/list', { token: rep, query: { limit: 100 } });
    expect(listed.status).toBe(200);
    expect(new Set(listed.body.data.map((app: { kind: string }) => app.kind))).toEqual(
      new Set(['mail', 'crm', 'chat']),
    );
    expect(listed.text).not.toContain(token);
    expect(listed.text).not.toContain('"secret');
    const crm = listed.body.data.find((app: { provider: string }) => app.provider === 'hubspot');
    expect(Object.keys(crm).sort()).toEqual(
      [
        'created_at',
        'display_name',
        'id',
        'identity',
        'kind',
        'last_error',
        'last_success_at',
        'owner_id',
        'provider',
        'scopes',
        'state',
        'updated_at',
      ].sort(),
    );
    const onlyChat = await call('GET', '/api/connected-apps/list', { token: org.token, query: { kind: 'chat' } });
    expect(onlyChat.body.data.map((app: { provider: string }) => app.provider)).toEqual(['local']);
  });

  it('connects an account once when the same connect arrives several times at once (a double click)', async () => {
    const org = await signupOrganization('Double connect');
    const answers = await Promise.all(
      [0, 1, 2, 3].map(() =>
        call('POST', '/api/connected-apps/connect', { token: org.token, body: { kind: 'crm', provider: 'local' } }),
      ),
    );
    for (const answer of answers) expect(answer.status, answer.text).toBe(201);
    expect(new Set(answers.map((answer) => answer.body.data.id)).size).toBe(1);
    expect(answers.filter((answer) => answer.body.message === 'Connected')).toHaveLength(1);
    const live = await inOrganization(org.orgId, (tx) =>
      tx
        .select({ id: connections.id })
        .from(connections)
        .where(and(eq(connections.kind, 'crm'), isNull(connections.deletedAt))),
    );
    expect(live).toHaveLength(1);
  });

  it('keeps one live enrichment provider when two different ones are connected at the same moment', async () => {
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input) =>
      new Request(input).url.startsWith('https://api.apollo.io/')
        ? json(200, { healthy: true, is_logged_in: true })
        : json(404, {}),
    );
    for (let round = 0; round < 5; round++) {
      const org = await signupOrganization(`Enrichment race ${round}`);
      const answers = await Promise.all([
        call('POST', '/api/connected-apps/connect', {
          token: org.token,
          body: { kind: 'enrichment', provider: 'apollo', access_token: 'apollo-race-key' },
        }),
        call('POST', '/api/connected-apps/connect', {
          token: org.token,
          body: { kind: 'enrichment', provider: 'local' },
        }),
      ]);
      for (const answer of answers) expect(answer.status, answer.text).toBe(201);
      const live = await inOrganization(org.orgId, (tx) =>
        tx
          .select({ id: connections.id })
          .from(connections)
          .where(and(eq(connections.kind, 'enrichment'), isNull(connections.deletedAt))),
      );
      // The later connect wins, as it would one after the other; the earlier one is disconnected.
      expect(live, `round ${round}`).toHaveLength(1);
    }
  });

  it('refuses a bad credential as a 422 naming access_token, and a provider of another kind naming provider', async () => {
    vi.spyOn(globalThis, 'fetch').mockImplementation(async () =>
      json(401, { status: 'error', category: 'INVALID_AUTHENTICATION' }),
    );
    const refused = await call('POST', '/api/connected-apps/connect', {
      token: org.token,
      body: { kind: 'crm', provider: 'hubspot', access_token: 'bad' },
    });
    expectFailure(refused, 422, 'validation_error');
    expect(refused.body.error.code).toBe('access_token');
    vi.restoreAllMocks();
    vi.spyOn(globalThis, 'fetch').mockImplementation(async () => json(200, { ok: false, error: 'invalid_auth' }));
    const slack = await call('POST', '/api/connected-apps/connect', {
      token: org.token,
      body: { kind: 'chat', provider: 'chat_a', access_token: 'xoxb-bad' },
    });
    expect(slack.body.error.code).toBe('access_token');
    const wrongKind = await call('POST', '/api/connected-apps/connect', {
      token: org.token,
      body: { kind: 'crm', provider: 'chat_a', access_token: 'x' },
    });
    expectFailure(wrongKind, 422, 'validation_error');
    expect(wrongKind.body.error.code).toBe('provider');
    const missing = await call('POST', '/api/connected-apps/connect', {
      token: org.token,
      body: { kind: 'chat', provider: 'chat_b' },
    });
    expect(missing.body.error.code).toBe('access_token');
  });

  it('connect and disconnect are admin only', async () => {
    const refused = await call('POST', '/api/connected-apps/connect', {
      token: rep,
      body: { kind: 'crm', provider: 'local' },
    });
    expectFailure(refused, 403, 'forbidden');
    const id = await connectLocalCrm(org);
    expectFailure(await call('DELETE', `/api/connected-apps/disconnect/${id}`, { token: rep }), 403, 'forbidden');
  });

  it('disconnects: credentials wiped, off the list; a mail account is disconnected by the mail routes', async () => {
    const other = await signupOrganization('Disconnect');
    const id = await connectLocalCrm(other);
    const mailId = await addLocalAccount(other, uniqueEmail('rep'));
    const mail = await call('DELETE', `/api/connected-apps/disconnect/${mailId}`, { token: other.token });
    expectFailure(mail, 422, 'validation_error');
    const gone = await call('DELETE', `/api/connected-apps/disconnect/${id}`, { token: other.token });
    expect(gone.status, gone.text).toBe(200);
    expect(gone.body.data).toEqual({ id });
    const listed = await call('GET', '/api/connected-apps/list', { token: other.token });
    expect(listed.body.data.map((app: { id: number }) => app.id)).toEqual([mailId]);
    expectFailure(
      await call('DELETE', `/api/connected-apps/disconnect/${id}`, { token: other.token }),
      404,
      'not_found',
    );
    const properties = await call('GET', '/api/connected-apps/crm/properties', { token: other.token });
    expectFailure(properties, 409, 'conflict');
    expect(properties.body.error.code).toBe('crm_not_connected');
  });

  it('answers the CRM’s properties: the common ones with their usual field, or all with type and label', async () => {
    const crmOrg = await signupOrganization('Properties');
    await connectLocalCrm(crmOrg);
    const common = await call('GET', '/api/connected-apps/crm/properties', { token: crmOrg.token });
    expect(common.status, common.text).toBe(200);
    expect(common.body.data.every((p: { common: boolean }) => p.common)).toBe(true);
    expect(common.body.data).toContainEqual({
      object_type: 'contacts',
      name: 'firstname',
      label: 'First Name',
      type: 'string',
      common: true,
      suggested_field: 'first_name',
    });
    expect(common.body.data).toContainEqual(
      expect.objectContaining({ object_type: 'companies', name: 'domain', suggested_field: 'website' }),
    );
    const all = await call('GET', '/api/connected-apps/crm/properties', { token: crmOrg.token, query: { all: 1 } });
    expect(all.body.data.length).toBeGreaterThan(common.body.data.length);
    expect(all.body.data).toContainEqual({
      object_type: 'contacts',
      name: 'lifecyclestage',
      label: 'Lifecycle Stage',
      type: 'enumeration',
      common: false,
      suggested_field: null,
    });
    expect(all.body.total).toBe(all.body.data.length);
    expectFailure(
      await call('GET', '/api/connected-apps/crm/properties', { token: crmOrg.token, query: { all: 2 } }),
      400,
      'bad_request',
    );
  });
});

describe('CRM import of the local data set', () => {
  let org: SignedUp;

  beforeAll(async () => {
    org = await signupOrganization('Import');
    await connectLocalCrm(org);
  });

  it('checks the mapping against both sides before queueing anything: every bad entry named', async () => {
    const response = await requestRecordingJobs('POST', '/api/connected-apps/crm/import', {
      token: org.token,
      body: {
        mapping: {
          lead: {
            firstname: 'first_name',
            lastname: 'last_name',
            nope: 'email',
            jobtitle: 'score',
            email: 'first_name',
          },
          company: { domain: 'website' },
        },
      },
    });
    expectFailure(response, 422, 'validation_error');
    expect(response.sent).toEqual([]);
    const fields = response.body.error.details.map((detail: { field: string }) => detail.field);
    expect(fields).toEqual(['mapping.lead.nope', 'mapping.lead.jobtitle', 'mapping.lead.email', 'mapping.company']);
    const empty = await call('POST', '/api/connected-apps/crm/import', { token: org.token, body: { mapping: {} } });
    expect(empty.body.error.code).toBe('mapping');
    const window = await call('POST', '/api/connected-apps/crm/import', {
      token: org.token,
      body: { mapping: MAPPING, from: '2026-02-01', to: '2026-01-01' },
    });
    expect(window.body.error.code).toBe('to');
  });

  it('imports companies then contacts with the mapping applied, duplicates merged, bad rows reported; run twice creates nothing', async () => {
    const before = await tally(org);
    const first = await runImport(org, { mapping: MAPPING, limit: 200 });
    const done = await status(org, first.id);
    expect(done).toMatchObject({
      status: 'completed',
      phase: 'done',
      processed: 400,
      total: 400,
      progress: 100,
      provider: 'local',
    });
    const { created, updated, skipped, failed } = done.counts;
    expect(created + updated + skipped + failed).toBe(400);
    // Companies 89, 97, 178, 194 (bad website or no name); contacts 53, 106, 159 (email), 71, 142 (no last name).
    expect(failed).toBe(9);
    expect(done.errors.map((e: { crm_record_id: string }) => e.crm_record_id).sort()).toEqual(
      ['100089', '100097', '100178', '100194', '500053', '500071', '500106', '500142', '500159'].sort(),
    );
    expect(done.errors.find((e: { crm_record_id: string }) => e.crm_record_id === '500053')).toMatchObject({
      object_type: 'contact',
      outcome: 'error',
      field: 'email',
    });
    // Companies 25, 50, … repeat the one before; contacts 30, 60, … repeat an email, 45 and 135 a profile URL.
    expect(done.merged).toBeGreaterThanOrEqual(8 + 6 + 2);

    const [ada] = await inOrganization(org.orgId, (tx) =>
      tx
        .select()
        .from(leads)
        .where(and(eq(leads.externalSource, 'local:local data set'), eq(leads.externalId, '500001'))),
    );
    expect(ada).toMatchObject({ firstName: 'Alan', jobTitle: 'CTO', customFields: { lifecycle_stage: 'lead' } });
    expect(ada.email).toMatch(/^alan\.lovelace\.1@/);
    expect(ada.profileUrl).toBe('https://www.linkedin.com/in/alan-lovelace-1');
    const duplicates = await inOrganization(org.orgId, (tx) =>
      tx
        .select({ id: leads.id })
        .from(leads)
        .where(and(eq(leads.organizationId, org.orgId), eq(leads.email, String(ada.email).toUpperCase()))),
    );
    expect(duplicates).toEqual([]);
    const [company] = await inOrganization(org.orgId, (tx) =>
      tx
        .select()
        .from(companies)
        .where(and(eq(companies.externalSource, 'local:local data set'), eq(companies.externalId, '100024'))),
    );
    expect(company).toMatchObject({
      websiteDomain: expect.stringMatching(/\.example$/),
      industryType: expect.any(String),
    });
    const copies = await inOrganization(org.orgId, (tx) =>
      tx
        .select({ id: companies.id })
        .from(companies)
        .where(and(isNull(companies.deletedAt), eq(companies.websiteDomain, company.websiteDomain as string))),
    );
    expect(copies).toHaveLength(1);

    const afterFirst = await tally(org);
    expect(afterFirst.leads - before.leads).toBeGreaterThan(150);
    const second = await runImport(org, { mapping: MAPPING, limit: 200 });
    const again = await status(org, second.id);
    expect(again.status).toBe('completed');
    expect(again.counts.created).toBe(0);
    expect(again.counts.failed).toBe(9);
    expect(await tally(org)).toEqual(afterFirst);

    // The same message delivered again changes nothing.
    await deliverJobs([second.message]);
    expect(await status(org, second.id)).toEqual(again);
    expect(await tally(org)).toEqual(afterFirst);
  });

  it('records each company it creates or changes in the activity feed, and nothing for a company a re-run leaves as it was', async () => {
    const feedOrg = await signupOrganization('Import feed');
    await connectLocalCrm(feedOrg);
    const companyEntries = () =>
      inOrganization(feedOrg.orgId, (tx) =>
        tx
          .select({ modelId: feedEntries.modelId, action: feedEntries.action, changes: feedEntries.changes })
          .from(feedEntries)
          .where(eq(feedEntries.modelType, 'company'))
          .orderBy(feedEntries.id),
      );
    const first = await runImport(feedOrg, { mapping: { company: MAPPING.company }, limit: 50 });
    expect((await status(feedOrg, first.id)).status).toBe('completed');
    const made = await inOrganization(feedOrg.orgId, (tx) =>
      tx
        .select({ id: companies.id, name: companies.companyName, industry: companies.industryType })
        .from(companies)
        .orderBy(companies.id),
    );
    expect(made.length).toBeGreaterThan(20);
    const created = await companyEntries();
    // One `created` entry per company, naming the values it was given, as the add route's does.
    expect(created.map((entry) => [entry.modelId, entry.action])).toEqual(
      made.map((company) => [company.id, 'created']),
    );
    expect(created[0].changes).toMatchObject({ company_name: { from: null, to: made[0].name } });

    // Changed here since: the re-run brings the CRM's value back, and records only that.
    const changed = made[0];
    await inOrganization(feedOrg.orgId, (tx) =>
      tx.update(companies).set({ industryType: 'Changed here' }).where(eq(companies.id, changed.id)),
    );
    const second = await runImport(feedOrg, { mapping: { company: MAPPING.company }, limit: 50 });
    expect((await status(feedOrg, second.id)).counts.created).toBe(0);
    expect((await companyEntries()).slice(created.length)).toEqual([
      {
        modelId: changed.id,
        action: 'updated',
        changes: { industry_type: { from: 'Changed here', to: changed.industry } },
      },
    ]);
  });

  it('keeps only records changed in the from/to window', async () => {
    const windowed = await signupOrganization('Window');
    await connectLocalCrm(windowed);
    // Contacts change every 3 hours from 2025-01-01 (contact j at j*3 h): 1 to 8 fall in the first day.
    const run = await runImport(windowed, {
      mapping: { lead: MAPPING.lead },
      from: '2025-01-01T00:00:00Z',
      to: '2025-01-01T23:59:59Z',
      limit: 100,
    });
    const done = await status(windowed, run.id);
    expect(done.counts).toMatchObject({ created: 7, skipped: 93 });
    expect((await tally(windowed)).leads).toBe(7);
  });

  it('another organization’s import and connection are 404s', async () => {
    const other = await signupOrganization('Other');
    const [own] = await inOrganization(org.orgId, (tx) =>
      tx.select().from(connections).where(eq(connections.kind, 'crm')),
    );
    for (const [method, path, query, body] of [
      ['GET', '/api/connected-apps/crm/properties', { connection_id: own.id }, undefined],
      [
        'POST',
        '/api/connected-apps/crm/import',
        {},
        { mapping: { company: { name: 'company_name' } }, connection_id: own.id },
      ],
    ] as const) {
      expectFailure(await call(method, path, { token: other.token, query, body }), 404, 'not_found');
    }
    const run = await runImport(org, { mapping: { company: MAPPING.company }, limit: 10 });
    expectFailure(
      await call('GET', `/api/connected-apps/crm/import/${run.id}/status`, { token: other.token }),
      404,
      'not_found',
    );
  });
});

describe('CRM import from HubSpot', () => {
  it('resumes at the page it stopped after, and a refused token fails the job and marks the connection', async () => {
    const org = await signupOrganization('Hubspot import');
    const page = (ids: number[], after: string | null) => ({
      results: ids.map((id) => ({
        id: String(id),
        properties: {
          firstname: `First${id}`,
          lastname: 'Person',
          email: `p${id}@example.com`,
          hs_object_id: String(id),
        },
        createdAt: '2025-03-15T14:30:00Z',
        updatedAt: '2025-03-16T10:00:00Z',
        archived: false,
      })),
      ...(after
        ? { paging: { next: { after, link: 'https://api.hubapi.com/crm/objects/2026-03/contacts?after=x' } } }
        : {}),
    });
    const properties = {
      results: ['firstname', 'lastname', 'email'].map((name) => ({ name, label: name, type: 'string', hidden: false })),
    };
    let failNext = false;
    const urls: string[] = [];
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input) => {
      const url = new Request(input).url;
      urls.push(url);
      if (url.endsWith('/account-info/2026-03/details')) return json(200, { portalId: 7 });
      if (url.includes('/crm/properties/2026-03/')) return json(200, properties);
      if (url.includes('after=p2')) {
        if (failNext) return json(503, { status: 'error' });
        return json(200, page([3], null));
      }
      return json(200, page([1, 2], 'p2'));
    });
    await call('POST', '/api/connected-apps/connect', {
      token: org.token,
      body: { kind: 'crm', provider: 'hubspot', access_token: 'pat-1' },
    });
    failNext = true;
    const started = await requestRecordingJobs('POST', '/api/connected-apps/crm/import', {
      token: org.token,
      body: { mapping: { lead: { firstname: 'first_name', lastname: 'last_name', email: 'email' } } },
    });
    expect(started.status, started.text).toBe(202);
    const message = started.sent[0];
    const failed = await deliverJobs([message]);
    expect(failed.retryMessages).toHaveLength(1);
    const midway = await status(org, started.body.data.id);
    expect(midway).toMatchObject({ status: 'running', processed: 2, counts: { created: 2 } });

    failNext = false;
    urls.length = 0;
    await deliverJobs([message], 2);
    // Resumed at the cursor of the committed page: the first page is not asked again.
    expect(urls).toEqual([
      'https://api.hubapi.com/crm/objects/2026-03/contacts?limit=100&after=p2&properties=email%2Cfirstname%2Clastname&archived=false',
    ]);
    expect(await status(org, started.body.data.id)).toMatchObject({
      status: 'completed',
      processed: 3,
      counts: { created: 3, updated: 0 },
    });

    vi.restoreAllMocks();
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input) =>
      new Request(input).url.includes('/properties/')
        ? json(200, properties)
        : json(401, { category: 'INVALID_AUTHENTICATION' }),
    );
    const refused = await requestRecordingJobs('POST', '/api/connected-apps/crm/import', {
      token: org.token,
      body: { mapping: { lead: { firstname: 'first_name', lastname: 'last_name' } } },
    });
    await deliverJobs(refused.sent);
    const job = await status(org, refused.body.data.id);
    expect(job.status).toBe('failed');
    expect(job.error).toContain('reconnect');
    const [connection] = await inOrganization(org.orgId, (tx) =>
      tx.select().from(connections).where(eq(connections.kind, 'crm')),
    );
    expect(connection.state).toBe('needs_reconnect');
    const [row] = await inOrganization(org.orgId, (tx) =>
      tx.select().from(crmImportJobs).where(eq(crmImportJobs.id, refused.body.data.id)),
    );
    expect(row.status).toBe('failed');
  });
});

describe('CRM import held back by HubSpot’s rate limit', () => {
  it('waits as long as HubSpot’s 429 asks (the daily limit: an hour), not the queue’s seconds, keeping its lease that long', async () => {
    const org = await signupOrganization('Hubspot daily limit');
    const properties = {
      results: ['firstname', 'lastname'].map((name) => ({ name, label: name, type: 'string', hidden: false })),
    };
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input) => {
      const url = new Request(input).url;
      if (url.endsWith('/account-info/2026-03/details')) return json(200, { portalId: 8 });
      if (url.includes('/crm/properties/2026-03/')) return json(200, properties);
      return json(
        429,
        { status: 'error', policyName: 'DAILY' },
        { 'x-hubspot-ratelimit-daily': '250000', 'x-hubspot-ratelimit-daily-remaining': '0' },
      );
    });
    const connected = await call('POST', '/api/connected-apps/connect', {
      token: org.token,
      body: { kind: 'crm', provider: 'hubspot', access_token: 'pat-daily' },
    });
    expect(connected.status, connected.text).toBe(201);
    const started = await requestRecordingJobs('POST', '/api/connected-apps/crm/import', {
      token: org.token,
      body: { mapping: { lead: { firstname: 'first_name', lastname: 'last_name' } } },
    });
    expect(started.status, started.text).toBe(202);
    const result = await deliverJobs(started.sent);
    // Five quick retries of a few seconds would all meet the same daily limit and dead-letter the
    // import; and a wait is no failure: the job is snoozed, its message sent again after the wait.
    expect(result.retryMessages).toEqual([]);
    expect(result.explicitAcks).toHaveLength(1);
    expect(result.sent).toEqual([{ body: started.sent[0], delaySeconds: 3600 }]);
    const [row] = await inOrganization(org.orgId, (tx) =>
      tx.select().from(crmImportJobs).where(eq(crmImportJobs.id, started.body.data.id)),
    );
    expect(row.status).toBe('running');
    expect(row.error).toContain('rate limiting');
    // The lease outlasts the wait, so the lease sweep does not take the waiting import for stalled.
    expect(row.leaseExpiresAt?.getTime() ?? 0).toBeGreaterThan(Date.now() + 3600 * 1000);
  });
});

describe('HubSpot throttling a request or an import', () => {
  const properties = {
    results: ['firstname', 'lastname'].map((name) => ({ name, label: name, type: 'string', hidden: false })),
  };

  it('a request fails at once: 503 provider_unavailable with HubSpot’s Retry-After, HubSpot asked once', async () => {
    const org = await signupOrganization('Hubspot burst request');
    const urls: string[] = [];
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input) => {
      const url = new Request(input).url;
      urls.push(url);
      if (url.endsWith('/account-info/2026-03/details')) return json(200, { portalId: 9 });
      return json(429, { status: 'error', policyName: 'TEN_SECONDLY_ROLLING' }, { 'retry-after': '7' });
    });
    const connected = await call('POST', '/api/connected-apps/connect', {
      token: org.token,
      body: { kind: 'crm', provider: 'hubspot', access_token: 'pat-burst' },
    });
    expect(connected.status, connected.text).toBe(201);
    urls.length = 0;
    const started = Date.now();
    const answer = await call('GET', '/api/connected-apps/crm/properties', { token: org.token });
    expect(Date.now() - started).toBeLessThan(5_000);
    expectFailure(answer, 503, 'service_unavailable');
    expect(answer.body.error.code).toBe('provider_unavailable');
    expect(answer.body.error.message).toContain('hubspot is rate limiting');
    expect(answer.headers.get('retry-after')).toBe('7');
    // Both object types were asked at once; neither was asked again.
    expect(urls.sort()).toEqual([
      'https://api.hubapi.com/crm/properties/2026-03/companies',
      'https://api.hubapi.com/crm/properties/2026-03/contacts',
    ]);
  });

  it('an import hands HubSpot’s burst wait to the queue instead of sleeping in its delivery', async () => {
    const org = await signupOrganization('Hubspot burst import');
    const pages: string[] = [];
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input) => {
      const url = new Request(input).url;
      if (url.endsWith('/account-info/2026-03/details')) return json(200, { portalId: 10 });
      if (url.includes('/crm/properties/2026-03/')) return json(200, properties);
      pages.push(url);
      return json(
        429,
        { status: 'error', policyName: 'TEN_SECONDLY_ROLLING' },
        { 'x-hubspot-ratelimit-interval-milliseconds': '10000', 'x-hubspot-ratelimit-remaining': '0' },
      );
    });
    await call('POST', '/api/connected-apps/connect', {
      token: org.token,
      body: { kind: 'crm', provider: 'hubspot', access_token: 'pat-burst-import' },
    });
    const started = await requestRecordingJobs('POST', '/api/connected-apps/crm/import', {
      token: org.token,
      body: { mapping: { lead: { firstname: 'first_name', lastname: 'last_name' } } },
    });
    expect(started.status, started.text).toBe(202);
    const delivering = Date.now();
    const result = await deliverJobs(started.sent);
    // Asked once, not again after 10 s inside the delivery.
    expect(pages).toHaveLength(1);
    expect(Date.now() - delivering).toBeLessThan(8_000);
    expect(result.retryMessages).toEqual([]);
    expect(result.sent).toEqual([{ body: started.sent[0], delaySeconds: 10 }]);
    expect(await status(org, started.body.data.id)).toMatchObject({ status: 'running', processed: 0 });
  });
});

describe('CRM import snoozed while HubSpot throttles it (no queue retry spent)', () => {
  const properties = {
    results: ['firstname', 'lastname'].map((name) => ({ name, label: name, type: 'string', hidden: false })),
  };
  const contacts = {
    results: [1, 2].map((id) => ({
      id: String(id),
      properties: { firstname: `Snoozed${id}`, lastname: 'Person', hs_object_id: String(id) },
      createdAt: '2025-03-15T14:30:00Z',
      updatedAt: '2025-03-16T10:00:00Z',
      archived: false,
    })),
  };

  /** A HubSpot account whose contacts page answers 429 (Retry-After 7) `throttles` times, then the page. */
  async function throttledImport(name: string, throttles: number) {
    const org = await signupOrganization(name);
    let asked = 0;
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input) => {
      const url = new Request(input).url;
      if (url.endsWith('/account-info/2026-03/details')) return json(200, { portalId: 12 });
      if (url.includes('/crm/properties/2026-03/')) return json(200, properties);
      asked++;
      if (asked <= throttles)
        return json(429, { status: 'error', policyName: 'TEN_SECONDLY_ROLLING' }, { 'retry-after': '7' });
      return json(200, contacts);
    });
    const connected = await call('POST', '/api/connected-apps/connect', {
      token: org.token,
      body: { kind: 'crm', provider: 'hubspot', access_token: `pat-${name}` },
    });
    expect(connected.status, connected.text).toBe(201);
    const started = await requestRecordingJobs('POST', '/api/connected-apps/crm/import', {
      token: org.token,
      body: { mapping: { lead: { firstname: 'first_name', lastname: 'last_name' } } },
    });
    expect(started.status, started.text).toBe(202);
    const row = async () =>
      (
        await inOrganization(org.orgId, (tx) =>
          tx.select().from(crmImportJobs).where(eq(crmImportJobs.id, started.body.data.id)),
        )
      )[0];
    return { org, message: started.sent[0], id: started.body.data.id as number, row, asked: () => asked };
  }

  it('throttled 7 times in a row, from the queue’s last attempt on, it is snoozed each time and completes once HubSpot answers', async () => {
    const { org, message, id, row, asked } = await throttledImport('Hubspot snoozed', 7);
    // The message's sixth delivery: a queue retry now would dead-letter the import (max_retries 5).
    let result = await deliverJobs([message], 6);
    const first = await row();
    for (let throttle = 1; throttle <= 7; throttle++) {
      // Acknowledged, never retried by the queue: the job's message is sent again with HubSpot's wait.
      expect(result.retryMessages).toEqual([]);
      expect(result.explicitAcks).toHaveLength(1);
      expect(result.sent).toEqual([{ body: message, delaySeconds: 7 }]);
      const waiting = await row();
      expect(waiting).toMatchObject({ status: 'running', processedCount: 0 });
      expect(waiting.error).toBe(
        'throttled, trying again in 7 s: hubspot is rate limiting (429 on contacts); try again later',
      );
      // The bound counts from the first throttle; the lease outlasts the wait, and the sweep takes
      // the snoozed message for one waiting in the queue (due in 7 s), not for a stall.
      expect(waiting.throttledSince).toEqual(first.throttledSince);
      expect(waiting.leaseResentAt?.getTime() ?? 0).toBeGreaterThan(Date.now());
      expect(waiting.leaseExpiresAt?.getTime() ?? 0).toBeGreaterThan(Date.now() + 300_000);
      expect(waiting.leaseResends).toBe(0);
      // The snoozed message is a new one: its first delivery.
      result = await deliverJobs([result.sent[0].body], 1);
    }
    expect(asked()).toBe(8);
    expect(result.explicitAcks).toHaveLength(1);
    // Not sent again (what the import's leads start, as lead scoring, may be).
    expect(result.sent.filter((sent) => sent.body.kind === 'crm-import')).toEqual([]);
    expect(await status(org, id)).toMatchObject({ status: 'completed', processed: 2, counts: { created: 2 } });
    expect(await row()).toMatchObject({ status: 'completed', error: null, throttledSince: null });
  });

  it('a snoozed import whose message never comes is waiting, not stalled: the lease sweep re-sends it, its stall budget untouched', async () => {
    const { org, message, id, row } = await throttledImport('Hubspot snooze lost', 1);
    const snoozed = await deliverJobs([message]);
    expect(snoozed.sent).toEqual([{ body: message, delaySeconds: 7 }]);
    // Two hours on, the snoozed message never delivered (lost): the lease held past the wait has run out.
    await inOrganization(org.orgId, (tx) =>
      tx
        .update(crmImportJobs)
        .set({
          leaseExpiresAt: sql`now() - interval '1 second'`,
          leaseResentAt: sql`${crmImportJobs.leaseResentAt} - interval '2 hours'`,
          throttledSince: sql`${crmImportJobs.throttledSince} - interval '2 hours'`,
        })
        .where(eq(crmImportJobs.id, id)),
    );
    const resent: JobMessage[] = [];
    const queue = {
      send: async (body: JobMessage) => void resent.push(body),
      sendBatch: async (messages: Iterable<MessageSendRequest<JobMessage>>) => {
        for (const sent of messages) resent.push(sent.body);
      },
    } as unknown as Queue<JobMessage>;
    await worker.scheduled(createScheduledController({ cron: '* * * * *' }), { ...env, JOBS: queue });
    expect(resent.filter((sent) => sent.orgId === org.orgId)).toEqual([message]);
    expect(await row()).toMatchObject({ status: 'running', leaseResends: 0, leaseResentAt: expect.any(Date) });
    // The re-sent message runs it to the end (HubSpot answers now).
    await deliverJobs([message]);
    expect(await status(org, id)).toMatchObject({ status: 'completed', processed: 2 });
  });

  it('throttled past 24 hours since its first throttle, it fails with a reason that says so, once', async () => {
    const { org, message, id, row } = await throttledImport('Hubspot throttled for ever', Number.POSITIVE_INFINITY);
    const snoozed = await deliverJobs([message]);
    expect(snoozed.sent).toEqual([{ body: message, delaySeconds: 7 }]);
    // A day less five seconds ago: the next wait (7 s) would end past the 24 hours.
    await inOrganization(org.orgId, (tx) =>
      tx
        .update(crmImportJobs)
        .set({ throttledSince: sql`now() - interval '24 hours' + interval '5 seconds'` })
        .where(eq(crmImportJobs.id, id)),
    );
    const last = await deliverJobs([snoozed.sent[0].body]);
    expect(last.explicitAcks).toHaveLength(1);
    expect(last.retryMessages).toEqual([]);
    expect(last.sent).toEqual([]);
    const reason =
      'hubspot kept rate limiting this job for 24 hours without letting it go on, so it was stopped (last answer: hubspot is rate limiting (429 on contacts); try again later).';
    expect(await row()).toMatchObject({ status: 'failed', error: reason, leaseExpiresAt: null });
    // A redelivery changes nothing.
    await deliverJobs([snoozed.sent[0].body], 2);
    expect(await row()).toMatchObject({ status: 'failed', error: reason });
    const notices = await call('GET', '/api/notification/list', { token: org.token, query: { limit: 100 } });
    expect(
      notices.body.data.filter((notice: { data: Record<string, unknown> }) => notice.data.crm_import_job_id === id),
    ).toEqual([expect.objectContaining({ title: 'CRM import failed' })]);
  });
});

describe('HubSpot connected by OAuth', () => {
  it('takes the refresh token on connect and renews the 30-minute access token when it expires', async () => {
    const org = await signupOrganization('Hubspot OAuth');
    const seen: { url: string; body: string; authorization: string | null }[] = [];
    let refreshes = 0;
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const request = new Request(input, init);
      seen.push({ url: request.url, body: await request.text(), authorization: request.headers.get('authorization') });
      if (request.url.endsWith('/account-info/2026-03/details')) return json(200, { portalId: 11 });
      if (request.url === 'https://api.hubapi.com/oauth/2026-03/token') {
        refreshes++;
        return json(200, {
          token_type: 'bearer',
          refresh_token: 'hs-refresh-token',
          access_token: `hs-access-${refreshes + 1}`,
          expires_in: 1800,
        });
      }
      if (request.url.includes('/crm/objects/2026-03/contacts')) {
        return json(200, {
          results: [
            {
              id: '501',
              properties: { firstname: 'Oauth', lastname: 'Renewed', hs_object_id: '501' },
              updatedAt: '2025-03-16T10:00:00Z',
              archived: false,
            },
          ],
        });
      }
      return json(200, {
        results: ['firstname', 'lastname'].map((name) => ({ name, label: name, type: 'string', hidden: false })),
      });
    });
    const connected = await call('POST', '/api/connected-apps/connect', {
      token: org.token,
      body: {
        kind: 'crm',
        provider: 'hubspot',
        access_token: 'hs-access-1',
        refresh_token: 'hs-refresh-token',
        expires_in: 1800,
      },
    });
    expect(connected.status, connected.text).toBe(201);
    expect(connected.text).not.toContain('hs-refresh-token');
    const [row] = await inOrganization(org.orgId, (tx) =>
      tx.select().from(connections).where(eq(connections.id, connected.body.data.id)),
    );
    expect(row.tokenExpiresAt?.getTime() ?? 0).toBeGreaterThan(Date.now() + 1_700_000);
    // Half an hour later.
    await inOrganization(org.orgId, (tx) =>
      tx
        .update(connections)
        .set({ tokenExpiresAt: new Date(Date.now() - 1000) })
        .where(eq(connections.id, row.id)),
    );
    seen.length = 0;
    const answer = await call('GET', '/api/connected-apps/crm/properties', {
      token: org.token,
      query: { all: 1 },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(seen[0].url).toBe('https://api.hubapi.com/oauth/2026-03/token');
    expect(new URLSearchParams(seen[0].body).get('refresh_token')).toBe('hs-refresh-token');
    expect(seen.slice(1).map((request) => request.authorization)).toEqual(['Bearer hs-access-2', 'Bearer hs-access-2']);
    const listed = await call('GET', '/api/connected-apps/list', { token: org.token });
    expect(listed.body.data.find((app: { id: number }) => app.id === row.id)).toMatchObject({ state: 'active' });

    // An import queued now runs after that token expired too: its delivery renews it.
    const started = await requestRecordingJobs('POST', '/api/connected-apps/crm/import', {
      token: org.token,
      body: { mapping: { lead: { firstname: 'first_name', lastname: 'last_name' } } },
    });
    expect(started.status, started.text).toBe(202);
    await inOrganization(org.orgId, (tx) =>
      tx
        .update(connections)
        .set({ tokenExpiresAt: new Date(Date.now() - 1000) })
        .where(eq(connections.id, row.id)),
    );
    seen.length = 0;
    await deliverJobs(started.sent);
    expect(seen.map((request) => request.url.split('?')[0])).toEqual([
      'https://api.hubapi.com/oauth/2026-03/token',
      'https://api.hubapi.com/crm/objects/2026-03/contacts',
    ]);
    expect(seen[1].authorization).toBe('Bearer hs-access-3');
    expect(await status(org, started.body.data.id)).toMatchObject({ status: 'completed', counts: { created: 1 } });
  });
});
