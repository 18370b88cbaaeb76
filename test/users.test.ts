/**
 * Spec "Authentication and users": every /api/user/* endpoint. Each test signs up the
 * organizations it needs, so no test depends on another's data.
 */
import { env } from 'cloudflare:test';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { withOwnDatabase } from '../src/db/client';
import { readConfig } from '../src/env';
import { call, expectFailure, randomIp, type SignedUp, signupOrganization, uniqueEmail } from './helpers/api';

const PASSWORD = 'password123';

interface AddedUser {
  id: number;
  email: string;
  password: string;
}

async function addUser(admin: SignedUp, overrides: Record<string, unknown> = {}): Promise<AddedUser> {
  const body = {
    first_name: 'Rep',
    last_name: 'One',
    email: uniqueEmail('rep'),
    phone_no: '+15550100',
    password: PASSWORD,
    ...overrides,
  };
  const response = await call('POST', '/api/user/add', { token: admin.token, body });
  if (response.status !== 201) throw new Error(`add user failed: ${response.status} ${response.text}`);
  return { id: response.body.data.id, email: body.email as string, password: body.password as string };
}

/**
 * Logins count against the per-IP auth limit (20 a minute), and this file logs in more often
 * than that, so each attempt comes from its own address.
 */
function tryLogin(email: string, password: string) {
  return call('POST', '/api/auth/login', { body: { email, password }, headers: { 'cf-connecting-ip': randomIp() } });
}

async function loginAs(email: string, password = PASSWORD): Promise<string> {
  const response = await tryLogin(email, password);
  if (response.status !== 200) throw new Error(`login failed: ${response.status} ${response.text}`);
  return response.body.access_token;
}

async function roleIds(org: SignedUp): Promise<Record<string, number>> {
  const list = await call('GET', '/api/role/list', { token: org.token });
  return Object.fromEntries(list.body.data.map((role: { name: string; id: number }) => [role.name, role.id]));
}

function ids(response: { body: { data: { id: number }[] } }): number[] {
  return response.body.data.map((user) => user.id);
}

describe('GET /api/user/my', () => {
  it('returns the caller’s profile with its organization name', async () => {
    const org = await signupOrganization('Profile');
    const response = await call('GET', '/api/user/my', { token: org.token });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ success: true, message: expect.any(String) });
    expect(response.body.data).toMatchObject({
      id: org.userId,
      email: org.email,
      first_name: 'Ada',
      last_name: 'Admin',
      name: 'Ada Admin',
      role_name: 'admin',
      state_id: 1,
      organization_id: String(org.orgId),
    });
    expect(response.body.data.organization_name).toMatch(/^Profile /);
    expect(response.text).not.toMatch(/password|pbkdf2/i);
  });

  it('returns the calling user, not the organization’s admin', async () => {
    const org = await signupOrganization();
    const rep = await addUser(org);
    const me = await call('GET', '/api/user/my', { token: await loginAs(rep.email) });
    expect(me.body.data).toMatchObject({ id: rep.id, email: rep.email, role_name: 'sales_rep' });
    expect(me.body.data.organization_name).toMatch(/^Acme /);
  });

  it('answers 401 without a token', async () => {
    expectFailure(await call('GET', '/api/user/my'), 401, 'unauthorized');
  });
});

