/**
 * POST /api/v1/lead and GET /api/v1/lead/lead-list (spec "Ingestion by API key"): the numbered
 * rules, dedupe by email and normalised profile URL, duplicate and merge, the race between two
 * identical submissions, Idempotency-Key, key refusals, and the statement budget on a warm key.
 */
import { env } from 'cloudflare:workers';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { withOwnDatabase } from '../src/db/client';
import { isUniqueViolation } from '../src/db/errors';
import { readConfig } from '../src/env';
import { call, expectFailure, type SignedUp, signupOrganization, uniqueEmail } from './helpers/api';
import { statementsOf } from './helpers/statements';

const migrations = import.meta.glob<string>('../drizzle/0082_active_tag_names.sql', {
  query: '?raw',
  import: 'default',
  eager: true,
});

async function newKey(owner: SignedUp, body: Record<string, unknown> = {}): Promise<{ key: string; id: number }> {
  const response = await call('POST', '/api/api-keys/add', { token: owner.token, body: { name: 'site', ...body } });
  expect(response.status, response.text).toBe(201);
  return { key: response.body.data.key, id: response.body.data.id };
}

function ingest(apiKey: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return call('POST', '/api/v1/lead', { apiKey, body, headers });
}

describe('POST /api/v1/lead', () => {
  let owner: SignedUp;
  let other: SignedUp;
  let apiKey: string;

  beforeAll(async () => {
    [owner, other] = await Promise.all([signupOrganization('Ingest'), signupOrganization('Ingest other')]);
    apiKey = (await newKey(owner)).key;
  });

  it('creates the lead in the key’s organization with the defaults, unlisted fields under custom_fields', async () => {
    const email = uniqueEmail('ingest');
    const response = await ingest(apiKey, {
      email,
      first_name: 'Ada',
      company: 'Engines Ltd',
      custom_fields: { budget: '10k' },
      utm_campaign: 'spring',
      city: 'London',
    });
    expect(response.status, response.text).toBe(201);
    const data = response.body.data;
    expect(data).toMatchObject({ email, first_name: 'Ada', company: 'Engines Ltd', status: 1, priority: 2, score: 0 });
    expect(Object.keys(data).sort()).toEqual(
      ['company', 'created_at', 'email', 'first_name', 'id', 'priority', 'score', 'status'].sort(),
    );
    const view = await call('GET', `/api/lead/view/${data.id}`, { token: owner.token });
    expect(view.status).toBe(200);
    expect(view.body.data.custom_fields).toEqual({ budget: '10k', utm_campaign: 'spring', city: 'London' });
    expect(view.body.data.city).toBeNull();
    const foreign = await call('GET', `/api/lead/view/${data.id}`, { token: other.token });
    expect(foreign.status).toBe(404);
  });

  it('needs one of email, phone_number, profile_url (422), and accepts each alone', async () => {
    const none = await ingest(apiKey, { first_name: 'Nobody' });
    expectFailure(none, 422, 'validation_error');
    expect(none.body.error.code).toBe('email');
    expect(none.body.error.message).toContain('phone_number');
    expect((await ingest(apiKey, { phone_number: '+1 555 0100' })).status).toBe(201);
    const byProfile = await ingest(apiKey, { profile_url: `https://www.linkedin.com/in/${crypto.randomUUID()}` });
    expect(byProfile.status, byProfile.text).toBe(201);
    expect(byProfile.body.data.first_name).toBe('');
  });

  it('refuses out-of-range and malformed fields with 422 naming the field', async () => {
    for (const [field, value] of [
      ['priority', 5],
      ['lead_source', 6],
      ['lead_source', 0],
      ['email', 'not-an-email'],
      ['first_name', 'A'],
      ['profile_url', 'javascript:alert(1)'],
      ['tags', 'vip'],
      ['custom_fields', 'x'],
      ['duplicate', 'maybe'],
      ['status', 999],
    ] as const) {
      const response = await ingest(apiKey, { email: uniqueEmail('bad'), [field]: value });
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code, `${field}=${value}`).toBe(field);
    }
    const both = await ingest(apiKey, { email: uniqueEmail('both'), duplicate: 1, merge: 1 });
    expect(both.body.error.code).toBe('merge');
  });

  it('creates tags named for the first time as tag lookups, and reuses them after', async () => {
    const name = `tag-${crypto.randomUUID().slice(0, 8)}`;
    const first = await ingest(apiKey, { email: uniqueEmail('tag'), tags: [name, name.toUpperCase()] });
    expect(first.status, first.text).toBe(201);
    const second = await ingest(apiKey, { email: uniqueEmail('tag'), tags: [name] });
    const views = await Promise.all(
      [first, second].map((r) => call('GET', `/api/lead/view/${r.body.data.id}`, { token: owner.token })),
    );
    const tagsOf = (view: (typeof views)[number]) => view.body.data.tags.map((tag: { name: string }) => tag.name);
    expect(tagsOf(views[0])).toEqual([name]);
    expect(views[1].body.data.tags).toEqual(views[0].body.data.tags);
  });

  // On PostgreSQL (TEST_DATABASE_URL), before the partial unique index on active tag names (migration
  // 0082) and the insert's ON CONFLICT, each statement's snapshot missed the others' uncommitted
  // inserts: ten first uses of one name created 3 to 5 tags. PGlite runs one statement at a time.
  it('ten concurrent first uses of one new tag name create one active tag, and every lead has it', async () => {
    const who = await signupOrganization('Ingest tag race');
    const key = (await newKey(who)).key;
    // A warm key: the ten go straight to the tag statement, as a busy form's submissions do.
    expect((await ingest(key, { email: uniqueEmail('tag-race-warm') })).status).toBe(201);
    const name = `new-${crypto.randomUUID().slice(0, 8)}`;
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        ingest(key, { email: uniqueEmail('tag-race'), tags: [i % 2 ? name.toUpperCase() : name] }),
      ),
    );
    expect(
      responses.map((r) => r.status),
      responses.map((r) => r.text).join('\n'),
    ).toEqual(Array(10).fill(201));
    const listed = await call('GET', '/api/custom-lookups/list', {
      token: who.token,
      query: { module_name: 'lead', type: 'tags', limit: 100 },
    });
    expect(listed.status).toBe(200);
    const named = (listed.body.data as { id: number; name: string; is_active: boolean }[]).filter(
      (tag) => tag.name.toLowerCase() === name,
    );
    expect(named).toHaveLength(1);
    expect(named[0].is_active).toBe(true);
    const views = await Promise.all(
      responses.map((r) => call('GET', `/api/lead/view/${r.body.data.id}`, { token: who.token })),
    );
    for (const view of views) expect(view.body.data.tags.map((tag: { id: number }) => tag.id)).toEqual([named[0].id]);
  });

  it('answers 409 duplicate_lead with the existing id for the same email in any case', async () => {
    const email = uniqueEmail('dup');
    const first = await ingest(apiKey, { email });
    const again = await ingest(apiKey, { email: email.toUpperCase() });
    expectFailure(again, 409, 'conflict');
    expect(again.body.error).toMatchObject({
      code: 'duplicate_lead',
      details: { lead_id: first.body.data.id, field: 'email' },
    });
    // Another organization's key is not bothered by it.
    const otherKey = (await newKey(other)).key;
    expect((await ingest(otherKey, { email })).status).toBe(201);
  });

  it('compares profile URLs without scheme, host case, query string and trailing slash', async () => {
    const path = `/in/Ada-${crypto.randomUUID().slice(0, 8)}`;
    const first = await ingest(apiKey, { profile_url: `https://www.LinkedIn.com${path}` });
    expect(first.status, first.text).toBe(201);
    for (const variant of [
      `http://www.linkedin.com${path}/`,
      `www.linkedin.com${path}?utm_source=mail`,
      `HTTPS://WWW.LINKEDIN.COM${path}//#about`,
    ]) {
      const again = await ingest(apiKey, { profile_url: variant });
      expectFailure(again, 409, 'conflict');
      expect(again.body.error.details, variant).toEqual({ lead_id: first.body.data.id, field: 'profile_url' });
    }
    // The path keeps its case.
    expect((await ingest(apiKey, { profile_url: `https://www.linkedin.com${path.toLowerCase()}` })).status).toBe(201);
  });

  it('with duplicate: 1 creates the duplicate anyway, and the original still answers 409 after', async () => {
    const email = uniqueEmail('twice');
    const first = await ingest(apiKey, { email });
    const second = await ingest(apiKey, { email, duplicate: 1 });
    expect(second.status, second.text).toBe(201);
    expect(second.body.data.id).not.toBe(first.body.data.id);
    const third = await ingest(apiKey, { email });
    expect(third.body.error.details.lead_id).toBe(first.body.data.id);
  });

  it('with merge: 1 updates the existing lead (given values win, custom fields merge, tags add) and answers 200', async () => {
    const email = uniqueEmail('merge');
    const tagA = `a-${crypto.randomUUID().slice(0, 6)}`;
    const tagB = `b-${crypto.randomUUID().slice(0, 6)}`;
    const first = await ingest(apiKey, {
      email,
      first_name: 'Ada',
      company: 'Old Co',
      job_title: 'Engineer',
      tags: [tagA],
      custom_fields: { a: 1, b: 1 },
    });
    const merged = await ingest(apiKey, {
      email: email.toUpperCase(),
      merge: 1,
      company: 'New Co',
      job_title: '',
      tags: [tagB],
      custom_fields: { b: 2 },
      source_page: '/pricing',
    });
    expect(merged.status, merged.text).toBe(200);
    expect(merged.body.data).toMatchObject({
      id: first.body.data.id,
      first_name: 'Ada',
      company: 'New Co',
      job_title: 'Engineer',
      custom_fields: { a: 1, b: 2, source_page: '/pricing' },
    });
    expect(merged.body.data.tags.map((tag: { name: string }) => tag.name).sort()).toEqual([tagA, tagB].sort());
    // merge: 1 without an existing lead creates it.
    expect((await ingest(apiKey, { email: uniqueEmail('fresh'), merge: 1 })).status).toBe(201);
  });

  it('with merge: 1 whose email and profile URL belong to two leads answers 409 duplicate_lead naming the second, and writes nothing', async () => {
    const email = uniqueEmail('split');
    const url = `https://www.linkedin.com/in/${crypto.randomUUID()}`;
    const byEmail = await ingest(apiKey, { email, job_title: 'Engineer' });
    const byProfile = await ingest(apiKey, { email: uniqueEmail('split-b'), profile_url: url });
    expect([byEmail.status, byProfile.status]).toEqual([201, 201]);
    const merged = await ingest(apiKey, { email, profile_url: url, job_title: 'CTO', merge: 1 });
    expectFailure(merged, 409, 'conflict');
    expect(merged.body.error).toMatchObject({
      code: 'duplicate_lead',
      details: { lead_id: byProfile.body.data.id, field: 'profile_url' },
    });
    const lead = await call('GET', `/api/lead/view/${byEmail.body.data.id}`, { token: owner.token });
    expect(lead.body.data).toMatchObject({ job_title: 'Engineer', profile_url: null });
  });

  it('without status gives status 1 while it is active, else the organization’s first active status, in the same statements', async () => {
    const org = await signupOrganization('Ingest status');
    const key = (await newKey(org)).key;
    const statuses = await call('GET', '/api/custom-lookups/list', {
      token: org.token,
      query: { module_name: 'lead', type: 'status', limit: 50 },
    });
    const statusOf = (value: number) => statuses.body.data.find((lookup: { value: number }) => lookup.value === value);
    const update = (id: number, body: Record<string, unknown>) =>
      call('POST', `/api/custom-lookups/update/${id}`, { token: org.token, body });
    // A status 0 does not displace the spec's default 1 while 1 is active.
    expect((await update(statusOf(6).id, { value: 0 })).status).toBe(200);
    const first = await ingest(key, { email: uniqueEmail('status-one') });
    expect(first.status, first.text).toBe(201);
    expect(first.body.data.status).toBe(1);
    // Status 1 renumbered: the first active status (0).
    expect((await update(statusOf(1).id, { value: 10 })).status).toBe(200);
    const renumbered = await ingest(key, { email: uniqueEmail('status-renumbered') });
    expect(renumbered.status, renumbered.text).toBe(201);
    expect(renumbered.body.data.status).toBe(0);
    // Both deactivated: the next active one (2); a status sent is still checked.
    expect((await update(statusOf(1).id, { is_active: false })).status).toBe(200);
    expect((await update(statusOf(6).id, { is_active: false })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const { response: counted, statements } = await statementsOf(() =>
      ingest(key, { email: uniqueEmail('status-first') }),
    );
    expect(counted.status, counted.text).toBe(201);
    expect(counted.body.data.status).toBe(2);
    expect(statements, statements.join('\n---\n')).toHaveLength(2);
    const refused = await ingest(key, { email: uniqueEmail('status-sent'), status: 10 });
    expectFailure(refused, 422, 'validation_error');
    expect(refused.body.error.code).toBe('status');
    // merge: 1 without status keeps the lead's status.
    const merged = await ingest(key, { email: first.body.data.email, job_title: 'CTO', merge: 1 });
    expect(merged.status, merged.text).toBe(200);
    expect(merged.body.data.status).toBe(10);
  });

  it('two concurrent identical submissions create one lead and answer one 409', async () => {
    for (const body of [{ email: uniqueEmail('race') }, { profile_url: `linkedin.com/in/${crypto.randomUUID()}` }]) {
      const responses = await Promise.all([ingest(apiKey, body), ingest(apiKey, body)]);
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses, responses.map((r) => r.text).join('\n')).toEqual([201, 409]);
      const winner = responses.find((r) => r.status === 201);
      const loser = responses.find((r) => r.status === 409);
      expect(loser?.body.error.details.lead_id).toBe(winner?.body.data.id);
    }
  });

  it('two concurrent merges of a new email create one lead and merge the other into it', async () => {
    const email = uniqueEmail('race-merge');
    const responses = await Promise.all([
      ingest(apiKey, { email, merge: 1, custom_fields: { one: 1 } }),
      ingest(apiKey, { email, merge: 1, custom_fields: { two: 2 } }),
    ]);
    expect(responses.map((r) => r.status).sort(), responses.map((r) => r.text).join('\n')).toEqual([200, 201]);
    const ids = new Set(responses.map((r) => r.body.data.id));
    expect(ids.size).toBe(1);
  });

  it('replays a retry with the same Idempotency-Key and creates no second lead', async () => {
    const email = uniqueEmail('idem');
    const key = crypto.randomUUID();
    const first = await ingest(apiKey, { email }, { 'Idempotency-Key': key });
    const retry = await ingest(apiKey, { email }, { 'Idempotency-Key': key });
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.data.id).toBe(first.body.data.id);
    const found = await call('GET', '/api/v1/lead/lead-list', { apiKey, query: { search_value: email } });
    expect(found.body.total).toBe(1);
  });

  it('refuses a missing key (401), an unknown, revoked or expired key and a foreign domain (403)', async () => {
    const body = { email: uniqueEmail('auth') };
    expectFailure(await call('POST', '/api/v1/lead', { body }), 401, 'unauthorized');
    const unknown = await ingest('lm_live_nope', body);
    expectFailure(unknown, 403, 'forbidden');
    expect(unknown.body.error.code).toBe('invalid_api_key');
    const revoked = await newKey(owner);
    expect((await ingest(revoked.key, { email: uniqueEmail('pre') })).status).toBe(201);
    expect((await call('DELETE', `/api/api-keys/delete/${revoked.id}`, { token: owner.token })).status).toBe(200);
    // The revoking isolate drops its cached entry at once.
    expect((await ingest(revoked.key, body)).body.error.code).toBe('invalid_api_key');
    const expiring = await newKey(owner, { expires_at: new Date(Date.now() + 1500).toISOString() });
    expect((await ingest(expiring.key, { email: uniqueEmail('early') })).status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    // Cached, yet refused: expiry is checked on every request.
    expect((await ingest(expiring.key, body)).body.error.code).toBe('api_key_expired');
    const restricted = await newKey(owner, { allowed_domains: ['shop.example.com'] });
    const foreign = await ingest(restricted.key, body, { origin: 'https://evil.example.net' });
    expect(foreign.body.error.code).toBe('domain_not_allowed');
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('costs 2 statements on a warm key: the scope carrying the read, then the insert', async () => {
    const warm = await newKey(owner);
    // The first use looks the key up and stamps last_used_at; later ones within the minute do neither.
    expect((await ingest(warm.key, { email: uniqueEmail('warm') })).status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const { response, statements } = await statementsOf(() => ingest(warm.key, { email: uniqueEmail('budget') }));
    expect(response.status).toBe(201);
    expect(
      statements.some((text) => text.includes('api_keys')),
      statements.join('\n'),
    ).toBe(false);
    expect(statements, statements.join('\n---\n')).toHaveLength(2);
    expect(statements[0]).toMatch(/set_config\('app.organization_id'/);
    expect(statements[1]).toMatch(/insert into "?leads"?/);
    // A duplicate is refused after the read: no insert.
    const email = uniqueEmail('budget-dup');
    await ingest(warm.key, { email });
    const duplicate = await statementsOf(() => ingest(warm.key, { email }));
    expect(duplicate.response.status).toBe(409);
    expect(duplicate.statements).toHaveLength(1);
    // Tag names add the statement that finds or creates their tag lookups.
    const tagged = await statementsOf(() => ingest(warm.key, { email: uniqueEmail('budget-tag'), tags: ['budget'] }));
    expect(tagged.response.status).toBe(201);
    expect(tagged.statements).toHaveLength(3);
  });
});

describe('profile URL dedupe on the bearer routes (the same createLeadsBatch and indexes)', () => {
  it('answers 409 duplicate_lead naming profile_url on add and on update', async () => {
    const owner = await signupOrganization('Profile');
    const url = `https://www.linkedin.com/in/${crypto.randomUUID().slice(0, 8)}`;
    const add = (body: Record<string, unknown>) =>
      call('POST', '/api/lead/add', {
        token: owner.token,
        body: { first_name: 'Ada', last_name: 'Lovelace', ...body },
      });
    const first = await add({ profile_url: url });
    expect(first.status, first.text).toBe(201);
    const again = await add({ profile_url: `${url.replace('https://www.linkedin.com', 'http://WWW.LinkedIn.com')}/` });
    expectFailure(again, 409, 'conflict');
    expect(again.body.error.details).toEqual({ lead_id: first.body.data.id, field: 'profile_url' });
    const other = await add({ profile_url: `${url}-other` });
    const update = await call('POST', `/api/lead/update/${other.body.data.id}`, {
      token: owner.token,
      body: { profile_url: `http://www.linkedin.com/in/${url.split('/in/')[1]}?trk=x` },
    });
    expectFailure(update, 409, 'conflict');
    expect(update.body.error.details).toEqual({ lead_id: first.body.data.id, field: 'profile_url' });
    // Its own URL, written again in another form, is no conflict.
    const same = await call('POST', `/api/lead/update/${first.body.data.id}`, {
      token: owner.token,
      body: { profile_url: `${url}/` },
    });
    expect(same.status, same.text).toBe(200);
  });
});

describe('GET /api/v1/lead/lead-list', () => {
  it('lists the key’s organization’s leads with search, paging and order', async () => {
    const [owner, other] = await Promise.all([signupOrganization('List'), signupOrganization('List other')]);
    const apiKey = (await newKey(owner)).key;
    const marker = crypto.randomUUID().slice(0, 8);
    for (const name of ['Alpha', 'Bravo', 'Charlie'])
      expect((await ingest(apiKey, { email: uniqueEmail(`${marker}-${name}`), first_name: name })).status).toBe(201);
    await ingest((await newKey(other)).key, { email: uniqueEmail(marker), first_name: 'Foreign' });
    const page = await call('GET', '/api/v1/lead/lead-list', {
      apiKey,
      query: { search_value: marker, order_by: 'first_name', order_in: 'ASC', limit: 2, page: 1 },
    });
    expect(page.status, page.text).toBe(200);
    expect(page.body.total).toBe(3);
    expect(page.body.data.map((lead: { first_name: string }) => lead.first_name)).toEqual(['Alpha', 'Bravo']);
    const bad = await call('GET', '/api/v1/lead/lead-list', { apiKey, query: { order_by: 'password' } });
    expectFailure(bad, 400, 'bad_request');
    expectFailure(await call('GET', '/api/v1/lead/lead-list'), 401, 'unauthorized');
  });
});

describe('migration 0082: one active tag per name', () => {
  it('merges the active tags of one name into the lowest id, moves their leads to it, and then refuses another', async () => {
    const who = await signupOrganization('Tag merge');
    const key = (await newKey(who)).key;
    const name = `merge-${crypto.randomUUID().slice(0, 8)}`;
    const first = await ingest(key, { email: uniqueEmail('merge'), tags: [name] });
    expect(first.status, first.text).toBe(201);
    const others = await Promise.all([
      ingest(key, { email: uniqueEmail('merge') }),
      ingest(key, { email: uniqueEmail('merge') }),
    ]);
    const [one, two, three] = [first, ...others].map((r) => r.body.data.id as number);
    const view = await call('GET', `/api/lead/view/${one}`, { token: who.token });
    const kept = view.body.data.tags[0].id as number;
    const [statements] = Object.values(migrations).map((text) => text.split('--> statement-breakpoint'));
    expect(statements).toHaveLength(2);
    const org = who.orgId;
    const rolledBack = new Error('rolled back');
    let seen:
      | { tags: { id: number; active: boolean }[]; links: { lead: number; tag: number }[]; refused: unknown }
      | undefined;
    // The table's owner, in a transaction rolled back after: the index comes off so the duplicates a
    // race left before it can be made, and the migration runs again over them.
    await withOwnDatabase(readConfig(env), (db) =>
      db.transaction(async (tx) => {
        await tx.execute(sql`drop index lookups_organization_active_tag_name_key`);
        const made = await tx.execute<{ id: string }>(sql`
          insert into lookups (organization_id, module_name, type, name, is_active)
          values (${org}, 'lead', 'tags', ${name.toUpperCase()}, true), (${org}, 'lead', 'tags', ${name}, true),
            (${org}, 'lead', 'tags', ${name}, false)
          returning id`);
        const [b, c, inactive] = made.rows.map((row) => Number(row.id));
        // One holds the kept tag and a duplicate, two a duplicate, three both duplicates.
        await tx.execute(sql`
          insert into lead_tags (organization_id, lead_id, tag_id)
          values (${org}, ${one}, ${b}), (${org}, ${two}, ${c}), (${org}, ${three}, ${b}), (${org}, ${three}, ${c}),
            (${org}, ${two}, ${inactive})`);
        for (const statement of statements) await tx.execute(sql.raw(statement));
        const tags = await tx.execute<{ id: string; active: boolean }>(sql`
          select id, is_active as active from lookups
          where organization_id = ${org} and type = 'tags' and lower(name) = ${name} order by id`);
        const links = await tx.execute<{ lead: string; tag: string }>(sql`
          select lead_id as lead, tag_id as tag from lead_tags where organization_id = ${org} order by lead_id, tag_id`);
        let refused: unknown;
        await tx
          .transaction((savepoint) =>
            savepoint.execute(
              sql`insert into lookups (organization_id, module_name, type, name) values (${org}, 'lead', 'tags', ${name.toUpperCase()})`,
            ),
          )
          .catch((error: unknown) => {
            refused = error;
          });
        seen = {
          tags: tags.rows.map((row) => ({ id: Number(row.id), active: row.active })),
          links: links.rows.map((row) => ({ lead: Number(row.lead), tag: Number(row.tag) })),
          refused,
        };
        throw rolledBack;
      }),
    ).catch((error: unknown) => {
      if (error !== rolledBack) throw error;
    });
    expect(seen?.tags).toEqual([
      { id: kept, active: true },
      { id: expect.any(Number), active: false },
      { id: expect.any(Number), active: false },
      { id: expect.any(Number), active: false },
    ]);
    const inactive = seen?.tags[3].id;
    const byLeadAndTag = (a: { lead: number; tag: number }, b: { lead: number; tag: number }) =>
      a.lead - b.lead || a.tag - b.tag;
    expect(seen?.links).toEqual(
      [
        { lead: one, tag: kept },
        { lead: two, tag: kept },
        { lead: two, tag: inactive as number },
        { lead: three, tag: kept },
      ].sort(byLeadAndTag),
    );
    expect(isUniqueViolation(seen?.refused, 'lookups_organization_active_tag_name_key')).toBe(true);
  });
});
