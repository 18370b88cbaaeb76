/**
 * Companies: add and update (JSON, or multipart with the logo stored in R2), view, list filters, stats, similar,
 * delete; every refusal names its field; list and view cost at most 2 statements.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { addMember, call, expectFailure, signupOrganization, type SignedUp } from './helpers/api';
import { companyForm, createCompany, createContact, pngFile, postCompany } from './helpers/accounts';
import { addDeal, defaultPipeline, type StageRow } from './helpers/deals';
import { statementsOf } from './helpers/statements';

let owner: SignedUp;
let other: SignedUp;

beforeAll(async () => {
  [owner, other] = await Promise.all([signupOrganization('Companies'), signupOrganization('Companies other')]);
});

const view = (id: number, who = owner) => call('GET', `/api/company/view/${id}`, { token: who.token });

describe('POST /api/company/add', () => {
  it('creates a company from a form, stores the logo and normalises the website', async () => {
    const response = await postCompany(owner, {
      company_name: 'Analytical Engines',
      industry_type: 'Software',
      city: 'London',
      country: 'United Kingdom',
      website: 'https://WWW.Analytical.example:8443/about',
      employee_size: '51-200',
      rating: '4',
      contact_email: 'hello@analytical.example',
      technologies: 'react, postgres',
      summary: 'Payments infrastructure',
      company_logo: pngFile(),
    });
    expect(response.status, response.text).toBe(201);
    const company = response.body.data;
    expect(company).toMatchObject({
      company_name: 'Analytical Engines',
      website: 'https://WWW.Analytical.example:8443/about',
      website_domain: 'analytical.example',
      employee_size: '51-200',
      rating: 4,
      technologies: ['react', 'postgres'],
      created_by: owner.userId,
      enrichment: {},
    });
    expect(company.company_logo).toMatch(/^\/api\/storage-file\/download\/\d+$/);
    const logo = await call('GET', company.company_logo, { token: owner.token });
    expect(logo.status).toBe(200);
    expect(logo.headers.get('content-type')).toBe('image/png');
    expect((await view(company.id)).body.data).toEqual(company);
  });

  it('creates a company from JSON, with company_logo as a URL and technologies as a list', async () => {
    const response = await call('POST', '/api/company/add', {
      token: owner.token,
      body: {
        company_name: 'Json Engines',
        website: 'https://www.json-engines.example',
        rating: 3,
        technologies: ['react', 'kafka'],
        company_logo: 'https://cdn.example.com/json-engines.png',
      },
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body.data).toMatchObject({
      company_name: 'Json Engines',
      website_domain: 'json-engines.example',
      rating: 3,
      technologies: ['react', 'kafka'],
      company_logo: 'https://cdn.example.com/json-engines.png',
    });
    const missingName = await call('POST', '/api/company/add', { token: owner.token, body: { city: 'Paris' } });
    expectFailure(missingName, 422, 'validation_error');
    expect(missingName.body.error.code).toBe('company_name');
    const badLogo = await call('POST', '/api/company/add', {
      token: owner.token,
      body: { company_name: 'Json Bad Logo', company_logo: 'javascript:alert(1)' },
    });
    expectFailure(badLogo, 422, 'validation_error');
    expect(badLogo.body.error.code).toBe('company_logo');
  });

  it('takes company_logo as a URL in the form too', async () => {
    const response = await postCompany(owner, {
      company_name: 'Form Url Logo',
      company_logo: 'https://cdn.example.com/form.png',
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body.data.company_logo).toBe('https://cdn.example.com/form.png');
  });

  it('refuses a third media type, and a body without one, with 415 naming both it takes', async () => {
    for (const headers of [{ 'content-type': 'text/plain' }, {} as Record<string, string>]) {
      const response = await call('POST', '/api/company/add', {
        token: owner.token,
        rawBody: 'company_name=Plain',
        headers,
      });
      expectFailure(response, 415, 'unsupported_media_type');
      expect(response.body.error.message).toContain('application/json or multipart/form-data');
    }
  });

  it('refuses each invalid field with a 422 naming it', async () => {
    const cases: [Record<string, string | File>, string][] = [
      [{ city: 'Paris' }, 'company_name'],
      [{ company_name: 'R', rating: '6' }, 'rating'],
      [{ company_name: 'R', rating: '0' }, 'rating'],
      [{ company_name: 'R', employee_size: 'lots' }, 'employee_size'],
      [{ company_name: 'R', website: 'javascript:alert(1)' }, 'website'],
      [{ company_name: 'R', contact_email: 'not-an-email' }, 'contact_email'],
      [{ company_name: 'R', assigned_to: '999999999' }, 'assigned_to'],
      [
        { company_name: 'R', company_logo: new File(['<svg/>'], 'logo.svg', { type: 'image/svg+xml' }) },
        'company_logo',
      ],
    ];
    for (const [fields, field] of cases) {
      const response = await postCompany(owner, fields);
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code, JSON.stringify(fields)).toBe(field);
    }
  });

  it('refuses a second live company with the same name in any letter case, naming the first', async () => {
    const id = await createCompany(owner, { company_name: 'Duplicate Works' });
    const again = await postCompany(owner, { company_name: 'DUPLICATE works' });
    expectFailure(again, 409, 'conflict');
    expect(again.body.error).toMatchObject({ code: 'duplicate_company', details: { company_id: id } });
    // Another organization may use the name.
    expect((await postCompany(other, { company_name: 'Duplicate Works' })).status).toBe(201);
  });
});

describe('concurrent adds', () => {
  it('let exactly one company of a name through; the others get the declared 409', async () => {
    const name = `Racing ${crypto.randomUUID().slice(0, 6)}`;
    const answers = await Promise.all([1, 2, 3].map(() => postCompany(owner, { company_name: name })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409]);
    const winner = answers.find((answer) => answer.status === 201)?.body.data.id;
    for (const loser of answers.filter((answer) => answer.status === 409)) {
      expect(loser.body.error).toMatchObject({ code: 'duplicate_company', details: { company_id: winner } });
    }
  });
});

describe('concurrent renames', () => {
  // On PostgreSQL (TEST_DATABASE_URL) the losers hit the unique index without the name lock and
  // answered an anonymous 409 `duplicate`; PGlite runs one transaction at a time.
  it('let exactly one of ten companies take a name at once; the others get the declared 409 naming it', async () => {
    const ids = await Promise.all(Array.from({ length: 10 }, () => createCompany(owner)));
    const name = `Renamed ${crypto.randomUUID().slice(0, 6)}`;
    const answers = await Promise.all(
      ids.map((id, i) =>
        call('POST', `/api/company/update/${id}`, {
          token: owner.token,
          body: { company_name: i % 2 ? name.toUpperCase() : name },
        }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, ...Array(9).fill(409)]);
    const winner = answers.find((answer) => answer.status === 200)?.body.data.id;
    for (const loser of answers.filter((answer) => answer.status === 409)) {
      expect(loser.body.error).toMatchObject({ code: 'duplicate_company', details: { company_id: winner } });
    }
  });
});

describe('a rename racing an add of the same name', () => {
  // On PostgreSQL (TEST_DATABASE_URL) a rename whose check ran before a concurrent add (which takes
  // no name lock: its insert settles on the unique index) committed hit the index and answered an
  // anonymous 409 `duplicate` its contract does not list; PGlite runs one transaction at a time.
  it('answers either side that loses with the declared 409 duplicate_company naming the winner', async () => {
    const ids = await Promise.all(Array.from({ length: 12 }, () => createCompany(owner)));
    const names = ids.map(() => `Raced ${crypto.randomUUID().slice(0, 8)}`);
    const answers = await Promise.all(
      ids.flatMap((id, i) => [
        call('POST', `/api/company/update/${id}`, { token: owner.token, body: { company_name: names[i] } }),
        postCompany(owner, { company_name: names[i].toUpperCase() }),
      ]),
    );
    for (let i = 0; i < ids.length; i++) {
      const [renamed, added] = [answers[2 * i], answers[2 * i + 1]];
      expect([
        [200, 409],
        [409, 201],
      ]).toContainEqual([renamed.status, added.status]);
      const winner = renamed.status === 200 ? ids[i] : added.body.data.id;
      const loser = renamed.status === 200 ? added : renamed;
      expect(loser.body.error).toMatchObject({ code: 'duplicate_company', details: { company_id: winner } });
    }
  });
});

describe('view and update', () => {
  it('updates the fields sent, re-normalises the website and keeps the rest', async () => {
    const id = await createCompany(owner, { city: 'Berlin', rating: '2' });
    const updated = await call('POST', `/api/company/update/${id}`, {
      token: owner.token,
      body: {
        website: 'shop.example.org/path',
        rating: 5,
        technologies: ['kafka'],
        employee_size: null,
        company_logo: 'https://cdn.example.com/logo.png',
      },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.data).toMatchObject({
      city: 'Berlin',
      rating: 5,
      website_domain: 'shop.example.org',
      technologies: ['kafka'],
      employee_size: null,
      company_logo: 'https://cdn.example.com/logo.png',
    });
  });

  it('updates from a multipart form: an uploaded logo is stored, a URL replaces it, an empty field clears', async () => {
    const id = await createCompany(owner, { city: 'Lisbon', rating: '2' });
    const uploaded = await call('POST', `/api/company/update/${id}`, {
      token: owner.token,
      rawBody: companyForm({ company_logo: pngFile(), rating: '4', technologies: 'rust, go', city: '' }),
    });
    expect(uploaded.status, uploaded.text).toBe(200);
    expect(uploaded.body.data).toMatchObject({ rating: 4, technologies: ['rust', 'go'], city: null });
    expect(uploaded.body.data.company_logo).toMatch(/^\/api\/storage-file\/download\/\d+$/);
    const logo = await call('GET', uploaded.body.data.company_logo, { token: owner.token });
    expect([logo.status, logo.headers.get('content-type')]).toEqual([200, 'image/png']);

    const byUrl = await call('POST', `/api/company/update/${id}`, {
      token: owner.token,
      rawBody: companyForm({ company_logo: 'https://cdn.example.com/new.png' }),
    });
    expect(byUrl.status, byUrl.text).toBe(200);
    expect(byUrl.body.data).toMatchObject({ company_logo: 'https://cdn.example.com/new.png', rating: 4 });

    const notImage = await call('POST', `/api/company/update/${id}`, {
      token: owner.token,
      rawBody: companyForm({ company_logo: new File(['<svg/>'], 'logo.svg', { type: 'image/svg+xml' }) }),
    });
    expectFailure(notImage, 422, 'validation_error');
    expect(notImage.body.error.code).toBe('company_logo');
    const unknown = await call('POST', '/api/company/update/999999999', {
      token: owner.token,
      rawBody: companyForm({ company_logo: pngFile() }),
    });
    expectFailure(unknown, 404, 'not_found');
    const plain = await call('POST', `/api/company/update/${id}`, {
      token: owner.token,
      rawBody: 'rating=3',
      headers: { 'content-type': 'text/plain' },
    });
    expectFailure(plain, 415, 'unsupported_media_type');
  });

  it('renames the company on the leads linked to it', async () => {
    const id = await createCompany(owner, { company_name: `Old Name ${crypto.randomUUID().slice(0, 6)}` });
    const lead = await call('POST', '/api/lead/add', {
      token: owner.token,
      body: { first_name: 'Linked', last_name: 'Lead', company_id: id },
    });
    const name = `New Name ${crypto.randomUUID().slice(0, 6)}`;
    const renamed = await call('POST', `/api/company/update/${id}`, {
      token: owner.token,
      body: { company_name: name },
    });
    expect(renamed.body.data.company_name).toBe(name);
    const leadView = await call('GET', `/api/lead/view/${lead.body.data.id}`, { token: owner.token });
    expect(leadView.body.data).toMatchObject({ company_id: id, company: name });
  });

  it('refuses bad values (422 naming the field), a taken name (409) and unknown ids (404)', async () => {
    const id = await createCompany(owner);
    await createCompany(owner, { company_name: 'Taken Name' });
    for (const [body, field] of [
      [{ rating: 9 }, 'rating'],
      [{ employee_size: '10-20' }, 'employee_size'],
      [{ company_name: '' }, 'company_name'],
      [{ company_logo: 'file:///etc/passwd' }, 'company_logo'],
    ] as const) {
      const response = await call('POST', `/api/company/update/${id}`, { token: owner.token, body });
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code).toBe(field);
    }
    const taken = await call('POST', `/api/company/update/${id}`, {
      token: owner.token,
      body: { company_name: 'taken name' },
    });
    expect(taken.body.error).toMatchObject({ code: 'duplicate_company' });
    expectFailure(await view(2_000_000_000), 404, 'not_found');
    expectFailure(await view(id, other), 404, 'not_found');
  });
});

describe('GET /api/company/list', () => {
  let mine: number;
  let assigned: number;
  let theirs: number;

  beforeAll(async () => {
    const member = await addMember(owner, { first_name: 'Rep', last_name: 'One' });
    const rep: SignedUp = { ...owner, token: member.token, userId: member.userId };
    mine = await createCompany(owner, { industry_type: 'Listing Industry' });
    assigned = await createCompany(rep, { industry_type: 'listing industry', assigned_to: String(owner.userId) });
    theirs = await createCompany(rep, { industry_type: 'Other Listing' });
  });

  const ids = async (query: Record<string, string | number>) => {
    const response = await call('GET', '/api/company/list', { token: owner.token, query: { limit: 100, ...query } });
    expect(response.status, response.text).toBe(200);
    return (response.body.data as { id: number }[]).map((row) => row.id);
  };

  it('filters by my (created by or assigned to the caller), company_id, industry and date range', async () => {
    const my = await ids({ my: 'true' });
    expect(my).toEqual(expect.arrayContaining([mine, assigned]));
    expect(my).not.toContain(theirs);
    expect(await ids({ company_id: `${mine},${theirs}` })).toEqual([theirs, mine]);
    expect((await ids({ industry: 'LISTING INDUSTRY' })).sort()).toEqual([mine, assigned].sort());
    expect(await ids({ start_date: '2000-01-01', end_date: '2000-12-31' })).toEqual([]);
    expect(await ids({ search_value: 'Other Listing' })).toEqual([theirs]);
    expect(await ids({ order_by: 'id', order_in: 'ASC', company_id: `${theirs},${mine}` })).toEqual([mine, theirs]);
  });

  it('refuses malformed filters with 400 naming them', async () => {
    const response = await call('GET', '/api/company/list', { token: owner.token, query: { company_id: 'abc' } });
    expectFailure(response, 400, 'bad_request');
    expect(response.body.error.code).toBe('company_id');
  });

  it('answers a page and a view in at most 2 statements each', async () => {
    const listed = await statementsOf(() =>
      call('GET', '/api/company/list', { token: owner.token, query: { my: 'true' } }),
    );
    expect(listed.response.status).toBe(200);
    expect(listed.statements.length).toBeLessThanOrEqual(2);
    const viewed = await statementsOf(() => view(mine));
    expect(viewed.response.status).toBe(200);
    expect(viewed.statements.length).toBeLessThanOrEqual(2);
  });
});

describe('GET /api/company/stats', () => {
  it('counts by industry, size band and country, and leads and contacts per company, under the filters', async () => {
    const org = await signupOrganization('Stats');
    const a = await createCompany(org, { industry_type: 'Fintech', employee_size: '11-50', country: 'Germany' });
    const b = await createCompany(org, { industry_type: 'Fintech', employee_size: '51-200', country: 'Germany' });
    const c = await createCompany(org, { industry_type: 'Retail', country: 'France' });
    for (const name of ['Ann', 'Bob']) {
      const lead = await call('POST', '/api/lead/add', {
        token: org.token,
        body: { first_name: name, last_name: 'Stats', company_id: b },
      });
      expect(lead.status, lead.text).toBe(201);
    }
    await createContact(org, { company_id: b });
    await createContact(org, { company_id: a });
    const stats = await call('GET', '/api/company/stats', { token: org.token });
    expect(stats.status, stats.text).toBe(200);
    expect(stats.body.data).toEqual({
      total: 3,
      by_industry: [
        { value: 'Fintech', count: 2 },
        { value: 'Retail', count: 1 },
      ],
      by_employee_size: [
        { value: '11-50', count: 1 },
        { value: '51-200', count: 1 },
        { value: null, count: 1 },
      ],
      by_country: [
        { value: 'Germany', count: 2 },
        { value: 'France', count: 1 },
      ],
      companies: [
        {
          id: b,
          company_name: expect.any(String),
          lead_count: 2,
          contact_count: 1,
          open_deal_count: 0,
          open_pipeline_value: 0,
        },
        {
          id: a,
          company_name: expect.any(String),
          lead_count: 0,
          contact_count: 1,
          open_deal_count: 0,
          open_pipeline_value: 0,
        },
        {
          id: c,
          company_name: expect.any(String),
          lead_count: 0,
          contact_count: 0,
          open_deal_count: 0,
          open_pipeline_value: 0,
        },
      ],
    });
    const counted = await statementsOf(() => call('GET', '/api/company/stats', { token: org.token }));
    expect(counted.statements.length).toBeLessThanOrEqual(2);
    const filtered = await call('GET', '/api/company/stats', { token: org.token, query: { industry: 'retail' } });
    expect(filtered.body.data).toMatchObject({ total: 1, by_country: [{ value: 'France', count: 1 }] });
    // The list's range rule: a start_date after end_date is a 400, not statistics of nothing.
    const inverted = await call('GET', '/api/company/stats', {
      token: org.token,
      query: { start_date: '2026-03-02', end_date: '2026-03-01' },
    });
    expectFailure(inverted, 400, 'bad_request');
    expect(inverted.body.error.code).toBe('start_date');
  });
});

describe('GET /api/company/stats, values in any letter case', () => {
  it('counts an industry or a country once whatever its letter case, as the industry filter matches it', async () => {
    const org = await signupOrganization('Stats case');
    for (const [industry, country] of [
      ['SaaS', 'Germany'],
      ['SaaS', 'germany'],
      ['saas', 'Germany'],
      ['Retail', 'France'],
    ])
      await createCompany(org, { industry_type: industry, country });
    const stats = await call('GET', '/api/company/stats', { token: org.token });
    expect(stats.status, stats.text).toBe(200);
    // Each under its most used spelling.
    expect(stats.body.data.by_industry).toEqual([
      { value: 'SaaS', count: 3 },
      { value: 'Retail', count: 1 },
    ]);
    expect(stats.body.data.by_country).toEqual([
      { value: 'Germany', count: 3 },
      { value: 'France', count: 1 },
    ]);
    const filtered = await call('GET', '/api/company/stats', { token: org.token, query: { industry: 'saas' } });
    expect(filtered.body.data).toMatchObject({ total: 3, by_industry: [{ value: 'SaaS', count: 3 }] });
  });
});

describe('GET /api/company/similar/{id}', () => {
  it('ranks the other companies by the documented score and says why each matched', async () => {
    const org = await signupOrganization('Similar');
    const base = await createCompany(org, {
      industry_type: 'Software',
      employee_size: '51-200',
      country: 'Germany',
      technologies: 'react, postgres',
      summary: 'Payments platform for marketplaces',
    });
    const twin = await createCompany(org, {
      industry_type: 'software',
      employee_size: '51-200',
      country: 'germany',
      technologies: 'React, Postgres, Kafka',
      summary: 'Marketplaces payments',
    });
    const near = await createCompany(org, { industry_type: 'Software', employee_size: '201-500' });
    const keywords = await createCompany(org, { summary: 'We build marketplaces' });
    await createCompany(org, { industry_type: 'Retail', employee_size: '10001+' });
    const response = await call('GET', `/api/company/similar/${base}`, { token: org.token });
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toEqual([
      expect.objectContaining({
        id: twin,
        // 3 industry + 2 band + 1 country + 2 technologies + 2 keywords × 0.5 = 9 of 10
        score: 0.9,
        reasons: [
          'same industry: software',
          'same size band: 51-200',
          'same country: germany',
          'shared technologies: postgres, react',
          'shared summary keywords: marketplaces, payments',
        ],
      }),
      expect.objectContaining({
        id: near,
        score: 0.4,
        reasons: ['same industry: Software', 'adjacent size band: 201-500'],
      }),
      expect.objectContaining({ id: keywords, score: 0.05, reasons: ['shared summary keywords: marketplaces'] }),
    ]);
    expectFailure(await call('GET', '/api/company/similar/2000000000', { token: org.token }), 404, 'not_found');
  });
});

describe('deleting companies', () => {
  it('hides the company while its contacts and leads keep their link', async () => {
    const id = await createCompany(owner, { company_name: `Going ${crypto.randomUUID().slice(0, 6)}` });
    const contact = await createContact(owner, { company_id: id });
    const lead = await call('POST', '/api/lead/add', {
      token: owner.token,
      body: { first_name: 'Keeps', last_name: 'History', company_id: id },
    });
    const deleted = await call('DELETE', `/api/company/delete/${id}`, { token: owner.token });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body.data).toEqual({ id });
    expectFailure(await view(id), 404, 'not_found');
    expectFailure(await call('DELETE', `/api/company/delete/${id}`, { token: owner.token }), 404, 'not_found');
    const contactView = await call('GET', `/api/contact/view/${contact}`, { token: owner.token });
    expect(contactView.body.data.company_id).toBe(id);
    const leadView = await call('GET', `/api/lead/view/${lead.body.data.id}`, { token: owner.token });
    expect(leadView.body.data).toMatchObject({ company_id: id, company: lead.body.data.company });
  });

  it('deletes by ids or select_all with filters, ignoring other organizations’ ids', async () => {
    const industry = `Bulk ${crypto.randomUUID().slice(0, 6)}`;
    const a = await createCompany(owner, { industry_type: industry });
    const b = await createCompany(owner, { industry_type: industry });
    const keep = await createCompany(owner);
    const foreign = await createCompany(other);
    const byIds = await call('DELETE', '/api/company/delete', { token: owner.token, body: { ids: [a, foreign] } });
    expect(byIds.body.data).toEqual({ deleted: 1 });
    expect((await view(foreign, other)).status).toBe(200);
    const byFilter = await call('DELETE', '/api/company/delete', {
      token: owner.token,
      body: { select_all: true, filters: { industry } },
    });
    expect(byFilter.body.data).toEqual({ deleted: 1 });
    expectFailure(await view(b), 404, 'not_found');
    expect((await view(keep)).status).toBe(200);
    const neither = await call('DELETE', '/api/company/delete', { token: owner.token, body: {} });
    expectFailure(neither, 422, 'validation_error');
    expect(neither.body.error.code).toBe('ids');
  });

  it('refuses a company with open deals (409 naming it, nothing deleted) unless forced; won deals do not hold it', async () => {
    const pipeline = await defaultPipeline(owner);
    const won = pipeline.stages.find((stage) => stage.is_won) as StageRow;
    const held = await createCompany(owner, { company_name: `Held ${crypto.randomUUID().slice(0, 6)}` });
    const free = await createCompany(owner, { company_name: `Free ${crypto.randomUUID().slice(0, 6)}` });
    const heldLead = await call('POST', '/api/lead/add', {
      token: owner.token,
      body: { first_name: 'Open', last_name: 'Deal', company_id: held },
    });
    const freeLead = await call('POST', '/api/lead/add', {
      token: owner.token,
      body: { first_name: 'Won', last_name: 'Deal', company_id: free },
    });
    await addDeal(owner, pipeline, { lead_id: heldLead.body.data.id, value: 1500 });
    await addDeal(owner, pipeline, { lead_id: heldLead.body.data.id, value: 2500 });
    await addDeal(owner, pipeline, { lead_id: freeLead.body.data.id, stage_id: won.id, value: 9000 });

    const stats = await call('GET', '/api/company/stats', { token: owner.token, query: { company_id: held } });
    expect(stats.body.data.companies).toEqual([
      expect.objectContaining({ id: held, lead_count: 1, open_deal_count: 2, open_pipeline_value: 4000 }),
    ]);
    const freeStats = await call('GET', '/api/company/stats', { token: owner.token, query: { company_id: free } });
    expect(freeStats.body.data.companies).toEqual([
      expect.objectContaining({ id: free, open_deal_count: 0, open_pipeline_value: 0 }),
    ]);

    const refused = await call('DELETE', `/api/company/delete/${held}`, { token: owner.token });
    expectFailure(refused, 409, 'conflict');
    expect(refused.body.error).toMatchObject({ code: 'company_has_open_deals', details: { company_ids: [held] } });
    const refusedBulk = await call('DELETE', '/api/company/delete', {
      token: owner.token,
      body: { ids: [held, free] },
    });
    expectFailure(refusedBulk, 409, 'conflict');
    expect(refusedBulk.body.error.details).toEqual({ company_ids: [held] });
    expect((await view(held)).status).toBe(200);
    expect((await view(free)).status).toBe(200);

    const forced = await call('DELETE', `/api/company/delete/${held}`, {
      token: owner.token,
      query: { force: 'true' },
    });
    expect(forced.status, forced.text).toBe(200);
    expectFailure(await view(held), 404, 'not_found');
    const freed = await call('DELETE', '/api/company/delete', { token: owner.token, body: { ids: [free] } });
    expect(freed.body.data).toEqual({ deleted: 1 });
  });
});