describe('GET /api/user/list', () => {
  it('lists the organization’s users with total, page and limit, and never another organization’s', async () => {
    const [org, other] = await Promise.all([signupOrganization(), signupOrganization()]);
    const rep = await addUser(org);
    await addUser(other);
    const response = await call('GET', '/api/user/list', { token: org.token });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ success: true, total: 2, page: 1, limit: 10 });
    expect(ids(response).sort()).toEqual([org.userId, rep.id].sort());
    expect(response.text).not.toContain(other.email);
    expect(response.text).not.toMatch(/password|pbkdf2/i);
  });

  it('filters by role_id, comma-separated', async () => {
    const org = await signupOrganization();
    const roles = await roleIds(org);
    const manager = await addUser(org, { role_id: roles.manager });
    const rep = await addUser(org);
    const managers = await call('GET', '/api/user/list', {
      token: org.token,
      query: { role_id: String(roles.manager) },
    });
    expect(managers.status).toBe(200);
    expect(ids(managers)).toEqual([manager.id]);
    expect(managers.body.total).toBe(1);
    const two = await call('GET', '/api/user/list', {
      token: org.token,
      query: { role_id: `${roles.manager},${roles.sales_rep}` },
    });
    expect(ids(two).sort()).toEqual([manager.id, rep.id].sort());
  });

  it('filters by state_id, comma-separated', async () => {
    const org = await signupOrganization();
    const active = await addUser(org);
    const inactive = await addUser(org);
    const deactivated = await call('POST', `/api/user/update/${inactive.id}`, {
      token: org.token,
      body: { first_name: 'Rep', email: inactive.email, phone_no: '+15550100', state_id: 0 },
    });
    expect(deactivated.status).toBe(200);
    const zero = await call('GET', '/api/user/list', { token: org.token, query: { state_id: '0' } });
    expect(ids(zero)).toEqual([inactive.id]);
    const one = await call('GET', '/api/user/list', { token: org.token, query: { state_id: '1' } });
    expect(ids(one).sort()).toEqual([org.userId, active.id].sort());
    const both = await call('GET', '/api/user/list', { token: org.token, query: { state_id: '0,1' } });
    expect(both.body.total).toBe(3);
  });

  it('answers 400 naming role_id for a non-numeric member of role_id', async () => {
    const org = await signupOrganization();
    const response = await call('GET', '/api/user/list', { token: org.token, query: { role_id: '1,abc' } });
    expectFailure(response, 400, 'bad_request');
    expect(response.body.error.code).toBe('role_id');
  });

  it('answers 400 naming state_id for a non-numeric state_id', async () => {
    const org = await signupOrganization();
    const response = await call('GET', '/api/user/list', { token: org.token, query: { state_id: 'active' } });
    expectFailure(response, 400, 'bad_request');
    expect(response.body.error.code).toBe('state_id');
  });

  it('matches search_value against first name, last name and email', async () => {
    const org = await signupOrganization();
    const zebulon = await addUser(org, { first_name: 'Zebulon', last_name: 'Quarry' });
    await addUser(org, { first_name: 'Other' });
    for (const term of ['zebul', 'QUARR', zebulon.email.slice(0, 12)]) {
      const response = await call('GET', '/api/user/list', { token: org.token, query: { search_value: term } });
      expect(ids(response), term).toEqual([zebulon.id]);
      expect(response.body.total).toBe(1);
    }
  });

  it('treats LIKE wildcards in search_value literally', async () => {
    const org = await signupOrganization();
    await addUser(org);
    const response = await call('GET', '/api/user/list', { token: org.token, query: { search_value: '%' } });
    expect(response.status).toBe(200);
    expect(response.body.total).toBe(0);
  });

  it('pages with page and limit: page 2 continues where page 1 ended', async () => {
    const org = await signupOrganization();
    for (let i = 0; i < 4; i++) await addUser(org);
    const first = await call('GET', '/api/user/list', {
      token: org.token,
      query: { limit: 2, order_by: 'id', order_in: 'asc' },
    });
    const second = await call('GET', '/api/user/list', {
      token: org.token,
      query: { limit: 2, page: 2, order_by: 'id', order_in: 'asc' },
    });
    const third = await call('GET', '/api/user/list', {
      token: org.token,
      query: { limit: 2, page: 3, order_by: 'id', order_in: 'asc' },
    });
    expect(first.body).toMatchObject({ total: 5, page: 1, limit: 2 });
    expect(second.body).toMatchObject({ total: 5, page: 2, limit: 2 });
    expect(third.body).toMatchObject({ total: 5, page: 3, limit: 2 });
    const all = [...ids(first), ...ids(second), ...ids(third)];
    expect(all).toHaveLength(5);
    expect(all).toEqual([...all].sort((a, b) => a - b));
    expect(third.body.next_cursor).toBeNull();
  });

  it('orders by id descending by default', async () => {
    const org = await signupOrganization();
    const a = await addUser(org);
    const b = await addUser(org);
    const response = await call('GET', '/api/user/list', { token: org.token });
    expect(ids(response)).toEqual([b.id, a.id, org.userId]);
  });

  it('caps a limit above 100 at 100', async () => {
    const org = await signupOrganization();
    const response = await call('GET', '/api/user/list', { token: org.token, query: { limit: 500 } });
    expect(response.status).toBe(200);
    expect(response.body.limit).toBe(100);
  });

  it('answers 400 naming order_by for an unknown order_by', async () => {
    const org = await signupOrganization();
    for (const orderBy of ['password_hash', 'id; drop table users', 'nope']) {
      const response = await call('GET', '/api/user/list', { token: org.token, query: { order_by: orderBy } });
      expectFailure(response, 400, 'bad_request');
      expect(response.body.error.code).toBe('order_by');
    }
  });

  it('answers 400 naming the parameter for a malformed page, limit or order_in', async () => {
    const org = await signupOrganization();
    for (const [name, value] of [
      ['page', '0'],
      ['page', 'two'],
      ['limit', '0'],
      ['limit', '-5'],
      ['order_in', 'sideways'],
      ['start_date', 'yesterday'],
    ]) {
      const response = await call('GET', '/api/user/list', { token: org.token, query: { [name]: value } });
      expectFailure(response, 400, 'bad_request');
      expect(response.body.error.code, `${name}=${value}`).toBe(name);
    }
  });

  it('walks every user exactly once by next_cursor, for every sort order', async () => {
    const org = await signupOrganization();
    // Same first names, so the first_name order relies on the id tie-break.
    await Promise.all(Array.from({ length: 6 }, () => addUser(org)));
    for (const orderBy of ['id', 'first_name', 'email', 'created_at']) {
      for (const orderIn of ['asc', 'DESC']) {
        const seen: number[] = [];
        let cursor: string | undefined;
        let pages = 0;
        do {
          const page = await call('GET', '/api/user/list', {
            token: org.token,
            query: { limit: 2, order_by: orderBy, order_in: orderIn, cursor },
          });
          expect(page.status, page.text).toBe(200);
          expect(page.body.total).toBe(7);
          seen.push(...ids(page));
          cursor = page.body.next_cursor ?? undefined;
          pages++;
        } while (cursor && pages < 10);
        expect(seen, `${orderBy} ${orderIn}`).toHaveLength(7);
        expect(new Set(seen).size, `${orderBy} ${orderIn}`).toBe(7);
        const byPages = await call('GET', '/api/user/list', {
          token: org.token,
          query: { limit: 100, order_by: orderBy, order_in: orderIn },
        });
        expect(seen, `${orderBy} ${orderIn}`).toEqual(ids(byPages));
      }
    }
  });

  it('answers 400 for a cursor made for another sort order', async () => {
    const org = await signupOrganization();
    await addUser(org);
    await addUser(org);
    const first = await call('GET', '/api/user/list', { token: org.token, query: { limit: 1, order_by: 'email' } });
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const mismatched = await call('GET', '/api/user/list', {
      token: org.token,
      query: { limit: 1, order_by: 'id', cursor: first.body.next_cursor },
    });
    expectFailure(mismatched, 400, 'bad_request');
    expectFailure(
      await call('GET', '/api/user/list', { token: org.token, query: { cursor: 'garbage' } }),
      400,
      'bad_request',
    );
  });
});

