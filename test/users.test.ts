import { beforeAll, describe, expect, it } from 'vitest';
import { call, expectFailure, signupOrganization, uniqueEmail, type SignedUp } from './helpers/api';

async function addUser(admin: SignedUp, overrides: Record<string, unknown> = {}) {
  const body = { first_name: 'Rep', last_name: 'One', email: uniqueEmail('rep'), phone_no: '+15550100', password: 'password123', ...overrides };
  const response = await call('POST', '/api/user/add', { token: admin.token, body });
  return { response, body };
}

async function loginAs(email: string, password = 'password123'): Promise<string> {
  const response = await call('POST', '/api/auth/login', { body: { email, password } });
  if (response.status !== 200) throw new Error(`login failed: ${response.text}`);
  return response.body.access_token;
}

describe('users of an organization', () => {
  let admin: SignedUp;
  let other: SignedUp;
  let roles: Record<string, number>;

  beforeAll(async () => {
    [admin, other] = await Promise.all([signupOrganization('Users'), signupOrganization('Other')]);
    const list = await call('GET', '/api/role/list', { token: admin.token });
    roles = Object.fromEntries(list.body.data.map((role: { name: string; id: number }) => [role.name, role.id]));
  });

  it('GET /api/user/my returns the caller with its organization name and no password hash', async () => {
    const response = await call('GET', '/api/user/my', { token: admin.token });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ id: admin.userId, email: admin.email, role_name: 'admin', state_id: 1 });
    expect(response.body.data.organization_name).toMatch(/^Users /);
    expect(response.text).not.toMatch(/password|pbkdf2/);
  });

  it('POST /api/user/add creates a sales_rep by default and answers 201', async () => {
    const { response, body } = await addUser(admin);
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({ email: body.email, role_name: 'sales_rep', first_name: 'Rep', phone_no: '+15550100' });
    expect(response.text).not.toContain('pbkdf2');
  });

  it('refuses a role of another organization with 422 naming role_id', async () => {
    const foreignRoles = await call('GET', '/api/role/list', { token: other.token });
    const { response } = await addUser(admin, { role_id: foreignRoles.body.data[0].id });
    expectFailure(response, 422, 'validation_error');
    expect(response.body.error.code).toBe('role_id');
  });

  it('answers 409 for an email that is already a user', async () => {
    const { response } = await addUser(admin, { email: other.email.toUpperCase() });
    expectFailure(response, 409, 'conflict');
  });

  it('lets only admins add users', async () => {
    const { body } = await addUser(admin);
    const repToken = await loginAs(body.email);
    expectFailure((await addUser({ ...admin, token: repToken })).response, 403, 'forbidden');
  });

  it('GET /api/user/list filters by role_id and state_id and never shows another organization', async () => {
    await addUser(admin, { role_id: roles.manager });
    const managers = await call('GET', '/api/user/list', { token: admin.token, query: { role_id: String(roles.manager) } });
    expect(managers.status).toBe(200);
    expect(managers.body.data.length).toBeGreaterThan(0);
    expect(managers.body.data.every((user: { role_name: string }) => user.role_name === 'manager')).toBe(true);
    const both = await call('GET', '/api/user/list', { token: admin.token, query: { role_id: `${roles.manager},${roles.admin}`, state_id: '1' } });
    expect(new Set(both.body.data.map((user: { role_name: string }) => user.role_name))).toEqual(new Set(['manager', 'admin']));
    const all = await call('GET', '/api/user/list', { token: admin.token, query: { limit: 100 } });
    expect(all.text).not.toContain(other.email);
  });

  it('answers 400 naming role_id for a non-numeric member of the comma list', async () => {
    const response = await call('GET', '/api/user/list', { token: admin.token, query: { role_id: '1,abc' } });
    expectFailure(response, 400, 'bad_request');
    expect(response.body.error.code).toBe('role_id');
  });

  it('pages with total/page/limit, caps limit at 100, and walks every user once by cursor', async () => {
    const org = await signupOrganization('Paging');
    await Promise.all(Array.from({ length: 6 }, () => addUser(org)));
    const first = await call('GET', '/api/user/list', { token: org.token, query: { limit: 2, order_by: 'email', order_in: 'asc' } });
    expect(first.body).toMatchObject({ success: true, total: 7, page: 1, limit: 2 });
    expect(first.body.data).toHaveLength(2);
    const seen: number[] = first.body.data.map((user: { id: number }) => user.id);
    let cursor = first.body.next_cursor;
    while (cursor) {
      const next = await call('GET', '/api/user/list', { token: org.token, query: { limit: 2, order_by: 'email', order_in: 'ASC', cursor } });
      expect(next.status).toBe(200);
      seen.push(...next.body.data.map((user: { id: number }) => user.id));
      cursor = next.body.next_cursor;
    }
    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);
    const byPage = await call('GET', '/api/user/list', { token: org.token, query: { limit: 2, page: 2, order_by: 'email', order_in: 'asc' } });
    expect(byPage.body.data.map((user: { id: number }) => user.id)).toEqual(seen.slice(2, 4));
    const capped = await call('GET', '/api/user/list', { token: org.token, query: { limit: 500 } });
    expect(capped.body.limit).toBe(100);
  });

  it('matches search_value against name and email', async () => {
    const { body } = await addUser(admin, { first_name: 'Zebulon' });
    const response = await call('GET', '/api/user/list', { token: admin.token, query: { search_value: 'zebul' } });
    expect(response.body.data.map((user: { email: string }) => user.email)).toContain(body.email);
  });

  it('POST /api/user/update/:id lets a user update themself but not others, unless admin', async () => {
    const a = await addUser(admin);
    const b = await addUser(admin);
    const aToken = await loginAs(a.body.email);
    const self = await call('POST', `/api/user/update/${a.response.body.data.id}`, {
      token: aToken,
      body: { first_name: 'Renamed', email: a.body.email, phone_no: '+15550199', timezone: 'Europe/Paris', language: 'fr' },
    });
    expect(self.status).toBe(200);
    expect(self.body.data).toMatchObject({ first_name: 'Renamed', timezone: 'Europe/Paris', language: 'fr' });
    const others = await call('POST', `/api/user/update/${b.response.body.data.id}`, {
      token: aToken,
      body: { first_name: 'Nope', email: b.body.email, phone_no: '+15550199' },
    });
    expectFailure(others, 403, 'forbidden');
    const promote = await call('POST', `/api/user/update/${a.response.body.data.id}`, {
      token: aToken,
      body: { first_name: 'Renamed', email: a.body.email, phone_no: '+15550199', role_id: roles.admin },
    });
    expectFailure(promote, 403, 'forbidden');
  });

  it('POST /api/user/change-password checks the current password and the confirmation', async () => {
    const { body } = await addUser(admin);
    const token = await loginAs(body.email);
    const mismatch = await call('POST', '/api/user/change-password', {
      token,
      body: { current_password: 'password123', new_password: 'new-password-1', confirm_password: 'new-password-2' },
    });
    expectFailure(mismatch, 422, 'validation_error');
    expect(mismatch.body.error.code).toBe('confirm_password');
    const wrong = await call('POST', '/api/user/change-password', {
      token,
      body: { current_password: 'not-my-password', new_password: 'new-password-1', confirm_password: 'new-password-1' },
    });
    expectFailure(wrong, 422, 'validation_error');
    expect(wrong.body.error.code).toBe('current_password');
    const changed = await call('POST', '/api/user/change-password', {
      token,
      body: { current_password: 'password123', new_password: 'new-password-1', confirm_password: 'new-password-1' },
    });
    expect(changed.status).toBe(200);
    expectFailure(await call('POST', '/api/auth/login', { body: { email: body.email, password: 'password123' } }), 401, 'unauthorized');
    expect((await call('POST', '/api/auth/login', { body: { email: body.email, password: 'new-password-1' } })).status).toBe(200);
  });

  it('POST /api/user/delete is admin-only, refuses self-deletion, and ends the user’s access', async () => {
    const { response, body } = await addUser(admin);
    const userToken = await loginAs(body.email);
    expectFailure(await call('POST', '/api/user/delete', { token: userToken, body: { user_id: admin.userId } }), 403, 'forbidden');
    const self = await call('POST', '/api/user/delete', { token: admin.token, body: { user_id: admin.userId } });
    expectFailure(self, 403, 'forbidden');
    expect(self.body.error.code).toBe('cannot_delete_self');
    const deleted = await call('POST', '/api/user/delete', { token: admin.token, body: { user_id: response.body.data.id } });
    expect(deleted.status).toBe(200);
    expectFailure(await call('GET', '/api/user/my', { token: userToken }), 401, 'unauthorized');
    expectFailure(await call('POST', '/api/auth/login', { body: { email: body.email, password: 'password123' } }), 404, 'not_found');
    const list = await call('GET', '/api/user/list', { token: admin.token, query: { limit: 100 } });
    expect(list.text).not.toContain(body.email);
  });

  it('GET /api/user/global-search finds users by name or email and requires search_value', async () => {
    const { body } = await addUser(admin, { first_name: 'Quintessa' });
    const response = await call('GET', '/api/user/global-search', { token: admin.token, query: { search_value: 'quintess' } });
    expect(response.status).toBe(200);
    expect(response.body.data.users.map((user: { email: string }) => user.email)).toContain(body.email);
    const elsewhere = await call('GET', '/api/user/global-search', { token: other.token, query: { search_value: 'quintess' } });
    expect(elsewhere.text).not.toContain(body.email);
    expectFailure(await call('GET', '/api/user/global-search', { token: admin.token }), 400, 'bad_request');
  });
});

