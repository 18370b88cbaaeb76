/**
 * Spec "Authentication": login, signup (beyond the spec), logout, bearer tokens, password
 * hashing and the login rate limit. Every test signs up its own organizations.
 */
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../src/app';
import { hashPassword, PBKDF2_ITERATIONS, verifyPassword } from '../src/core/auth/passwords';
import { issueAccessToken } from '../src/core/auth/tokens';
import { openDatabase } from '../src/db/client';
import {
  type ApiResponse,
  call,
  expectFailure,
  randomIp,
  type SignedUp,
  signupOrganization,
  uniqueEmail,
} from './helpers/api';

const secret = env.JWT_SECRET as string;
const THIRTY_DAYS = 2_592_000;

/** The fields the spec lists for the login body; `message` and `data` are the envelope's. */
const TOKEN_OBJECT_KEYS = ['access_token', 'expires_at', 'expires_in', 'success', 'token_type', 'user'];
const ENVELOPE_KEYS = ['data', 'message'];

/** Each login comes from its own address unless told otherwise, so the per-IP auth limit only bites the rate-limit test. */
function login(
  email: unknown,
  password: unknown,
  headers: Record<string, string> = { 'cf-connecting-ip': randomIp() },
) {
  const body: Record<string, unknown> = {};
  if (email !== undefined) body.email = email;
  if (password !== undefined) body.password = password;
  return call('POST', '/api/auth/login', { body, headers });
}

function base64UrlJson(part: string): Record<string, unknown> {
  return JSON.parse(atob(part.replace(/-/g, '+').replace(/_/g, '/')));
}