describe('POST /api/user/add', () => {
  it('answers 201 with the new user, a sales_rep by default, who can then log in', async () => {
    const org = await signupOrganization();
    const email = uniqueEmail('new');
    const response = await call('POST', '/api/user/add', {
      token: org.token,
      body: { first_name: 'Nina', last_name: 'New', email, phone_no: '+15550111', password: PASSWORD },
    });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({
      first_name: 'Nina',
      last_name: 'New',
      name: 'Nina New',
      email,
      phone_no: '+15550111',
      role_name: 'sales_rep',
      state_id: 1,
      organization_id: String(org.orgId),
    });
    expect(response.text).not.toMatch(/password|pbkdf2/i);
    expect(await loginAs(email)).toEqual(expect.any(String));
  });

  it('retried with an Idempotency-Key, keeps the initial password nowhere in idempotency_keys (nor its hash)', async () => {
    const org = await signupOrganization();
    const password = `retried-${crypto.randomUUID()}`;
    const send = () =>
      call('POST', '/api/user/add', {
        token: org.token,
        headers: { 'idempotency-key': 'user-add-1' },
        body: {
          first_name: 'Rita',
          last_name: 'Retry',
          email: `${org.orgId}-rita@example.com`,
          phone_no: '+15550112',
          password,
        },
      });
    const first = await send();
    expect(first.status, first.text).toBe(201);
    const retried = await send();
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.body.data.id).toBe(first.body.data.id);
    const stored = await withOwnDatabase(readConfig(env), (db) =>
      db.execute<{ body: string }>(sql`select body from idempotency_keys where organization_id = ${org.orgId}`),
    );
    expect(stored.rows).toHaveLength(1);
    expect(stored.rows[0].body).not.toContain(password);
    expect(stored.rows[0].body).not.toMatch(/password|pbkdf2/i);
  });

  it('gives the user the role_id sent', async () => {
    const org = await signupOrganization();
    const roles = await roleIds(org);
    const response = await call('POST', '/api/user/add', {
      token: org.token,
      body: {
        first_name: 'Max',
        email: uniqueEmail(),
        phone_no: '+15550112',
        password: PASSWORD,
        role_id: roles.manager,
      },
    });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({ role_id: roles.manager, role_name: 'manager' });
  });

  it('ignores an organization_id in the body', async () => {
    const [org, other] = await Promise.all([signupOrganization(), signupOrganization()]);
    const response = await call('POST', '/api/user/add', {
      token: org.token,
      body: {
        first_name: 'Max',
        email: uniqueEmail(),
        phone_no: '+15550112',
        password: PASSWORD,
        organization_id: other.orgId,
      },
    });
    expect(response.status).toBe(201);
    expect(response.body.data.organization_id).toBe(String(org.orgId));
  });

  it('answers 403 to a sales_rep and to a manager', async () => {
    const org = await signupOrganization();
    const roles = await roleIds(org);
    const rep = await addUser(org);
    const manager = await addUser(org, { role_id: roles.manager });
    for (const email of [rep.email, manager.email]) {
      const response = await call('POST', '/api/user/add', {
        token: await loginAs(email),
        body: { first_name: 'Nope', email: uniqueEmail(), phone_no: '+15550100', password: PASSWORD },
      });
      expectFailure(response, 403, 'forbidden');
    }
    const list = await call('GET', '/api/user/list', { token: org.token });
    expect(list.body.total).toBe(3);
  });

  it('answers 422 naming role_id for a role of another organization', async () => {
    const [org, other] = await Promise.all([signupOrganization(), signupOrganization()]);
    const foreign = await roleIds(other);
    const response = await call('POST', '/api/user/add', {
      token: org.token,
      body: {
        first_name: 'Max',
        email: uniqueEmail(),
        phone_no: '+15550100',
        password: PASSWORD,
        role_id: foreign.admin,
      },
    });
    expectFailure(response, 422, 'validation_error');
    expect(response.body.error.code).toBe('role_id');
  });

  it('answers 409 for an email that already has an account, in any letter case and in any organization', async () => {
    const [org, other] = await Promise.all([signupOrganization(), signupOrganization()]);
    const existing = await addUser(org);
    for (const email of [existing.email, existing.email.toUpperCase(), other.email]) {
      const response = await call('POST', '/api/user/add', {
        token: org.token,
        body: { first_name: 'Dup', email, phone_no: '+15550100', password: PASSWORD },
      });
      expectFailure(response, 409, 'conflict');
    }
  });

  it('answers 422 naming the field for a missing phone_no or a short password', async () => {
    const org = await signupOrganization();
    const noPhone = await call('POST', '/api/user/add', {
      token: org.token,
      body: { first_name: 'Max', email: uniqueEmail(), password: PASSWORD },
    });
    expectFailure(noPhone, 422, 'validation_error');
    expect(noPhone.body.error.code).toBe('phone_no');
    const shortPassword = await call('POST', '/api/user/add', {
      token: org.token,
      body: { first_name: 'Max', email: uniqueEmail(), phone_no: '+15550100', password: 'short' },
    });
    expectFailure(shortPassword, 422, 'validation_error');
    expect(shortPassword.body.error.code).toBe('password');
  });
});

