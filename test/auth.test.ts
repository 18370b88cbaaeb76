import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { hashPassword, PBKDF2_ITERATIONS, verifyPassword } from '../src/core/auth/passwords';
import { issueAccessToken } from '../src/core/auth/tokens';
import { call, expectFailure, signupOrganization, uniqueEmail } from './helpers/api';

const secret = env.JWT_SECRET as string;

describe('POST /api/auth/login', () => {
  it('answers 200 with the spec’s token object', async () => {
    const org = await signupOrganization();
    const response = await call('POST', '/api/auth/login', { body: { email: org.email, password: org.password } });
    expect(response.status).toBe(200);
    const body = response.body;
    expect(body).toMatchObject({
      success: true,
      token_type: 'Bearer',
      expires_in: 2592000,
      user: { id: org.userId, email: org.email, name: 'Ada Admin', organization_id: String(org.orgId), role_name: 'admin' },
    });
    expect(typeof body.access_token).toBe('string');
    expect(typeof body.user.organization_id).toBe('string');
    const lifetime = Date.parse(body.expires_at) - Date.now();
    expect(Math.abs(lifetime - 2592000 * 1000)).toBeLessThan(60_000);
    expect(response.text).not.toContain('pbkdf2');
  });

  it('accepts the email in any case', async () => {
    const org = await signupOrganization();
    const response = await call('POST', '/api/auth/login', { body: { email: org.email.toUpperCase(), password: org.password } });
    expect(response.status).toBe(200);
  });

  it('answers 400 naming the missing field when email or password is absent', async () => {
    const noPassword = await call('POST', '/api/auth/login', { body: { email: 'a@example.com' } });
    expectFailure(noPassword, 400, 'bad_request');
    expect(noPassword.body.error.code).toBe('password');
    const noEmail = await call('POST', '/api/auth/login', { body: { password: 'x' } });
    expectFailure(noEmail, 400, 'bad_request');
    expect(noEmail.body.error.code).toBe('email');
  });

  it('answers 401 for a wrong password', async () => {
    const org = await signupOrganization();
    expectFailure(await call('POST', '/api/auth/login', { body: { email: org.email, password: 'wrong password' } }), 401, 'unauthorized');
  });

  it('answers 404 for an email with no account', async () => {
    expectFailure(await call('POST', '/api/auth/login', { body: { email: uniqueEmail('nobody'), password: 'whatever1' } }), 404, 'not_found');
  });

  it('answers 403 for an inactive account', async () => {
    const org = await signupOrganization();
    const email = uniqueEmail('rep');
    const added = await call('POST', '/api/user/add', { token: org.token, body: { first_name: 'Rep', email, phone_no: '+15550100', password: 'password123' } });
    expect(added.status).toBe(201);
    const deactivated = await call('POST', `/api/user/update/${added.body.data.id}`, {
      token: org.token,
      body: { first_name: 'Rep', email, phone_no: '+15550100', state_id: 0 },
    });
    expect(deactivated.status).toBe(200);
    const response = await call('POST', '/api/auth/login', { body: { email, password: 'password123' } });
    expectFailure(response, 403, 'forbidden');
    expect(response.body.error.code).toBe('account_inactive');
  });
});

describe('POST /api/auth/signup', () => {
  it('creates an organization whose first user is its admin', async () => {
    const org = await signupOrganization();
    const me = await call('GET', '/api/user/my', { token: org.token });
    expect(me.body.data).toMatchObject({ id: org.userId, role_name: 'admin', organization_id: String(org.orgId) });
    expect(me.body.data.organization_name).toMatch(/^Acme /);
  });

  it('answers 409 for an email that already has an account, whatever its case', async () => {
    const org = await signupOrganization();
    const response = await call('POST', '/api/auth/signup', {
      body: { organization_name: 'Copy', first_name: 'Eve', email: org.email.toUpperCase(), password: 'password123' },
    });
    expectFailure(response, 409, 'conflict');
  });

  it('answers 422 naming password when it is shorter than 8 characters', async () => {
    const response = await call('POST', '/api/auth/signup', {
      body: { organization_name: 'Short', first_name: 'Sam', email: uniqueEmail(), password: 'short' },
    });
    expectFailure(response, 422, 'validation_error');
    expect(response.body.error.code).toBe('password');
  });
});

