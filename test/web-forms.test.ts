/**
 * Hosted web forms: the bearer CRUD (add, list, update, delete; form_link unguessable), the
 * public page (escaped, CSP, 404 page) and its submissions (lead in the form's organization,
 * merge on a duplicate, thank-you page or 303, spam drops, required fields, Idempotency-Key,
 * statement budget).
 */
import { env } from 'cloudflare:workers';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { withOwnDatabase } from '../src/db/client';
import { readConfig } from '../src/env';
import { signRenderTime } from '../src/modules/web-forms/spam';
import { call, expectFailure, fetchWorker, type SignedUp, signupOrganization, uniqueEmail } from './helpers/api';
import { awayFromWindowEnd } from './helpers/rate-limit';
import { statementsOf } from './helpers/statements';

const secrets = { trackingSecret: env.TRACKING_SECRET || undefined, jwtSecret: readConfig(env).JWT_SECRET };

async function addForm(owner: SignedUp, body: Record<string, unknown> = {}) {
  const response = await call('POST', '/api/web-forms/add', {
    token: owner.token,
    body: { name: 'Contact us', ...body },
  });
  expect(response.status, response.text).toBe(201);
  return response.body.data as { id: number; form_link: string; url: string };
}

/** A render time signed long enough ago for a person to have filled the form. */
function timing(formId: number, ageMs = 10_000) {
  return signRenderTime(secrets, formId, Date.now() - ageMs);
}

function submit(
  link: string,
  fields: Record<string, string>,
  options: { ip?: string; headers?: Record<string, string> } = {},
) {
  return fetchWorker(
    new Request(`http://lead.test/api/v1/web-form/${link}`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'cf-connecting-ip': options.ip ?? `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
        ...options.headers,
      },
      body: new URLSearchParams(fields),
    }),
  );
}

function submitJson(link: string, body: Record<string, unknown>) {
  return fetchWorker(
    new Request(`http://lead.test/api/v1/web-form/${link}`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/json',
        'cf-connecting-ip': `10.8.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
      },
      body: JSON.stringify(body),
    }),
  );
}

async function leadsMatching(owner: SignedUp, text: string) {
  const response = await call('GET', '/api/lead/list', {
    token: owner.token,
    query: { search_value: text, limit: 100 },
  });
  return response.body.data as {
    id: number;
    email: string;
    first_name: string;
    tags: { name: string }[];
    custom_fields: Record<string, unknown>;
    company: string | null;
    assigned_to: number | null;
  }[];
}

describe('web form management', () => {
  let owner: SignedUp;
  let other: SignedUp;

  beforeAll(async () => {
    [owner, other] = await Promise.all([signupOrganization('Forms'), signupOrganization('Forms other')]);
  });

  it('creates a form with an unguessable link, lists, updates and deletes it', async () => {
    const form = await addForm(owner, { tags: ['website'], thank_you_message: 'Thanks!' });
    expect(form.form_link).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(form.url).toBe(`http://lead.test/api/v1/web-form/${form.form_link}`);
    const second = await addForm(owner);
    expect(second.form_link).not.toBe(form.form_link);
    expect((form as unknown as { fields: unknown[] }).fields).toHaveLength(4);

    const list = await call('GET', '/api/web-forms/list', {
      token: owner.token,
      query: { order_by: 'id', order_in: 'ASC' },
    });
    expect(list.body.data.map((row: { id: number }) => row.id)).toEqual([form.id, second.id]);
    expect((await call('GET', '/api/web-forms/list', { token: other.token })).body.total).toBe(0);

    const updated = await call('POST', `/api/web-forms/update/${form.id}`, {
      token: owner.token,
      body: {
        name: 'Demo request',
        redirect_url: 'https://example.com/thanks',
        fields: [{ name: 'email', required: true }],
      },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.data).toMatchObject({
      name: 'Demo request',
      form_link: form.form_link,
      redirect_url: 'https://example.com/thanks',
    });

    expect((await call('DELETE', `/api/web-forms/delete/${form.id}`, { token: owner.token })).status).toBe(200);
    const gone = await call('GET', `/api/v1/web-form/${form.form_link}`);
    expect(gone.status).toBe(404);
    expect(gone.headers.get('content-type')).toContain('text/html');
    expect((await call('DELETE', `/api/web-forms/delete/${form.id}`, { token: owner.token })).status).toBe(404);
  });

  it('refuses invalid settings with 422 naming the field', async () => {
    for (const [body, field] of [
      [{ name: 'x' }, 'name'],
      [{ name: 'Form', fields: [{ name: 'first_name', required: true }] }, 'fields'],
      [{ name: 'Form', fields: [{ name: 'password' }] }, 'fields.0.name'],
      [{ name: 'Form', redirect_url: 'javascript:alert(1)' }, 'redirect_url'],
      [{ name: 'Form', assigned_to: 999999 }, 'assigned_to'],
    ] as const) {
      const response = await call('POST', '/api/web-forms/add', { token: owner.token, body });
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code).toBe(field);
    }
  });
});