describe('POST /api/user/update/:id', () => {
  it('lets a non-admin update their own profile', async () => {
    const org = await signupOrganization();
    const rep = await addUser(org);
    const response = await call('POST', `/api/user/update/${rep.id}`, {
      token: await loginAs(rep.email),
      body: {
        first_name: 'Renamed',
        last_name: 'Person',
        email: rep.email,
        phone_no: '+15550199',
        timezone: 'Europe/Paris',
        language: 'fr',
      },
    });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({
      id: rep.id,
      first_name: 'Renamed',
      last_name: 'Person',
      phone_no: '+15550199',
      timezone: 'Europe/Paris',
      language: 'fr',
      role_name: 'sales_rep',
    });
  });

  it('answers 403 to a non-admin updating another user, and leaves that user unchanged', async () => {
    const org = await signupOrganization();
    const rep = await addUser(org);
    const target = await addUser(org, { first_name: 'Target' });
    const response = await call('POST', `/api/user/update/${target.id}`, {
      token: await loginAs(rep.email),
      body: { first_name: 'Hijacked', email: target.email, phone_no: '+15550199' },
    });
    expectFailure(response, 403, 'forbidden');
    const list = await call('GET', '/api/user/list', { token: org.token, query: { search_value: target.email } });
    expect(list.body.data[0].first_name).toBe('Target');
  });

  it('answers 403 to a non-admin changing their own role or state', async () => {
    const org = await signupOrganization();
    const roles = await roleIds(org);
    const rep = await addUser(org);
    const token = await loginAs(rep.email);
    for (const extra of [{ role_id: roles.admin }, { state_id: 0 }]) {
      const response = await call('POST', `/api/user/update/${rep.id}`, {
        token,
        body: { first_name: 'Rep', email: rep.email, phone_no: '+15550100', ...extra },
      });
      expectFailure(response, 403, 'forbidden');
    }
    const me = await call('GET', '/api/user/my', { token });
    expect(me.body.data).toMatchObject({ role_name: 'sales_rep', state_id: 1 });
  });

  it('lets an admin update another user, including role and state', async () => {
    const org = await signupOrganization();
    const roles = await roleIds(org);
    const rep = await addUser(org);
    const response = await call('POST', `/api/user/update/${rep.id}`, {
      token: org.token,
      body: { first_name: 'Promoted', email: rep.email, phone_no: '+15550100', role_id: roles.manager },
    });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ first_name: 'Promoted', role_name: 'manager' });
  });

  it('answers 404 for another organization’s user id and leaves that user unchanged', async () => {
    const [org, other] = await Promise.all([signupOrganization(), signupOrganization()]);
    const victim = await addUser(other, { first_name: 'Victim' });
    const response = await call('POST', `/api/user/update/${victim.id}`, {
      token: org.token,
      body: { first_name: 'Hijacked', email: uniqueEmail('hijack'), phone_no: '+15550199', state_id: 0 },
    });
    expectFailure(response, 404, 'not_found');
    const after = await call('GET', '/api/user/my', { token: await loginAs(victim.email) });
    expect(after.body.data).toMatchObject({
      first_name: 'Victim',
      email: victim.email,
      phone_no: '+15550100',
      state_id: 1,
    });
  });

  it('answers 409 when the new email already has an account', async () => {
    const org = await signupOrganization();
    const a = await addUser(org);
    const b = await addUser(org);
    const response = await call('POST', `/api/user/update/${a.id}`, {
      token: org.token,
      body: { first_name: 'Rep', email: b.email.toUpperCase(), phone_no: '+15550100' },
    });
    expectFailure(response, 409, 'conflict');
  });

  it('answers 400 for an id that is not a positive integer', async () => {
    const org = await signupOrganization();
    const response = await call('POST', '/api/user/update/abc', {
      token: org.token,
      body: { first_name: 'Rep', email: org.email, phone_no: '+15550100' },
    });
    expectFailure(response, 400, 'bad_request');
    expect(response.body.error.code).toBe('id');
  });
});