function toBase64Url(value: unknown): string {
  return btoa(JSON.stringify(value)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
}

/** Runs SQL as the database owner, outside any tenant scope (to set up states the API cannot reach). */
async function asOwner(statement: ReturnType<typeof sql>): Promise<void> {
  const handle = openDatabase(env as never);
  try {
    await handle.db.execute(statement);
  } finally {
    await handle.close();
  }
}

async function addActiveUser(org: SignedUp, password = 'password123') {
  const email = uniqueEmail('rep');
  const added = await call('POST', '/api/user/add', {
    token: org.token,
    body: { first_name: 'Rep', last_name: 'Ray', email, phone_no: '+15550100', password },
  });
  expect(added.status, added.text).toBe(201);
  return { id: added.body.data.id as number, email, password };
}

/** Checks a login or signup body against the spec's token object for the given user. */
function expectTokenObject(
  response: ApiResponse,
  user: { id: number; email: string; name: string; orgId: number; roleName: string },
): void {
  const body = response.body;
  expect(Object.keys(body).sort()).toEqual([...TOKEN_OBJECT_KEYS, ...ENVELOPE_KEYS].sort());
  expect(body.success).toBe(true);
  expect(body.token_type).toBe('Bearer');
  expect(body.expires_in).toBe(THIRTY_DAYS);
  expect(body.access_token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  expect(body.user).toEqual({
    id: user.id,
    email: user.email,
    name: user.name,
    organization_id: String(user.orgId),
    role_name: user.roleName,
  });
  expect(typeof body.user.organization_id).toBe('string');
  expect(body.expires_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
  expect(Math.abs(Date.parse(body.expires_at) - (Date.now() + THIRTY_DAYS * 1000))).toBeLessThan(60_000);
  // The token itself: HS256 with exp, iat and jti, living exactly expires_in seconds.
  const [header, payload] = body.access_token.split('.');
  expect(base64UrlJson(header).alg).toBe('HS256');
  const claims = base64UrlJson(payload) as { exp: number; iat: number; jti: string };
  expect(claims.exp - claims.iat).toBe(THIRTY_DAYS);
  expect(claims.jti).toEqual(expect.any(String));
  expect(claims.exp * 1000).toBe(Date.parse(body.expires_at));
  expect(response.text).not.toMatch(/pbkdf2|password/i);
}

describe('POST /api/auth/login', () => {
  it('answers 200 with success, access_token, token_type Bearer, expires_in 2592000, expires_at and the user', async () => {
    const org = await signupOrganization();
    const response = await login(org.email, org.password);
    expect(response.status).toBe(200);
    expectTokenObject(response, {
      id: org.userId,
      email: org.email,
      name: 'Ada Admin',
      orgId: org.orgId,
      roleName: 'admin',
    });
  });

  it('issues a token that authenticates the user', async () => {
    const org = await signupOrganization();
    const token = (await login(org.email, org.password)).body.access_token;
    const me = await call('GET', '/api/user/my', { token });
    expect(me.status).toBe(200);
    expect(me.body.data.id).toBe(org.userId);
  });

  it('gives the role name of a non-admin user', async () => {
    const org = await signupOrganization();
    const rep = await addActiveUser(org);
    const response = await login(rep.email, rep.password);
    expect(response.status).toBe(200);
    expectTokenObject(response, {
      id: rep.id,
      email: rep.email,
      name: 'Rep Ray',
      orgId: org.orgId,
      roleName: 'sales_rep',
    });
  });

  it('accepts the email in any letter case', async () => {
    const org = await signupOrganization();
    expect((await login(org.email.toUpperCase(), org.password)).status).toBe(200);
  });

  it('answers 400 naming email when email is missing', async () => {
    const response = await login(undefined, 'whatever1');
    expectFailure(response, 400, 'bad_request');
    expect(response.body.error.code).toBe('email');
  });

  it('answers 400 naming password when password is missing', async () => {
    const response = await login('someone@example.com', undefined);
    expectFailure(response, 400, 'bad_request');
    expect(response.body.error.code).toBe('password');
  });

  it('answers 400 naming email or password with the rule broken, not "is required", for a value that is too long or not text', async () => {
    const cases: [unknown, unknown, string][] = [
      [`${'a'.repeat(250)}@example.com`, 'whatever1', 'email: must be at most 254 characters'],
      ['someone@example.com', 'p'.repeat(257), 'password: must be at most 256 characters'],
      [['someone@example.com'], 'whatever1', 'email: must be a string'],
      ['someone@example.com', 12345678, 'password: must be a string'],
    ];
    for (const [email, password, message] of cases) {
      const response = await login(email, password);
      expectFailure(response, 400, 'bad_request');
      expect(response.body.error.message).toBe(message);
    }
  });

  it('answers 400 when email and password are empty strings', async () => {
    expectFailure(await login('', ''), 400, 'bad_request');
    expectFailure(await call('POST', '/api/auth/login', { body: {} }), 400, 'bad_request');
  });

  it('answers 401 for a wrong password', async () => {
    const org = await signupOrganization();
    const response = await login(org.email, 'wrong password');
    expectFailure(response, 401, 'unauthorized');
    expect(response.text).not.toContain('access_token');
  });

  it('answers 403 for an inactive account, and the account’s existing token stops working', async () => {
    const org = await signupOrganization();
    const rep = await addActiveUser(org);
    const repToken = (await login(rep.email, rep.password)).body.access_token;
    const deactivated = await call('POST', `/api/user/update/${rep.id}`, {
      token: org.token,
      body: { first_name: 'Rep', email: rep.email, phone_no: '+15550100', state_id: 0 },
    });
    expect(deactivated.status, deactivated.text).toBe(200);
    expect(deactivated.body.data.state_id).toBe(0);
    const response = await login(rep.email, rep.password);
    expectFailure(response, 403, 'forbidden');
    expect(response.body.error.code).toBe('account_inactive');
    expectFailure(await call('GET', '/api/user/my', { token: repToken }), 401, 'unauthorized');
  });

  it('answers 403 when the account has no active organization', async () => {
    const org = await signupOrganization();
    await asOwner(sql`update organizations set state_id = 0 where id = ${org.orgId}`);
    const response = await login(org.email, org.password);
    expectFailure(response, 403, 'forbidden');
    expect(response.body.error.code).toBe('no_organization');
  });

  it('answers 404 for an email with no account', async () => {
    expectFailure(await login(uniqueEmail('nobody'), 'whatever1'), 404, 'not_found');
  });
});

describe('POST /api/auth/signup', () => {
  it('answers 201 with the same token object as login, for the new organization’s admin', async () => {
    const email = uniqueEmail('founder');
    const response = await call('POST', '/api/auth/signup', {
      body: {
        organization_name: 'Founders Inc',
        first_name: 'Grace',
        last_name: 'Hopper',
        email,
        password: 'long enough',
      },
      headers: { 'cf-connecting-ip': randomIp() },
    });
    expect(response.status, response.text).toBe(201);
    expectTokenObject(response, {
      id: response.body.user.id,
      email,
      name: 'Grace Hopper',
      orgId: Number(response.body.user.organization_id),
      roleName: 'admin',
    });
    expect(Number(response.body.user.organization_id)).toBeGreaterThan(0);
    expect((await login(email, 'long enough')).status).toBe(200);
  });

  it('makes the signing-up user the admin of a new organization with the given name', async () => {
    const org = await signupOrganization('Widgets');
    const me = await call('GET', '/api/user/my', { token: org.token });
    expect(me.body.data).toMatchObject({
      id: org.userId,
      email: org.email,
      role_name: 'admin',
      organization_id: String(org.orgId),
    });
    expect(me.body.data.organization_name).toMatch(/^Widgets /);
  });

  it('gives every signup its own organization', async () => {
    const [a, b] = await Promise.all([signupOrganization(), signupOrganization()]);
    expect(a.orgId).not.toBe(b.orgId);
  });

  it('answers 409 for an email that already has an account, in any letter case', async () => {
    const org = await signupOrganization();
    for (const email of [org.email, org.email.toUpperCase()]) {
      const response = await call('POST', '/api/auth/signup', {
        body: { organization_name: 'Copy', first_name: 'Eve', email, password: 'password123' },
        headers: { 'cf-connecting-ip': randomIp() },
      });
      expectFailure(response, 409, 'conflict');
    }
  });

  it('answers 422 naming password when it is shorter than 8 characters', async () => {
    const response = await call('POST', '/api/auth/signup', {
      body: { organization_name: 'Short', first_name: 'Sam', email: uniqueEmail(), password: 'short12' },
      headers: { 'cf-connecting-ip': randomIp() },
    });
    expectFailure(response, 422, 'validation_error');
    expect(response.body.error.code).toBe('password');
  });

  it('answers 403 when SIGNUP_ENABLED is "false"', async () => {
    const ctx = createExecutionContext();
    const request = new Request('http://lead.test/api/auth/signup', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'cf-connecting-ip': randomIp() },
      body: JSON.stringify({
        organization_name: 'Closed',
        first_name: 'Nia',
        email: uniqueEmail(),
        password: 'password123',
      }),
    });
    const response = await buildApp().fetch(request, { ...env, SIGNUP_ENABLED: 'false' }, ctx);
    await waitOnExecutionContext(ctx);
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({
      success: false,
      error: { type: 'forbidden', code: 'signup_disabled' },
    });
  });
});

describe('POST /api/auth/logout', () => {
  it('revokes the presented token: it is refused with 401 afterwards, while another token of the same user still works', async () => {
    const org = await signupOrganization();
    const second = (await login(org.email, org.password)).body.access_token;
    const response = await call('POST', '/api/auth/logout', { token: org.token });
    expect(response.status).toBe(200);
    expect(response.body.success).toBe(true);
    expectFailure(await call('GET', '/api/user/my', { token: org.token }), 401, 'unauthorized');
    expectFailure(await call('POST', '/api/auth/logout', { token: org.token }), 401, 'unauthorized');
    expect((await call('GET', '/api/user/my', { token: second })).status).toBe(200);
  });

  it('answers 401 without a token', async () => {
    expectFailure(await call('POST', '/api/auth/logout'), 401, 'unauthorized');
  });
});

describe('bearer tokens', () => {
  it('answers 401 when the Authorization header is missing', async () => {
    expectFailure(await call('GET', '/api/user/my'), 401, 'unauthorized');
  });

  it('answers 401 for a malformed Authorization header', async () => {
    for (const authorization of ['Token abc', 'Bearer', 'Bearer not-a-jwt', 'Basic dXNlcjpwYXNz']) {
      expectFailure(await call('GET', '/api/user/my', { headers: { authorization } }), 401, 'unauthorized');
    }
  });

  it('answers 401 for a token whose payload was tampered with', async () => {
    const [a, b] = await Promise.all([signupOrganization(), signupOrganization()]);
    const [header, payload, signature] = a.token.split('.');
    const claims = base64UrlJson(payload);
    for (const forged of [
      { ...claims, org: String(b.orgId) },
      { ...claims, sub: String(b.userId) },
      { ...claims, exp: Number(claims.exp) + 3600 },
    ]) {
      expectFailure(
        await call('GET', '/api/user/my', { token: `${header}.${toBase64Url(forged)}.${signature}` }),
        401,
        'unauthorized',
      );
    }
    // A flipped signature character.
    const flipped = signature.startsWith('A') ? `B${signature.slice(1)}` : `A${signature.slice(1)}`;
    expectFailure(await call('GET', '/api/user/my', { token: `${header}.${payload}.${flipped}` }), 401, 'unauthorized');
  });

  it('answers 401 for a token with alg none', async () => {
    const org = await signupOrganization();
    const [, payload] = org.token.split('.');
    const unsigned = `${toBase64Url({ alg: 'none', typ: 'JWT' })}.${payload}.`;
    expectFailure(await call('GET', '/api/user/my', { token: unsigned }), 401, 'unauthorized');
  });

  it('answers 401 for a token signed with another secret', async () => {
    const org = await signupOrganization();
    const { token } = await issueAccessToken('another-secret-that-is-long-enough-to-sign', {
      userId: org.userId,
      orgId: org.orgId,
      generation: 0,
    });
    expectFailure(await call('GET', '/api/user/my', { token }), 401, 'unauthorized');
  });

  it('answers 401 for an expired token (exp in the past)', async () => {
    const org = await signupOrganization();
    const { token, expiresAt } = await issueAccessToken(
      secret,
      { userId: org.userId, orgId: org.orgId, generation: 0 },
      new Date(Date.now() - 3_600_000),
      60,
    );
    expect(expiresAt.getTime()).toBeLessThan(Date.now());
    const response = await call('GET', '/api/user/my', { token });
    expectFailure(response, 401, 'unauthorized');
    expect(response.body.error.code).toBe('token_expired');
  });

  it('answers 401 for a correctly signed token whose organization is not the user’s', async () => {
    const [a, b] = await Promise.all([signupOrganization(), signupOrganization()]);
    const { token } = await issueAccessToken(secret, { userId: a.userId, orgId: b.orgId, generation: 0 });
    expectFailure(await call('GET', '/api/user/my', { token }), 401, 'unauthorized');
    expectFailure(await call('GET', '/api/user/list', { token }), 401, 'unauthorized');
  });

  it('accepts a freshly minted token of the same user (the control for the cases above)', async () => {
    const org = await signupOrganization();
    const { token } = await issueAccessToken(secret, { userId: org.userId, orgId: org.orgId, generation: 0 });
    expect((await call('GET', '/api/user/my', { token })).status).toBe(200);
  });
});

describe('passwords', () => {
  it('hashes with PBKDF2-SHA-256 at exactly 100 000 iterations (the Workers production maximum)', async () => {
    expect(PBKDF2_ITERATIONS).toBe(100_000);
    const stored = await hashPassword('correct horse');
    expect(stored.startsWith('pbkdf2-sha256$100000$')).toBe(true);
    expect(await hashPassword('correct horse')).not.toBe(stored);
  });

  it('verifies the right password and refuses any other', async () => {
    const stored = await hashPassword('correct horse');
    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('correct horsE', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
    expect(await verifyPassword('correct horse', 'pbkdf2-sha256$999999$AAAA$AAAA')).toBe(false);
    expect(await verifyPassword('correct horse', 'plaintext')).toBe(false);
  });

  it('stores the hash of a signed-up user with the scheme and iteration count', async () => {
    const org = await signupOrganization();
    const handle = openDatabase(env as never);
    try {
      const result = await handle.db.execute<{ password_hash: string }>(
        sql`select password_hash from users where id = ${org.userId}`,
      );
      const stored = result.rows[0].password_hash;
      expect(stored.startsWith('pbkdf2-sha256$100000$')).toBe(true);
      expect(await verifyPassword(org.password, stored)).toBe(true);
    } finally {
      await handle.close();
    }
  });

  it('never returns a password hash from any endpoint', async () => {
    const org = await signupOrganization();
    const rep = await addActiveUser(org);
    const responses = [
      await login(org.email, org.password),
      await call('GET', '/api/user/my', { token: org.token }),
      await call('GET', '/api/user/list', { token: org.token, query: { limit: 100 } }),
      await call('GET', '/api/user/global-search', { token: org.token, query: { search_value: 'rep' } }),
      await call('POST', `/api/user/update/${rep.id}`, {
        token: org.token,
        body: { first_name: 'Rep', email: rep.email, phone_no: '+15550100' },
      }),
    ];
    for (const response of responses) {
      expect(response.status, response.text).toBe(200);
      expect(response.text).not.toMatch(/pbkdf2|password_hash|passwordHash/i);
    }
  });
});

describe('rate limiting', () => {
  it('answers 429 rate_limited with Retry-After when one IP tries to log in more than 20 times a minute', async () => {
    const ip = `192.0.2.${Math.floor(Math.random() * 250) + 1}`;
    const statuses: number[] = [];
    let limited: ApiResponse | undefined;
    // The simulated limiter counts in wall-clock minute windows: a window may roll over once
    // during the loop, so allow up to two windows' worth of attempts.
    for (let attempt = 0; attempt < 45 && !limited; attempt++) {
      const response = await login(uniqueEmail('nobody'), 'whatever1', { 'cf-connecting-ip': ip });
      statuses.push(response.status);
      if (response.status === 429) limited = response;
    }
    expect(limited, `statuses: ${statuses.join(',')}`).toBeDefined();
    const response = limited as ApiResponse;
    expect(statuses.slice(0, -1).every((status) => status === 404)).toBe(true);
    expect(statuses.length).toBeGreaterThan(20);
    expectFailure(response, 429, 'rate_limited');
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another client is not affected.
    expectFailure(
      await login(uniqueEmail('nobody'), 'whatever1', { 'cf-connecting-ip': randomIp() }),
      404,
      'not_found',
    );
  });
});
