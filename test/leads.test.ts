/**
 * The lead record: create, view, update, delete (spec "Lead" and "Leads").
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { env } from 'cloudflare:workers';
import { observeStatements, withOwnDatabase } from '../src/db/client';
import { leads } from '../src/db/schema';
import { readConfig } from '../src/env';
import { type ApiResponse, call, expectFailure, signupOrganization, uniqueEmail, type SignedUp } from './helpers/api';
import { settleLeadScoring } from './helpers/scoring';

let org: SignedUp;
let other: SignedUp;
let tagIds: Record<string, number>;

async function addLead(body: Record<string, unknown>, who: SignedUp = org) {
  return call('POST', '/api/lead/add', {
    token: who.token,
    body: { first_name: 'Ada', last_name: 'Lovelace', ...body },
  });
}

beforeAll(async () => {
  [org, other] = await Promise.all([signupOrganization('Leads'), signupOrganization('Other')]);
  const tags = await call('GET', '/api/custom-lookups/list', {
    token: org.token,
    query: { module_name: 'lead', type: 'tags', limit: 100 },
  });
  tagIds = Object.fromEntries(tags.body.data.map((tag: { name: string; id: number }) => [tag.name, tag.id]));
});

describe('POST /api/lead/add', () => {
  it('creates a lead with resolved labels, tag objects, the first status by default and a linked company', async () => {
    const response = await addLead({
      email: '  Ada.Lovelace@Example.COM ',
      phone_number: '+44 20 7946 0000',
      company: 'Analytical Engines',
      job_title: 'Mathematician',
      priority: 3,
      lead_source: 2,
      estimated_value: 1250.5,
      assigned_to: org.userId,
      tags: [tagIds.Hot, tagIds.VIP],
      custom_fields: { budget: '10k', newsletter: true },
      notes: 'Met at the conference',
    });
    expect(response.status).toBe(201);
    const lead = response.body.data;
    expect(lead).toMatchObject({
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: 'Ada.Lovelace@example.com',
      company: 'Analytical Engines',
      status: 1,
      status_text: 'New',
      priority: 3,
      priority_text: 'High',
      lead_source: 2,
      lead_source_text: 'Referral',
      score: 0,
      estimated_value: 1250.5,
      assigned_to: org.userId,
      custom_fields: { budget: '10k', newsletter: true },
      ai_information: {},
      last_activity_at: null,
    });
    expect(lead.company_id).toEqual(expect.any(Number));
    expect(lead.tags).toEqual([
      { id: tagIds.Hot, name: 'Hot', color: expect.any(String) },
      { id: tagIds.VIP, name: 'VIP', color: expect.any(String) },
    ]);
    // Scoring (queued by the creation) writes score, fit, engagement and ai_information.score (shown
    // as score_factors) a moment later, and nothing else: once it has, the view is the created lead plus those.
    await settleLeadScoring(org);
    const viewed = await call('GET', `/api/lead/view/${lead.id}`, { token: org.token });
    const explanation = viewed.body.data.ai_information.score;
    expect(viewed.body.data).toEqual({
      ...lead,
      score: explanation.score,
      fit_score: explanation.fit,
      engagement_score: explanation.engagement,
      score_factors: {
        positive_factors: explanation.positive_factors,
        negative_factors: explanation.negative_factors,
      },
      ai_information: { ...lead.ai_information, score: explanation },
    });
    expect(explanation).toMatchObject({ model_kind: 'default', scored_at: expect.any(String) });
  });

  it('links a company of the same name case-insensitively instead of creating another', async () => {
    const first = await addLead({ company: 'Babbage & Co' });
    const second = await addLead({ company: 'BABBAGE & CO' });
    expect(second.body.data.company_id).toBe(first.body.data.company_id);
    expect(second.body.data.company).toBe('Babbage & Co');
  });

  it('links a company by name on update in any case the database folds alike, a dotted İ included', async () => {
    // PostgreSQL's lower() folds 'İZMİR' and 'izmir' to one key (the unique index's); JavaScript's
    // toLowerCase gives 'i̇zmi̇r' (i with a combining dot), so keyed in JavaScript the update found
    // the company and did not link it.
    const first = await addLead({ company: 'İZMİR TEKSTİL' });
    const second = await addLead({});
    const updated = await call('POST', `/api/lead/update/${second.body.data.id}`, {
      token: org.token,
      body: { company: 'izmir tekstil' },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.data).toMatchObject({ company_id: first.body.data.company_id, company: 'İZMİR TEKSTİL' });
  });

  it('writes companies only for a lead that names one: without a name its statement leaves the upsert out', async () => {
    const inserts: string[] = [];
    const stop = observeStatements((text) => {
      if (text.includes('insert into "leads"')) inserts.push(text);
    });
    let named: Awaited<ReturnType<typeof addLead>>;
    let unnamed: Awaited<ReturnType<typeof addLead>>;
    try {
      named = await addLead({ company: 'Lovelace Engines' });
      unnamed = await addLead({});
    } finally {
      stop();
    }
    expect(named.body.data).toMatchObject({ company: 'Lovelace Engines', company_id: expect.any(Number) });
    expect(unnamed.body.data).toMatchObject({ company: null, company_id: null });
    expect(inserts).toHaveLength(2);
    expect(inserts[0]).toContain('insert into "companies"');
    expect(inserts[1]).not.toContain('insert into "companies"');
  });

  it('answers 409 duplicate_lead with the existing id for an email already in the organization, in any case', async () => {
    const email = uniqueEmail('dup');
    const first = await addLead({ email });
    const again = await addLead({ email: email.toUpperCase().replace(/@.*/, (domain) => domain.toLowerCase()) });
    expectFailure(again, 409, 'conflict');
    expect(again.body.error.code).toBe('duplicate_lead');
    expect(again.body.error.details).toMatchObject({ lead_id: first.body.data.id });
  });

  it('with merge: 1 updates the lead holding the email (200), with duplicate: 1 creates another (201), never both', async () => {
    const email = uniqueEmail('modes');
    const first = await addLead({ email, city: 'Paris', tags: [tagIds.Hot], custom_fields: { a: 1 } });
    expect(first.status, first.text).toBe(201);
    const merged = await addLead({
      email: email.toUpperCase(),
      job_title: 'CTO',
      tags: [tagIds.VIP],
      custom_fields: { b: 2 },
      merge: 1,
    });
    expect(merged.status, merged.text).toBe(200);
    expect(merged.body.data).toMatchObject({
      id: first.body.data.id,
      city: 'Paris',
      job_title: 'CTO',
      custom_fields: { a: 1, b: 2 },
    });
    expect(merged.body.data.tags.map((tag: { name: string }) => tag.name).sort()).toEqual(['Hot', 'VIP']);
    const duplicate = await addLead({ email, duplicate: true });
    expect(duplicate.status, duplicate.text).toBe(201);
    expect(duplicate.body.data.id).not.toBe(first.body.data.id);
    // The original still holds the email for later creates.
    expect((await addLead({ email })).body.error.details.lead_id).toBe(first.body.data.id);
    // merge: 1 without a duplicate simply creates.
    expect((await addLead({ email: uniqueEmail('modes-new'), merge: '1' })).status).toBe(201);
    const both = await addLead({ email, merge: 1, duplicate: 1 });
    expectFailure(both, 422, 'validation_error');
    expect(both.body.error.code).toBe('merge');
  });

  it('lets another organization and a deleted lead’s email be used again', async () => {
    const email = uniqueEmail('reuse');
    const first = await addLead({ email });
    expect((await addLead({ email }, other)).status).toBe(201);
    await call('DELETE', '/api/lead/delete', { token: org.token, body: { ids: [first.body.data.id] } });
    expect((await addLead({ email })).status).toBe(201);
  });

  it('creates only one lead when the same email arrives concurrently', async () => {
    const email = uniqueEmail('race');
    const responses = await Promise.all(Array.from({ length: 4 }, () => addLead({ email })));
    expect(responses.map((response) => response.status).sort()).toEqual([201, 409, 409, 409]);
  });

  it('answers 422 naming the field for short names, bad emails and unknown references', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ first_name: ' A ' }, 'first_name'],
      [{ last_name: 'x'.repeat(51) }, 'last_name'],
      [{ email: 'not-an-email' }, 'email'],
      [{ status: 99 }, 'status'],
      [{ priority: 9 }, 'priority'],
      [{ lead_source: 6 }, 'lead_source'],
      [{ tags: [999_999] }, 'tags.0'],
      [{ assigned_to: other.userId }, 'assigned_to'],
      [{ estimated_value: -1 }, 'estimated_value'],
    ];
    for (const [body, field] of cases) {
      const response = await addLead(body);
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code, JSON.stringify(body)).toBe(field);
    }
  });

  it('refuses another organization’s tag ids', async () => {
    const response = await addLead({ tags: [tagIds.Hot] }, other);
    expectFailure(response, 422, 'validation_error');
    expect(response.body.error.code).toBe('tags.0');
  });

  it('never stores read-only fields from input', async () => {
    const response = await addLead({
      score: 99,
      ai_information: { x: 1 },
      last_activity_at: '2020-01-01',
      created_at: '2000-01-01',
      id: 1,
      status_text: 'Won',
    });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({
      score: 0,
      ai_information: {},
      last_activity_at: null,
      status_text: 'New',
    });
    expect(response.body.data.created_at.startsWith('2000')).toBe(false);
  });
});