describe('POST /api/user/change-password', () => {
  it('answers 422 with code confirm_password when the confirmation does not match', async () => {
    const org = await signupOrganization();
    const rep = await addUser(org);
    const response = await call('POST', '/api/user/change-password', {
      token: await loginAs(rep.email),
      body: { current_password: PASSWORD, new_password: 'new-password-1', confirm_password: 'new-password-2' },
    });
    expectFailure(response, 422, 'validation_error');
    expect(response.body.error.code).toBe('confirm_password');
    await loginAs(rep.email, PASSWORD);
  });

  it('holds back an address after five wrong current passwords (429 with Retry-After), as login does; another address still gets through', async () => {
    const org = await signupOrganization();
    const rep = await addUser(org);
    const token = await loginAs(rep.email);
    const guesser = randomIp();
    const attempt = (current: string, from = guesser) =>
      call('POST', '/api/user/change-password', {
        token,
        headers: { 'cf-connecting-ip': from },
        body: { current_password: current, new_password: 'brand-new-pass', confirm_password: 'brand-new-pass' },
      });
    for (let i = 0; i < 5; i++) expectFailure(await attempt(`wrong guess ${i}`), 422, 'validation_error');
    // Even the right password waits now: a stolen token cannot be used to guess the password.
    const held = await attempt(PASSWORD);
    expectFailure(held, 429, 'rate_limited');
    expect(Number(held.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await attempt(PASSWORD, randomIp())).status).toBe(200);
  });

  it('answers 422 with code current_password when the current password is wrong', async () => {
    const org = await signupOrganization();
    const rep = await addUser(org);
    const response = await call('POST', '/api/user/change-password', {
      token: await loginAs(rep.email),
      body: { current_password: 'not-my-password', new_password: 'new-password-1', confirm_password: 'new-password-1' },
    });
    expectFailure(response, 422, 'validation_error');
    expect(response.body.error.code).toBe('current_password');
    await loginAs(rep.email, PASSWORD);
  });

  it('answers 422 naming new_password when it is shorter than 8 characters', async () => {
    const org = await signupOrganization();
    const response = await call('POST', '/api/user/change-password', {
      token: org.token,
      body: { current_password: org.password, new_password: 'short', confirm_password: 'short' },
    });
    expectFailure(response, 422, 'validation_error');
    expect(response.body.error.code).toBe('new_password');
  });

  it('changes the password: login then works with the new password only', async () => {
    const org = await signupOrganization();
    const rep = await addUser(org);
    const response = await call('POST', '/api/user/change-password', {
      token: await loginAs(rep.email),
      body: { current_password: PASSWORD, new_password: 'new-password-1', confirm_password: 'new-password-1' },
    });
    expect(response.status).toBe(200);
    expect(response.body.success).toBe(true);
    expectFailure(await tryLogin(rep.email, PASSWORD), 401, 'unauthorized');
    expect((await tryLogin(rep.email, 'new-password-1')).status).toBe(200);
  });

  it('changes only the caller’s password', async () => {
    const org = await signupOrganization();
    const rep = await addUser(org);
    await call('POST', '/api/user/change-password', {
      token: org.token,
      body: { current_password: org.password, new_password: 'admin-new-pass', confirm_password: 'admin-new-pass' },
    });
    await loginAs(rep.email, PASSWORD);
    await loginAs(org.email, 'admin-new-pass');
  });
});