describe('hosted web form page', () => {
  let owner: SignedUp;

  beforeAll(async () => {
    owner = await signupOrganization('Form page');
  });

  it('renders an accessible form with the user text escaped, under a strict CSP', async () => {
    const form = await addForm(owner, {
      name: '<script>alert(1)</script> & Co',
      fields: [
        { name: 'email', required: true, label: 'Work "email" <b>' },
        { name: 'company', required: false },
      ],
    });
    const page = await call('GET', `/api/v1/web-form/${form.form_link}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).not.toContain('<script>');
    expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co');
    expect(page.text).toContain('Work &quot;email&quot; &lt;b&gt;');
    expect(page.text).toContain('<meta name="viewport" content="width=device-width, initial-scale=1"');
    expect(page.text).toMatch(/<label for="f-email">/);
    expect(page.text).toMatch(/<input id="f-email" name="email" type="email"[^>]* required=""/);
    const csp = page.headers.get('content-security-policy') ?? '';
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/https?:/);
    expect(page.text).toContain(`<style nonce="${nonce}">`);
    expect(page.text).not.toMatch(/<script|<link|src=/);
  });

  it('answers an unknown link with the HTML 404 page', async () => {
    for (const link of ['AAAAAAAAAAAAAAAAAAAAAAAA', 'short']) {
      const response = await call('GET', `/api/v1/web-form/${link}`);
      expect(response.status).toBe(404);
      expect(response.text).toContain('Form not found');
      expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect((await submit(link, { email: uniqueEmail('x') })).status).toBe(404);
    }
  });

  it('answers the 404 page for a form of a deactivated organization, and creates no lead there', async () => {
    const owner = await signupOrganization('Closed');
    const form = await addForm(owner);
    await withOwnDatabase(readConfig(env), (db) =>
      db.execute(sql`update organizations set state_id = 0 where id = ${owner.orgId}`),
    );
    const page = await call('GET', `/api/v1/web-form/${form.form_link}`);
    expect(page.status).toBe(404);
    expect(page.text).toContain('Form not found');
    const email = uniqueEmail('closed');
    expect((await submit(form.form_link, { email, _t: await timing(form.id) })).status).toBe(404);
    const leads = await withOwnDatabase(readConfig(env), (db) =>
      db.execute(sql`select id from leads where organization_id = ${owner.orgId}`),
    );
    expect(leads.rows).toEqual([]);
  });

  it('creates the lead in the form’s organization with the form’s tags and assignee, then thanks', async () => {
    const tag = `form-${crypto.randomUUID().slice(0, 6)}`;
    const form = await addForm(owner, { tags: [tag], assigned_to: owner.userId, thank_you_message: 'We got it <3' });
    const email = uniqueEmail('visitor');
    const response = await submit(form.form_link, {
      first_name: 'Vera',
      last_name: 'Visitor',
      email,
      company: 'Visit Co',
      status: '3',
      merge: '0',
      _t: await timing(form.id),
      website: '',
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('We got it &lt;3');
    const [lead] = await leadsMatching(owner, email);
    expect(lead).toMatchObject({ email, first_name: 'Vera', company: 'Visit Co', assigned_to: owner.userId });
    expect(lead.tags.map((t) => t.name)).toEqual([tag]);
    // Fields the form does not ask for are ignored.
    expect(lead.custom_fields).toEqual({});

    // The same email again: no error for the visitor, no second lead, and the name a person entered stays.
    const again = await submit(form.form_link, {
      first_name: 'Verity',
      email: email.toUpperCase(),
      _t: await timing(form.id),
    });
    expect(again.status).toBe(200);
    const after = await leadsMatching(owner, email);
    expect(after).toHaveLength(1);
    expect(after[0].first_name).toBe('Vera');
  });

  it('never lets a stranger rewrite an existing lead: fills only empty fields and records the submission', async () => {
    const email = uniqueEmail('leada');
    const existing = await call('POST', '/api/lead/add', {
      token: owner.token,
      body: { first_name: 'LeadA', last_name: 'Secret', email, company: 'CorpA', assigned_to: owner.userId },
    });
    expect(existing.status, existing.text).toBe(201);
    const lead = existing.body.data;
    const form = await addForm(owner, {
      assigned_to: owner.userId,
      tags: ['form-tag'],
      fields: ['first_name', 'last_name', 'email', 'company', 'phone_number', 'job_title'].map((name) => ({ name })),
    });
    const submitted = {
      first_name: 'Overwritten',
      last_name: 'ByStranger',
      email: email.toUpperCase(),
      company: 'Attacker Inc',
      phone_number: '+1 555 0199',
      job_title: 'CFO',
    };
    const response = await submit(form.form_link, { ...submitted, _t: await timing(form.id) });
    expect(response.status).toBe(200);

    const after = await call('GET', `/api/lead/view/${lead.id}`, { token: owner.token });
    expect(after.body.data).toMatchObject({
      first_name: 'LeadA',
      last_name: 'Secret',
      email,
      company: 'CorpA',
      company_id: lead.company_id,
      assigned_to: owner.userId,
      // Empty before: filled from the submission.
      phone_number: '+1 555 0199',
      job_title: 'CFO',
    });
    expect(after.body.data.tags).toEqual([]);
    const companies = await call('GET', '/api/company/list', {
      token: owner.token,
      query: { search_value: 'Attacker' },
    });
    expect(companies.body.data).toEqual([]);

    const feed = await call('GET', '/api/feed/list', {
      token: owner.token,
      query: { model_type: 'lead', model_id: lead.id },
    });
    const entry = feed.body.data.find((row: { action: string }) => row.action === 'form_submitted');
    expect(entry?.changes).toMatchObject({
      first_name: { from: 'LeadA', to: 'Overwritten' },
      last_name: { from: 'Secret', to: 'ByStranger' },
      company: { from: 'CorpA', to: 'Attacker Inc' },
      phone_number: { from: null, to: '+1 555 0199' },
    });
    const signals = await call('GET', `/api/intent-alert/lead/${lead.id}`, { token: owner.token });
    expect(signals.body.data.map((row: { signal_type: string }) => row.signal_type)).toEqual(['form_submitted']);
    expect(signals.body.data[0]).toMatchObject({ source: 'web_form', signal_detail: { form_id: form.id } });
  });

  it('accepts JSON and redirects with 303 to redirect_url', async () => {
    const form = await addForm(owner, { redirect_url: 'https://example.com/thanks?from=form' });
    const email = uniqueEmail('json');
    const response = await fetchWorker(
      new Request(`http://lead.test/api/v1/web-form/${form.form_link}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/json', 'cf-connecting-ip': '10.77.0.1' },
        body: JSON.stringify({ first_name: 'Jay', email, _t: await timing(form.id) }),
      }),
    );
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('https://example.com/thanks?from=form');
    expect(await leadsMatching(owner, email)).toHaveLength(1);
  });

  it('answers the form again (422) with the missing and invalid fields marked', async () => {
    const form = await addForm(owner);
    const missing = await submit(form.form_link, { first_name: 'Al', _t: await timing(form.id) });
    expect(missing.status).toBe(422);
    const text = await missing.text();
    expect(text).toMatch(/id="f-email"[^>]*aria-invalid="true"/);
    expect(text).toContain('This field is required.');
    expect(text).toContain('value="Al"');
    const invalid = await submit(form.form_link, { first_name: 'Al', email: 'nope', _t: await timing(form.id) });
    expect(invalid.status).toBe(422);
    expect(await invalid.text()).toContain('Must be a valid email address.');
  });

  it('answers the form again (422, HTML) for a field holding a NUL or an unpaired surrogate, form-encoded or JSON, and creates nothing', async () => {
    const form = await addForm(owner, { fields: [{ name: 'email' }, { name: 'first_name' }] });
    const email = uniqueEmail('badchar');
    const nul = await submit(form.form_link, { email, first_name: 'A\u0000b', _t: await timing(form.id) });
    expect(nul.status).toBe(422);
    expect(nul.headers.get('content-type')).toMatch(/text\/html/);
    const nulPage = await nul.text();
    expect(nulPage).toMatch(/id="f-first_name"[^>]*aria-invalid="true"/);
    expect(nulPage).toContain('Must not contain a NUL character.');
    expect(nulPage).toContain(`value="${email}"`);
    const lone = await submitJson(form.form_link, { email, first_name: 'Ab\ud83d', _t: await timing(form.id) });
    expect(lone.status).toBe(422);
    expect(lone.headers.get('content-type')).toMatch(/text\/html/);
    const lonePage = await lone.text();
    expect(lonePage).toMatch(/id="f-first_name"[^>]*aria-invalid="true"/);
    expect(lonePage).toContain('Must be valid Unicode text (it holds an unpaired surrogate).');
    expect(await leadsMatching(owner, email)).toHaveLength(0);
  });

  it('answers the form again (422) naming a JSON field sent as a number or boolean, never dropping it', async () => {
    const form = await addForm(owner, {
      fields: [{ name: 'email' }, { name: 'phone_number' }, { name: 'first_name' }],
    });
    const email = uniqueEmail('numeric');
    for (const phone of [15550100, true]) {
      const response = await submitJson(form.form_link, {
        email,
        phone_number: phone,
        first_name: 'Num',
        _t: await timing(form.id),
      });
      expect(response.status).toBe(422);
      const page = await response.text();
      expect(page).toMatch(/id="f-phone_number"[^>]*aria-invalid="true"/);
      expect(page).toContain(`value="${phone}"`);
    }
    expect(await leadsMatching(owner, email)).toHaveLength(0);
  });

  it('drops spam silently: honeypot filled, posted too fast, forged or foreign timing, over the IP limit', async () => {
    const form = await addForm(owner);
    const otherForm = await addForm(owner);
    const marker = crypto.randomUUID().slice(0, 8);
    const attempts: Record<string, string>[] = [
      {
        email: uniqueEmail(`${marker}-hp`),
        first_name: 'Bot',
        website: 'http://spam.example',
        _t: await timing(form.id),
      },
      { email: uniqueEmail(`${marker}-fast`), first_name: 'Bot', _t: await timing(form.id, 500) },
      { email: uniqueEmail(`${marker}-none`), first_name: 'Bot' },
      { email: uniqueEmail(`${marker}-forged`), first_name: 'Bot', _t: `${Date.now() - 10_000}.${'A'.repeat(43)}` },
      { email: uniqueEmail(`${marker}-foreign`), first_name: 'Bot', _t: await timing(otherForm.id) },
    ];
    for (const fields of attempts) {
      const response = await submit(form.form_link, fields);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('Thank you');
      expect(response.headers.get('ratelimit')).toBeNull();
    }
    expect(await leadsMatching(owner, marker)).toEqual([]);

    const ip = '10.66.6.6';
    const statuses: number[] = [];
    // All twelve in one window of the per-IP limit (a loaded machine takes a few seconds for them).
    await awayFromWindowEnd(15);
    for (let i = 0; i < 12; i++) {
      const response = await submit(
        form.form_link,
        { email: uniqueEmail(`${marker}-flood${i}`), first_name: 'Flood', _t: await timing(form.id) },
        { ip },
      );
      statuses.push(response.status);
    }
    expect(new Set(statuses)).toEqual(new Set([200]));
    expect(await leadsMatching(owner, `${marker}-flood`)).toHaveLength(10);
  });

  it('replays a retry with the same Idempotency-Key: one lead however often a phone-only visitor retries', async () => {
    const form = await addForm(owner, { fields: [{ name: 'phone_number', required: true }, { name: 'first_name' }] });
    const phone = `+1 555 ${Math.floor(Math.random() * 9_000_000 + 1_000_000)}`;
    const fields = { phone_number: phone, first_name: 'Phil', _t: await timing(form.id) };
    const headers = { 'Idempotency-Key': crypto.randomUUID() };
    const first = await submit(form.form_link, fields, { ip: '10.55.0.1', headers });
    const retry = await submit(form.form_link, fields, { ip: '10.55.0.1', headers });
    expect(first.status).toBe(200);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await leadsMatching(owner, phone)).toHaveLength(1);
  });

  it('costs 2 statements on a warm isolate: the scope carrying the read, then the insert', async () => {
    const form = await addForm(owner);
    await submit(form.form_link, { email: uniqueEmail('warm'), _t: await timing(form.id) });
    const email = uniqueEmail('budget');
    const fields = { email, first_name: 'Bud', _t: await timing(form.id) };
    const { statements } = await statementsOf(async () => {
      const response = await submit(form.form_link, fields);
      return { status: response.status, body: null, headers: response.headers, text: await response.text() };
    });
    expect(statements, statements.join('\n---\n')).toHaveLength(2);
    expect(await leadsMatching(owner, email)).toHaveLength(1);
  });
});
