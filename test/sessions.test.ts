/**
 * When a bearer token stops working: a password change, a role or state change, or the
 * organization's deactivation ends every token issued before (checked by the same statement that
 * scopes the request, so it costs no round trip); the password change hands the caller a new one.
 */
import { sql } from 'drizzle-orm';
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { withOwnDatabase } from '../src/db/client';
import { readConfig } from '../src/env';
import { call, expectFailure, randomIp, signupOrganization, uniqueEmail, type SignedUp } from './helpers/api';

const PASSWORD = 'rep-password-1';

async function login(email: string, password = PASSWORD): Promise<string> {
  const response = await call('POST', '/api/auth/login', {
    body: { email, password },
    headers: { 'cf-connecting-ip': randomIp() },
  });
  if (response.status !== 200) throw new Error(`login failed: ${response.status} ${response.text}`);
  return response.body.access_token;
}

async function addRep(admin: SignedUp): Promise<{ id: number; email: string }> {
  const email = uniqueEmail('rep');
  const response = await call('POST', '/api/user/add', {
    token: admin.token,
    body: { first_name: 'Rita', last_name: 'Rep', email, phone_no: '+15550123', password: PASSWORD },
  });
  if (response.status !== 201) throw new Error(`add user failed: ${response.status} ${response.text}`);
  return { id: response.body.data.id, email };
}

const works = async (token: string) => (await call('GET', '/api/user/my', { token })).status === 200;

describe('token lifetime', () => {
  it('ends every session on a password change and answers with a fresh token for the caller', async () => {
    const org = await signupOrganization('Sessions');
    const rep = await addRep(org);
    const [laptop, phone] = [await login(rep.email), await login(rep.email)];
    const changed = await call('POST', '/api/user/change-password', {
      token: laptop,
      body: { current_password: PASSWORD, new_password: 'brand-new-pass', confirm_password: 'brand-new-pass' },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ token_type: 'Bearer', user: { id: rep.id, role_name: 'sales_rep' } });
    expectFailure(await call('GET', '/api/user/my', { token: laptop }), 401, 'unauthorized');
    expectFailure(await call('GET', '/api/user/my', { token: phone }), 401, 'unauthorized');
    expect(await works(changed.body.data.access_token)).toBe(true);
    expect(await works(await login(rep.email, 'brand-new-pass'))).toBe(true);
  });

  it('ends a user’s sessions when an admin changes the role or deactivates, but not on other edits', async () => {
    const org = await signupOrganization('Sessions');
    const rep = await addRep(org);
    const roles = Object.fromEntries(
      (await call('GET', '/api/role/list', { token: org.token })).body.data.map(
        (role: { name: string; id: number }) => [role.name, role.id],
      ),
    );
    const update = (changes: Record<string, unknown>) =>
      call('POST', `/api/user/update/${rep.id}`, {
        token: org.token,
        body: { first_name: 'Rita', email: rep.email, phone_no: '+15550123', ...changes },
      });
    const before = await login(rep.email);
    expect((await update({ first_name: 'Renamed', role_id: roles.sales_rep })).status).toBe(200);
    expect(await works(before)).toBe(true);
    expect((await update({ role_id: roles.manager })).status).toBe(200);
    expectFailure(await call('GET', '/api/user/my', { token: before }), 401, 'unauthorized');
    const asManager = await login(rep.email);
    expect((await call('GET', '/api/user/my', { token: asManager })).body.data.role_name).toBe('manager');
    expect((await update({ state_id: 0 })).status).toBe(200);
    expectFailure(await call('GET', '/api/user/my', { token: asManager }), 401, 'unauthorized');
  });

  it('ends every token of a deactivated organization', async () => {
    const org = await signupOrganization('Sessions');
    expect(await works(org.token)).toBe(true);
    await withOwnDatabase(readConfig(env), (db) =>
      db.execute(sql`update organizations set state_id = 0 where id = ${org.orgId}`),
    );
    expectFailure(await call('GET', '/api/user/my', { token: org.token }), 401, 'unauthorized');
  });
});