describe('POST /api/user/delete', () => {
  it('answers 403 to a non-admin', async () => {
    const org = await signupOrganization();
    const rep = await addUser(org);
    const other = await addUser(org);
    const response = await call('POST', '/api/user/delete', {
      token: await loginAs(rep.email),
      body: { user_id: other.id },
    });
    expectFailure(response, 403, 'forbidden');
    await loginAs(other.email);
  });

  it('answers 403 to an admin deleting themself', async () => {
    const org = await signupOrganization();
    const response = await call('POST', '/api/user/delete', { token: org.token, body: { user_id: org.userId } });
    expectFailure(response, 403, 'forbidden');
    expect(response.body.error.code).toBe('cannot_delete_self');
    expect((await call('GET', '/api/user/my', { token: org.token })).status).toBe(200);
  });

  it('deletes a user: they cannot log in (404), their existing token gets 401, and they leave the list', async () => {
    const org = await signupOrganization();
    const rep = await addUser(org);
    const repToken = await loginAs(rep.email);
    const response = await call('POST', '/api/user/delete', { token: org.token, body: { user_id: rep.id } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ success: true, data: { id: rep.id } });
    expectFailure(await tryLogin(rep.email, PASSWORD), 404, 'not_found');
    expectFailure(await call('GET', '/api/user/my', { token: repToken }), 401, 'unauthorized');
    const list = await call('GET', '/api/user/list', { token: org.token, query: { limit: 100 } });
    expect(list.text).not.toContain(rep.email);
    expectFailure(
      await call('POST', '/api/user/delete', { token: org.token, body: { user_id: rep.id } }),
      404,
      'not_found',
    );
  });

  it('answers 404 for another organization’s user, who keeps their access', async () => {
    const [org, other] = await Promise.all([signupOrganization(), signupOrganization()]);
    const victim = await addUser(other);
    expectFailure(
      await call('POST', '/api/user/delete', { token: org.token, body: { user_id: victim.id } }),
      404,
      'not_found',
    );
    await loginAs(victim.email);
  });

  it('keeps an active admin when two admins remove each other at once: the second removal is refused', async () => {
    // Each request's caller check passes before either writes; the removals must still be decided
    // one after the other, deletion included, or both go through and nobody can manage the users.
    const activeAdmins = (orgId: number) =>
      withOwnDatabase(readConfig(env), async (db) => {
        const result = await db.execute<{ admins: number }>(sql`select count(*)::int as admins
          from users u join roles r on r.id = u.role_id
          where u.organization_id = ${orgId} and r.name = 'admin' and u.state_id = 1 and u.deleted_at is null`);
        return Number(result.rows[0].admins);
      });
    for (const otherMove of ['demote', 'delete'] as const) {
      for (let round = 0; round < 3; round++) {
        const org = await signupOrganization();
        const roles = await roleIds(org);
        const other = await addUser(org, { role_id: roles.admin });
        const otherToken = await loginAs(other.email);
        const responses = await Promise.all([
          call('POST', '/api/user/delete', { token: org.token, body: { user_id: other.id } }),
          otherMove === 'demote'
            ? call('POST', `/api/user/update/${org.userId}`, {
                token: otherToken,
                body: { first_name: 'Ada', email: org.email, phone_no: '+15550100', role_id: roles.manager },
              })
            : call('POST', '/api/user/delete', { token: otherToken, body: { user_id: org.userId } }),
        ]);
        expect(await activeAdmins(org.orgId), `${otherMove}, round ${round}`).toBe(1);
        // The one refused: 409 when it got as far as the check, 401 when the other had already ended its caller.
        const refused = responses.filter((response) => response.status !== 200);
        expect(refused).toHaveLength(1);
        expect([
          [409, 'last_admin'],
          [401, 'invalid_token'],
        ]).toContainEqual([refused[0].status, refused[0].body.error?.code]);
      }
    }
  });

  it('answers 422 naming user_id when it is missing', async () => {
    const org = await signupOrganization();
    const response = await call('POST', '/api/user/delete', { token: org.token, body: {} });
    expectFailure(response, 422, 'validation_error');
    expect(response.body.error.code).toBe('user_id');
  });
});