describe('GET /api/lead/view/{id}', () => {
  it('answers 404 for another organization’s lead and for a deleted lead', async () => {
    const lead = (await addLead({})).body.data;
    expectFailure(await call('GET', `/api/lead/view/${lead.id}`, { token: other.token }), 404, 'not_found');
    await call('DELETE', '/api/lead/delete', { token: org.token, body: { ids: [lead.id] } });
    expectFailure(await call('GET', `/api/lead/view/${lead.id}`, { token: org.token }), 404, 'not_found');
  });
});

describe('POST /api/lead/update/{id}', () => {
  it('changes given fields only and merges custom_fields and ai_information key by key', async () => {
    const lead = (await addLead({ email: uniqueEmail('upd'), city: 'London', custom_fields: { a: 1, b: 2 } })).body
      .data;
    const first = await call('POST', `/api/lead/update/${lead.id}`, {
      token: org.token,
      body: {
        job_title: 'Countess',
        custom_fields: { b: null, c: 'new' },
        ai_information: { summary: 'x', industry: 'math' },
        status: 3,
      },
    });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({
      city: 'London',
      job_title: 'Countess',
      status: 3,
      status_text: 'Qualified',
      custom_fields: { a: 1, c: 'new' },
    });
    const second = await call('POST', `/api/lead/update/${lead.id}`, {
      token: org.token,
      body: { ai_information: { summary: null, score_reason: 'fit' } },
    });
    // `score` is lead scoring's own key (written by its job whenever it lands): the user's keys merge around it.
    const { score: _byScoring, ...merged } = second.body.data.ai_information;
    expect(merged).toEqual({ industry: 'math', score_reason: 'fit' });
    expect(second.body.data.custom_fields).toEqual({ a: 1, c: 'new' });
  });

  it('refuses to set or remove the keys the service writes in ai_information (score, enrichment), naming them, and changes nothing', async () => {
    const lead = (await addLead({ email: uniqueEmail('own-keys') })).body.data;
    await settleLeadScoring(org);
    const before = (await call('GET', `/api/lead/view/${lead.id}`, { token: org.token })).body.data;
    expect(before.ai_information.score).toMatchObject({ score: before.score });
    const attempts: [Record<string, unknown>, string][] = [
      [{ score: { score: 99, positive_factors: [{ feature: 'made_up', value: 1, contribution: 9 }] } }, 'score'],
      [{ score: null }, 'score'],
      [{ summary: 'kept?', enrichment: { provider: 'apollo', fields: {} } }, 'enrichment'],
      [{ enrichment: null }, 'enrichment'],
    ];
    for (const [aiInformation, key] of attempts) {
      const refused = await call('POST', `/api/lead/update/${lead.id}`, {
        token: org.token,
        body: { job_title: 'Changed', ai_information: aiInformation },
      });
      expectFailure(refused, 422, 'validation_error');
      expect(refused.body.error.code).toBe(`ai_information.${key}`);
      expect(refused.body.error.message).toMatch(/read-only/);
    }
    const after = (await call('GET', `/api/lead/view/${lead.id}`, { token: org.token })).body.data;
    expect(after).toEqual(before);
  });

  it('replaces tags, relinks the company and clears fields set to null', async () => {
    const lead = (await addLead({ tags: [tagIds.Hot], company: 'Old Co', city: 'Paris' })).body.data;
    const response = await call('POST', `/api/lead/update/${lead.id}`, {
      token: org.token,
      body: { tags: [tagIds.Cold], company: 'New Co', city: null },
    });
    expect(response.body.data.tags.map((tag: { name: string }) => tag.name)).toEqual(['Cold']);
    expect(response.body.data).toMatchObject({ company: 'New Co', city: null });
    expect(response.body.data.company_id).not.toBe(lead.company_id);
  });

  it('answers 409 when the new email belongs to another live lead, and accepts its own email', async () => {
    const taken = uniqueEmail('taken');
    const holder = (await addLead({ email: taken })).body.data;
    const lead = (await addLead({ email: uniqueEmail('mine') })).body.data;
    const clash = await call('POST', `/api/lead/update/${lead.id}`, { token: org.token, body: { email: taken } });
    expectFailure(clash, 409, 'conflict');
    expect(clash.body.error.details).toMatchObject({ lead_id: holder.id });
    expect(
      (
        await call('POST', `/api/lead/update/${lead.id}`, {
          token: org.token,
          body: { email: lead.email.toUpperCase().replace(/@.*/, (d: string) => d.toLowerCase()) },
        })
      ).status,
    ).toBe(200);
  });

  it('refuses an empty status and unknown references with 422', async () => {
    const lead = (await addLead({})).body.data;
    for (const [body, field] of [
      [{ status: null }, 'status'],
      [{ assigned_to: 999_999 }, 'assigned_to'],
      [{ first_name: 'A' }, 'first_name'],
    ] as const) {
      const response = await call('POST', `/api/lead/update/${lead.id}`, { token: org.token, body });
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code).toBe(field);
    }
  });
});