describe('roles', () => {
  it('GET /api/role/list shows the default roles of the caller’s organization only', async () => {
    const [a, b] = await Promise.all([signupOrganization('RolesA'), signupOrganization('RolesB')]);
    await call('POST', '/api/role/add', { token: b.token, body: { name: 'only-in-b' } });
    const response = await call('GET', '/api/role/list', { token: a.token, query: { order_by: 'name', order_in: 'asc' } });
    expect(response.status).toBe(200);
    expect(response.body.data.map((role: { name: string }) => role.name)).toEqual(['admin', 'manager', 'sales_rep']);
  });

  it('POST /api/role/add creates a role; a duplicate name is 409; a short name is 422; non-admins get 403', async () => {
    const org = await signupOrganization('Roles');
    const created = await call('POST', '/api/role/add', { token: org.token, body: { name: 'Team Lead', description: 'Leads a pod' } });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ name: 'Team Lead', description: 'Leads a pod', state_id: 1 });
    expectFailure(await call('POST', '/api/role/add', { token: org.token, body: { name: 'team lead' } }), 409, 'conflict');
    const short = await call('POST', '/api/role/add', { token: org.token, body: { name: 'x' } });
    expectFailure(short, 422, 'validation_error');
    expect(short.body.error.code).toBe('name');
    const { body } = await addUser(org);
    const repToken = await loginAs(body.email);
    expectFailure(await call('POST', '/api/role/add', { token: repToken, body: { name: 'Sneaky' } }), 403, 'forbidden');
  });
});