describe('GET /api/user/global-search', () => {
  it('finds the organization’s users by name or email, and no other organization’s', async () => {
    const [org, other] = await Promise.all([signupOrganization(), signupOrganization()]);
    const quintessa = await addUser(org, { first_name: 'Quintessa' });
    await addUser(other, { first_name: 'Quintessa' });
    const byName = await call('GET', '/api/user/global-search', {
      token: org.token,
      query: { search_value: 'quintess' },
    });
    expect(byName.status).toBe(200);
    expect(byName.body.success).toBe(true);
    expect(byName.body.data.users.map((user: { id: number }) => user.id)).toEqual([quintessa.id]);
    const byEmail = await call('GET', '/api/user/global-search', {
      token: org.token,
      query: { search_value: quintessa.email },
    });
    expect(byEmail.body.data.users.map((user: { id: number }) => user.id)).toEqual([quintessa.id]);
    expect(byName.text).not.toMatch(/password|pbkdf2/i);
  });

  it('finds a user by the full name it shows (first and last name), as it finds a lead by its full name', async () => {
    const org = await signupOrganization();
    const user = await addUser(org, { first_name: 'Quirinus', last_name: 'Vexley' });
    await call('POST', '/api/lead/add', { token: org.token, body: { first_name: 'Quirinus', last_name: 'Vexley' } });
    for (const search_value of ['Quirinus Vexley', 'quirinus vex']) {
      const response = await call('GET', '/api/user/global-search', { token: org.token, query: { search_value } });
      expect(response.status).toBe(200);
      expect(response.body.data.leads, search_value).toHaveLength(1);
      expect(
        response.body.data.users.map((found: { id: number }) => found.id),
        search_value,
      ).toEqual([user.id]);
    }
  });

  it('answers 400 naming search_value when it is missing or blank', async () => {
    const org = await signupOrganization();
    for (const query of [{}, { search_value: '   ' }]) {
      const response = await call('GET', '/api/user/global-search', { token: org.token, query });
      expectFailure(response, 400, 'bad_request');
      expect(response.body.error.code).toBe('search_value');
    }
  });
});