describe('concurrent lead updates', () => {
  // On PostgreSQL (TEST_DATABASE_URL) the losers hit the profile URL's unique index without its
  // lock and answered an anonymous 409 `duplicate`; PGlite runs one transaction at a time.
  it('give one profile URL to exactly one of ten leads at once; the others get 409 duplicate_lead naming it', async () => {
    const org = await signupOrganization('Lead races');
    const ids = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const response = await call('POST', '/api/lead/add', {
          token: org.token,
          body: { first_name: 'Race', last_name: `Runner${i}`, email: uniqueEmail('own') },
        });
        return response.body.data.id as number;
      }),
    );
    const slug = crypto.randomUUID().slice(0, 8);
    const answers = await Promise.all(
      ids.map((id, i) =>
        call('POST', `/api/lead/update/${id}`, {
          token: org.token,
          // Spellings of one profile (compared normalised).
          body: { profile_url: i % 2 ? `https://LinkedIn.com/in/${slug}/` : `http://linkedin.com/in/${slug}` },
        }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, ...Array(9).fill(409)]);
    const winner = answers.find((answer) => answer.status === 200)?.body.data.id;
    for (const loser of answers.filter((answer) => answer.status === 409)) {
      expect(loser.body.error).toMatchObject({
        code: 'duplicate_lead',
        details: { lead_id: winner, field: 'profile_url' },
      });
    }
  });
});

