/**
 * Probes of the hardening issue, each kept as a test: forged cursors, URL fields with scripts,
 * free-form JSON nested too deep, and an organization losing its last admin.
 */
import { describe, expect, it } from 'vitest';
import { base64url } from 'jose';
import { userFacingJobError } from '../src/jobs/faults';
import { csvOf, importAndWait } from './cross-tenant/fixtures/jobs';
import { addMember, call, expectFailure, signupOrganization } from './helpers/api';

function forgedCursor(wire: Record<string, unknown>): string {
  return base64url.encode(JSON.stringify(wire));
}

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 1; i < depth; i++) value = { next: value };
  return value;
}

describe('hardening', () => {
  it('answers 400 naming cursor for a cursor whose sort key is an array, an object or holds a NUL byte', async () => {
    const org = await signupOrganization('Hardening');
    for (const path of ['/api/lead/list', '/api/user/list']) {
      for (const v of [['a'], { a: 1 }, 'x\u0000y']) {
        const response = await call('GET', path, {
          token: org.token,
          query: { cursor: forgedCursor({ k: 'id', d: 'DESC', v, id: 1 }) },
        });
        expectFailure(response, 400, 'bad_request');
        expect(response.body.error.code).toBe('cursor');
      }
    }
  });

  it('accepts only http and https in website and profile_url (a bare host too), with a 422 naming the field', async () => {
    const org = await signupOrganization('Hardening');
    const base = { first_name: 'Url', last_name: 'Checked' };
    for (const [field, value] of [
      ['website', 'javascript:alert(1)'],
      ['profile_url', 'JavaScript:alert(1)'],
      ['website', 'data:text/html,<script>1</script>'],
      ['profile_url', 'file:///etc/passwd'],
    ]) {
      const response = await call('POST', '/api/lead/add', { token: org.token, body: { ...base, [field]: value } });
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code).toBe(field);
    }
    const ok = await call('POST', '/api/lead/add', {
      token: org.token,
      body: { ...base, website: 'example.com', profile_url: 'https://www.linkedin.com/in/ada' },
    });
    expect(ok.status).toBe(201);
    const update = await call('POST', `/api/lead/update/${ok.body.data.id}`, {
      token: org.token,
      body: { website: 'javascript:void(0)' },
    });
    expectFailure(update, 422, 'validation_error');
    expect(update.body.error.code).toBe('website');
  });

  it('refuses ai_information nested deeper than 32 levels with 422 (and stores 32)', async () => {
    const org = await signupOrganization('Hardening');
    const lead = await call('POST', '/api/lead/add', {
      token: org.token,
      body: { first_name: 'Deep', last_name: 'Json' },
    });
    for (const depth of [33, 10_000]) {
      const response = await call('POST', `/api/lead/update/${lead.body.data.id}`, {
        token: org.token,
        body: { ai_information: nested(depth) },
      });
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code).toBe('ai_information');
    }
    const stored = await call('POST', `/api/lead/update/${lead.body.data.id}`, {
      token: org.token,
      body: { ai_information: nested(32) },
    });
    expect(stored.status).toBe(200);
  });

  it('refuses to remove the organization’s last active admin (409 last_admin), and allows it once another admin exists', async () => {
    const org = await signupOrganization('Hardening');
    const roles = Object.fromEntries(
      (await call('GET', '/api/role/list', { token: org.token })).body.data.map(
        (role: { name: string; id: number }) => [role.name, role.id],
      ),
    );
    const me = (await call('GET', '/api/user/my', { token: org.token })).body.data;
    const self = { first_name: me.first_name, email: me.email, phone_no: '+15550100' };
    const demoted = await call('POST', `/api/user/update/${org.userId}`, {
      token: org.token,
      body: { ...self, role_id: roles.sales_rep },
    });
    expectFailure(demoted, 409, 'conflict');
    expect(demoted.body.error.code).toBe('last_admin');
    const second = await addMember(org, {
      role: roles.admin,
      first_name: 'Second',
      last_name: 'Admin',
      phone_no: '+15550101',
      password: 'second-admin-pw',
    });
    const allowed = await call('POST', `/api/user/update/${org.userId}`, {
      token: org.token,
      body: { ...self, role_id: roles.sales_rep },
    });
    expect(allowed.status).toBe(200);
    const lastOne = await call('POST', `/api/user/update/${second.userId}`, {
      token: second.token,
      body: { first_name: 'Second', email: second.email, phone_no: '+15550101', role_id: roles.manager },
    });
    expectFailure(lastOne, 409, 'conflict');
    expect(lastOne.body.error.code).toBe('last_admin');
  });

  it('refuses an unpaired UTF-16 surrogate in a JSON body, in a value or a key, with 422 naming the field', async () => {
    const org = await signupOrganization('Hardening');
    const key = (await call('POST', '/api/api-keys/add', { token: org.token, body: { name: 'k' } })).body.data.key;
    const email = `lone-${crypto.randomUUID().slice(0, 8)}@example.com`;
    // JSON.stringify writes a lone surrogate as its escape (`"Ab\ud83d"`): the body is valid JSON.
    for (const [body, field] of [
      [{ email, first_name: 'Ab\ud83d' }, 'first_name'],
      [{ email, phone_number: '+1555\udc00' }, 'phone_number'],
      [{ email, utm_campaign: 'spring\ud83d' }, 'utm_campaign'],
      [{ email, custom_fields: { 'budget\ud83d': 1 } }, 'custom_fields.budget\\ud83d'],
    ] as const) {
      const response = await call('POST', '/api/v1/lead', { apiKey: key, body });
      expectFailure(response, 422, 'validation_error');
      expect([response.body.error.code, response.body.error.message], JSON.stringify(body)).toEqual([
        field,
        `${field}: must be valid Unicode text (it holds an unpaired surrogate)`,
      ]);
    }
    const lead = await call('POST', '/api/v1/lead', { apiKey: key, body: { email, first_name: 'Emoji 😀 ok' } });
    expect(lead.status).toBe(201);
    const signal = await call('POST', '/api/v1/intent-signal', {
      apiKey: key,
      body: { lead_id: lead.body.data.id, signal_type: 'demo_requested', signal_detail: { form: 'demo\ud83d' } },
    });
    expectFailure(signal, 422, 'validation_error');
    expect(signal.body.error.code).toBe('signal_detail.form');
    const bearer = await call('POST', '/api/lead/add', {
      token: org.token,
      body: { first_name: 'Ada', last_name: 'Love\udfff' },
    });
    expectFailure(bearer, 422, 'validation_error');
    expect(bearer.body.error.code).toBe('last_name');
  });

  it('imports every other row when one CSV cell holds a NUL byte (after the first 8 KB), that row failing with its field', async () => {
    const org = await signupOrganization('Hardening');
    const padding = 'p'.repeat(200);
    const rows = Array.from({ length: 60 }, (_, i) => [
      `First${i}`,
      `Last${i}`,
      `nul-${i}-${crypto.randomUUID().slice(0, 6)}@example.com`,
      padding,
    ]);
    rows[50][1] = 'Bro\u0000ken';
    const job = await importAndWait(org, csvOf([['First Name', 'Last Name', 'Email', 'Notes'], ...rows]));
    expect(job).toMatchObject({ status: 'completed', total: 60, created: 59, failed: 1 });
    const listed = await call('GET', `/api/import-job/${job.id}/rows`, {
      token: org.token,
      query: { limit: 100 },
    });
    const failed = listed.body.data.filter((row: { outcome: string }) => row.outcome === 'error');
    expect(failed.map((row: { field: string; message: string }) => [row.field, row.message])).toEqual([
      ['last_name', 'must not contain a NUL character'],
    ]);
  });

  it('refuses filters the database could not run, on the list (400) and up front on an export (422), never in its job', async () => {
    const org = await signupOrganization('Hardening');
    for (const filters of [
      { start_date: '2025-02-30' },
      { score_max: '0.5' },
      { score_min: '1e20' },
      { created_to: '2025-13-01' },
    ]) {
      const [key] = Object.keys(filters);
      const listed = await call('GET', '/api/lead/list', { token: org.token, query: filters });
      expectFailure(listed, 400, 'bad_request');
      expect(listed.body.error.code).toBe(key);
      const exported = await call('POST', '/api/exports/create', {
        token: org.token,
        body: { export_type: 'leads', filters },
      });
      expectFailure(exported, 422, 'validation_error');
      expect(exported.body.error.code).toBe(`filters.${key}`);
    }
  });

  it('never puts the database’s own text in a job’s error: only that it was internal, and its SQLSTATE', () => {
    const failure = new Error('Failed query: insert into "leads" …', {
      cause: Object.assign(new Error('duplicate key value violates unique constraint "leads_pkey"'), { code: '23505' }),
    });
    expect(userFacingJobError(failure)).toBe('an internal database error (SQLSTATE 23505)');
    expect(userFacingJobError(new Error('storage unavailable at 10.0.0.7'))).toBe('an internal error');
  });

  it('bounds password guessing per account: after 10 failures in 15 minutes an address it never logged in from waits a doubling delay (429 with Retry-After)', async () => {
    const org = await signupOrganization('Hardening');
    const attempt = (password: string, i: number) =>
      call('POST', '/api/auth/login', {
        body: { email: org.email, password },
        headers: { 'cf-connecting-ip': `10.77.${i}.1` },
      });
    for (let i = 0; i < 10; i++) expectFailure(await attempt('wrong password', i), 401, 'unauthorized');
    const limited = await attempt(org.password, 11);
    expectFailure(limited, 429, 'rate_limited');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(2);
    // Another account is not affected.
    const other = await signupOrganization('Hardening');
    expect(
      (
        await call('POST', '/api/auth/login', {
          body: { email: other.email, password: other.password },
          headers: { 'cf-connecting-ip': '10.77.99.1' },
        })
      ).status,
    ).toBe(200);
  });

  it('forgets an account’s failures once it logs in', async () => {
    const org = await signupOrganization('Hardening');
    const attempt = (password: string, i: number) =>
      call('POST', '/api/auth/login', {
        body: { email: org.email, password },
        headers: { 'cf-connecting-ip': `10.78.${i}.1` },
      });
    for (let i = 0; i < 9; i++) expectFailure(await attempt('wrong password', i), 401, 'unauthorized');
    expect((await attempt(org.password, 20)).status).toBe(200);
    for (let i = 0; i < 9; i++) expectFailure(await attempt('wrong password', 30 + i), 401, 'unauthorized');
    expect((await attempt(org.password, 50)).status).toBe(200);
  });
});