describe('bearer tokens', () => {
  it('refuses a missing, malformed or tampered token with 401', async () => {
    const org = await signupOrganization();
    expectFailure(await call('GET', '/api/user/my'), 401, 'unauthorized');
    expectFailure(await call('GET', '/api/user/my', { headers: { authorization: 'Token abc' } }), 401, 'unauthorized');
    const [header, payload, signature] = org.token.split('.');
    const forged = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/')));
    forged.org = '999999';
    const forgedPayload = btoa(JSON.stringify(forged)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
    expectFailure(await call('GET', '/api/user/my', { token: `${header}.${forgedPayload}.${signature}` }), 401, 'unauthorized');
    const unsigned = `${btoa(JSON.stringify({ alg: 'none', typ: 'JWT' })).replace(/=+$/, '')}.${payload}.`;
    expectFailure(await call('GET', '/api/user/my', { token: unsigned }), 401, 'unauthorized');
  });

  it('refuses a token signed with another secret', async () => {
    const org = await signupOrganization();
    const { token } = await issueAccessToken('another-secret-that-is-long-enough-to-sign', { userId: org.userId, orgId: org.orgId });
    expectFailure(await call('GET', '/api/user/my', { token }), 401, 'unauthorized');
  });

  it('refuses an expired token with 401', async () => {
    const org = await signupOrganization();
    const { token } = await issueAccessToken(secret, { userId: org.userId, orgId: org.orgId }, new Date(Date.now() - 3_600_000), 60);
    const response = await call('GET', '/api/user/my', { token });
    expectFailure(response, 401, 'unauthorized');
    expect(response.body.error.code).toBe('token_expired');
  });

  it('accepts a freshly minted token of the same user', async () => {
    const org = await signupOrganization();
    const { token } = await issueAccessToken(secret, { userId: org.userId, orgId: org.orgId });
    expect((await call('GET', '/api/user/my', { token })).status).toBe(200);
  });
});

describe('POST /api/auth/logout', () => {
  it('revokes the presented token and leaves the user’s other tokens working', async () => {
    const org = await signupOrganization();
    const second = (await call('POST', '/api/auth/login', { body: { email: org.email, password: org.password } })).body.access_token;
    const response = await call('POST', '/api/auth/logout', { token: org.token });
    expect(response.status).toBe(200);
    expect(response.body.success).toBe(true);
    expectFailure(await call('GET', '/api/user/my', { token: org.token }), 401, 'unauthorized');
    expect((await call('GET', '/api/user/my', { token: second })).status).toBe(200);
  });
});

describe('passwords', () => {
  it('uses PBKDF2-SHA-256 with exactly 100 000 iterations (the Workers production maximum)', async () => {
    expect(PBKDF2_ITERATIONS).toBe(100_000);
    const stored = await hashPassword('correct horse');
    expect(stored.startsWith('pbkdf2-sha256$100000$')).toBe(true);
    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('correct horsE', stored)).toBe(false);
    expect(await hashPassword('correct horse')).not.toBe(stored);
  });
});

describe('rate limiting', () => {
  it('answers 429 with Retry-After after 20 login attempts a minute from one IP', async () => {
    const ip = `192.0.2.${Math.floor(Math.random() * 250) + 1}`;
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<typeof call>> | undefined;
    for (let attempt = 0; attempt < 30 && !limited; attempt++) {
      const response = await call('POST', '/api/auth/login', { body: { email: uniqueEmail('nobody'), password: 'whatever1' }, headers: { 'cf-connecting-ip': ip } });
      statuses.push(response.status);
      if (response.status === 429) limited = response;
    }
    expect(limited, `statuses: ${statuses.join(',')}`).toBeDefined();
    expect(statuses.filter((status) => status === 404).length).toBeGreaterThanOrEqual(20);
    expectFailure(limited as Awaited<ReturnType<typeof call>>, 429, 'rate_limited');
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