describe('an email or profile URL change racing a create of the same key', () => {
  // A create takes no key lock (its insert settles on the unique indexes). Here one has inserted
  // the key and not yet committed when the update checks: the check cannot see it, the update's
  // write waits for it, and once it commits the index refuses the update. On PostgreSQL
  // (TEST_DATABASE_URL) that was an anonymous 409 `duplicate` the contract does not list; PGlite
  // runs one transaction at a time, so there the update checks after the commit.
  for (const field of ['email', 'profile_url'] as const) {
    it(`answers the update with the declared 409 duplicate_lead naming the new holder of the ${field}`, async () => {
      const own = await call('POST', '/api/lead/add', {
        token: org.token,
        body: { first_name: 'Slow', last_name: 'Updater', email: uniqueEmail('own') },
      });
      const value =
        field === 'email' ? uniqueEmail('raced') : `https://linkedin.com/in/${crypto.randomUUID().slice(0, 8)}`;
      let update: Promise<ApiResponse> | undefined;
      const holder = await withOwnDatabase(readConfig(env), (db) =>
        db.transaction(async (tx) => {
          const [row] = await tx
            .insert(leads)
            .values({
              organizationId: org.orgId,
              firstName: 'Fast',
              lastName: 'Creator',
              status: 1,
              ...(field === 'email' ? { email: value } : { profileUrl: value }),
            })
            .returning({ id: leads.id });
          update = call('POST', `/api/lead/update/${own.body.data.id}`, { token: org.token, body: { [field]: value } });
          // The update checks meanwhile (on PostgreSQL), then waits on the index for this commit.
          await new Promise((resolve) => setTimeout(resolve, 500));
          return row.id;
        }),
      );
      const answer = await (update as Promise<ApiResponse>);
      expectFailure(answer, 409, 'conflict');
      expect(answer.body.error).toMatchObject({ code: 'duplicate_lead', details: { lead_id: holder, field } });
    });
  }
});

describe('custom field endpoints', () => {
  it('POST /api/lead/update-custom-fields merges and POST /api/lead/custom-field sets or removes one key', async () => {
    const lead = (await addLead({ custom_fields: { a: 1 } })).body.data;
    const merged = await call('POST', '/api/lead/update-custom-fields', {
      token: org.token,
      body: { lead_id: lead.id, custom_fields: { b: 'two' } },
    });
    expect(merged.body.data.custom_fields).toEqual({ a: 1, b: 'two' });
    const set = await call('POST', '/api/lead/custom-field', {
      token: org.token,
      body: { lead_id: lead.id, field_name: 'c', field_value: 3 },
    });
    expect(set.body.data.custom_fields).toEqual({ a: 1, b: 'two', c: 3 });
    const removed = await call('POST', '/api/lead/custom-field', {
      token: org.token,
      body: { lead_id: lead.id, field_name: 'a' },
    });
    expect(removed.body.data.custom_fields).toEqual({ b: 'two', c: 3 });
  });

  it('answers 404 for a lead of another organization', async () => {
    const lead = (await addLead({})).body.data;
    expectFailure(
      await call('POST', '/api/lead/custom-field', {
        token: other.token,
        body: { lead_id: lead.id, field_name: 'x', field_value: 1 },
      }),
      404,
      'not_found',
    );
  });
});

describe('DELETE /api/lead/delete', () => {
  it('soft-deletes and says how many; unknown, repeated and foreign ids change nothing', async () => {
    const mine = [(await addLead({})).body.data.id, (await addLead({})).body.data.id];
    const foreign = (await addLead({}, other)).body.data.id;
    const response = await call('DELETE', '/api/lead/delete', {
      token: org.token,
      body: { ids: [...mine, foreign, 999_999_999] },
    });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ deleted: 2 });
    expect((await call('DELETE', '/api/lead/delete', { token: org.token, body: { ids: mine } })).body.data).toEqual({
      deleted: 0,
    });
    expect((await call('GET', `/api/lead/view/${foreign}`, { token: other.token })).status).toBe(200);
    const listed = await call('GET', '/api/lead/list', { token: org.token, query: { limit: 100 } });
    expect(listed.body.data.map((lead: { id: number }) => lead.id)).not.toContain(mine[0]);
  });

  it('refuses an empty id list with 422', async () => {
    expectFailure(
      await call('DELETE', '/api/lead/delete', { token: org.token, body: { ids: [] } }),
      422,
      'validation_error',
    );
  });
});

describe('GET /api/user/global-search', () => {
  it('has a leads section searched like the lead list', async () => {
    const lead = (await addLead({ first_name: 'Searchable', last_name: 'Zebra', email: uniqueEmail('zebra') })).body
      .data;
    const response = await call('GET', '/api/user/global-search', {
      token: org.token,
      query: { search_value: 'zebra' },
    });
    expect(response.status).toBe(200);
    expect(response.body.data.leads.map((found: { id: number }) => found.id)).toEqual([lead.id]);
    expect(
      (await call('GET', '/api/user/global-search', { token: other.token, query: { search_value: 'zebra' } })).body.data
        .leads,
    ).toEqual([]);
  });
});
