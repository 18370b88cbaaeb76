/**
 * Rate-limit headers (core/rate-limit.ts): every authenticated response states the quotas
 * (RateLimit-Policy) and what is left of them (RateLimit), counted by the same Durable Objects
 * that refuse; a 429's Retry-After is the seconds left in the window, equal to RateLimit's t.
 */
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { type Context, Hono } from 'hono';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiKeyAuth } from '../src/core/auth/api-key';
import { bearerAuth } from '../src/core/auth/bearer';
import type { AppEnv } from '../src/core/context';
import { databaseAccess } from '../src/core/database';
import { handleError } from '../src/core/http';
import { type CounterLimit, countRequest, type RateLimitCounter, uncountRequest } from '../src/core/rate-limit-counter';
import { isTokenRefused, rememberRefusedToken } from '../src/core/refused-tokens';
import { observeStatements } from '../src/db/client';
import { addMember, call, expectFailure, randomIp, type SignedUp, signupOrganization } from './helpers/api';
import { awayFromWindowEnd } from './helpers/rate-limit';

let org: SignedUp;

beforeAll(async () => {
  org = await signupOrganization('Rate limits');
});

interface Member {
  name: string;
  params: Record<string, number>;
}

/** Parses `"org";r=1187;t=42, "ip";r=1195;t=42` (a structured-field list of strings with integer parameters). */
function parseList(value: string | null): Member[] {
  expect(value).toBeTruthy();
  return (value as string).split(',').map((member) => {
    const [name, ...params] = member.trim().split(';');
    expect(name).toMatch(/^"[a-z_]+"$/);
    return {
      name: name.slice(1, -1),
      params: Object.fromEntries(
        params.map((param) => {
          const [k, v] = param.split('=');
          expect(v).toMatch(/^\d+$/);
          return [k, Number(v)];
        }),
      ),
    };
  });
}

function member(value: string | null, name: string): Record<string, number> {
  const found = parseList(value).find((m) => m.name === name);
  expect(found, `${name} in ${value}`).toBeDefined();
  return (found as Member).params;
}

/** Fills one counter of a subject's object to its limit (or counts `requests`) through the Durable Object itself, as that many requests would. */
async function exhaust(subject: string, counter: string, limit: number, requests = limit): Promise<void> {
  const stub = env.RATE_LIMITER!.get(env.RATE_LIMITER!.idFromName(subject));
  for (let sent = 0; sent < requests; sent += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, requests - sent) }, () => stub.count([{ name: counter, limit }], 60)),
    );
  }
}

/** A signed-up organization's admin with a second token (a login), whose signup token is then revoked by logout. */
async function withRevokedToken(name: string): Promise<{ org: SignedUp; revoked: string; valid: string; jti: string }> {
  const signed = await signupOrganization(name);
  const login = await call('POST', '/api/auth/login', {
    body: { email: signed.email, password: signed.password },
    headers: { 'cf-connecting-ip': randomIp() },
  });
  expect(login.status, login.text).toBe(200);
  const logout = await call('POST', '/api/auth/logout', { token: signed.token });
  expect(logout.status, logout.text).toBe(200);
  const payload = JSON.parse(atob(signed.token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/')));
  return { org: signed, revoked: signed.token, valid: login.body.access_token, jti: payload.jti };
}

function counterOf(orgId: number) {
  return env.RATE_LIMITER!.get(env.RATE_LIMITER!.idFromName(`org:${orgId}`));
}

function policies(value: string | null): string[] {
  return parseList(value).map(({ name }) => name);
}

describe('bearer responses', () => {
  it('carry RateLimit-Policy and RateLimit for the organization, not the client IP; remaining decreases', async () => {
    await awayFromWindowEnd();
    const ip = randomIp();
    const first = await call('GET', '/api/lead/list', { token: org.token, headers: { 'cf-connecting-ip': ip } });
    const second = await call('GET', '/api/lead/list', { token: org.token, headers: { 'cf-connecting-ip': ip } });
    expect(first.status).toBe(200);
    const policy = first.headers.get('ratelimit-policy');
    expect(member(policy, 'org')).toEqual({ q: 1200, w: 60 });
    // The credential names the caller: callers of other organizations behind one address do not share a budget.
    expect(policies(policy)).toEqual(['org']);
    expect(policies(first.headers.get('ratelimit'))).toEqual(['org']);
    const before = member(first.headers.get('ratelimit'), 'org');
    const after = member(second.headers.get('ratelimit'), 'org');
    expect(after.r).toBe(before.r - 1);
    for (const t of [before.t, after.t]) {
      expect(t).toBeGreaterThanOrEqual(1);
      expect(t).toBeLessThanOrEqual(60);
    }
    expect(after.t).toBeLessThanOrEqual(before.t);
  });

  it('carry them on failures too (a 404 of a counted request) and on a 304', async () => {
    const missing = await call('GET', '/api/lead/view/999999999', { token: org.token });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('ratelimit')).toMatch(/"org";r=\d+;t=\d+/);
    const list = await call('GET', '/api/lead/list', { token: org.token });
    const notModified = await call('GET', '/api/lead/list', {
      token: org.token,
      headers: { 'if-none-match': list.headers.get('etag') as string },
    });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('ratelimit')).toMatch(/"org";r=\d+;t=\d+/);
    expect(notModified.headers.get('ratelimit-policy')).toMatch(/"org";q=1200;w=60/);
  });

  it('a 429 carries Retry-After equal to the seconds left in the window, consistent with RateLimit t', async () => {
    await awayFromWindowEnd();
    const limited = await signupOrganization('Rate limited');
    await exhaust(`org:${limited.orgId}`, 'org', 1200);
    const refused = await call('GET', '/api/lead/list', { token: limited.token });
    expectFailure(refused, 429, 'rate_limited');
    const retryAfter = Number(refused.headers.get('retry-after'));
    const state = member(refused.headers.get('ratelimit'), 'org');
    expect(state.r).toBe(0);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(retryAfter).toBe(state.t);
    const expected = Math.ceil(60 - ((Date.now() / 1000) % 60));
    expect(Math.abs(retryAfter - expected)).toBeLessThanOrEqual(1);
    // The refusal is per organization: another organization is served.
    expect((await call('GET', '/api/lead/list', { token: org.token })).status).toBe(200);
  });
});

describe('ended tokens', () => {
  it('a revoked token hammering the API answers 401 and never uses up its organization’s budget: a valid token is still served', async () => {
    await awayFromWindowEnd(20);
    const { org: victim, revoked, valid } = await withRevokedToken('Fired employee');
    // The organization has one request left in this window (the logout counted one).
    const probe = await call('GET', '/api/user/my', { token: valid });
    expect(probe.status).toBe(200);
    const left = member(probe.headers.get('ratelimit'), 'org').r;
    await exhaust(`org:${victim.orgId}`, 'org', 1200, left - 1);
    for (let i = 0; i < 25; i++) {
      const refused = await call('GET', '/api/lead/list', { token: revoked });
      expectFailure(refused, 401, 'unauthorized');
      expect(refused.body.error.code).toBe('invalid_token');
    }
    const served = await call('GET', '/api/lead/list', { token: valid });
    expect(served.status, served.text).toBe(200);
    expect(member(served.headers.get('ratelimit'), 'org').r).toBe(0);
  });

  it('the organization’s counter object takes back the refused request and then counts none of the token’s requests (as another isolate would ask it)', async () => {
    await awayFromWindowEnd();
    const { org: victim, revoked, jti } = await withRevokedToken('Deleted session');
    const stub = counterOf(victim.orgId);
    const [before] = await stub.count([{ name: 'org', limit: 1200 }], 60);
    expectFailure(await call('GET', '/api/lead/list', { token: revoked }), 401, 'unauthorized');
    // Another isolate, which never heard of the refusal, names the token: counted by nothing.
    const states = await stub.count([{ name: 'org', limit: 1200 }], 60, jti);
    expect(states).toMatchObject([{ tokenRefused: true }]);
    const [after] = await stub.count([{ name: 'org', limit: 1200 }], 60);
    // Only the two plain counts of this test: the refused request was taken back.
    expect(after.remaining).toBe(before.remaining - 1);
  });

  it('a token of a deleted user is refused the same way', async () => {
    await awayFromWindowEnd();
    const admin = await signupOrganization('Deleted user');
    const gone = await addMember(admin, { first_name: 'Gone', last_name: 'User', password: 'correct horse battery' });
    const deleted = await call('POST', '/api/user/delete', { token: admin.token, body: { user_id: gone.userId } });
    expect(deleted.status, deleted.text).toBe(200);
    const stub = counterOf(admin.orgId);
    const [before] = await stub.count([{ name: 'org', limit: 1200 }], 60);
    for (let i = 0; i < 5; i++) {
      expectFailure(await call('GET', '/api/lead/list', { token: gone.token }), 401, 'unauthorized');
    }
    const [after] = await stub.count([{ name: 'org', limit: 1200 }], 60);
    expect(after.remaining).toBe(before.remaining - 1);
  });
});

describe('API-key responses', () => {
  const probe = new Hono<AppEnv>();
  probe.use('*', databaseAccess);
  probe.onError(handleError);
  probe.get('/probe', apiKeyAuth, (c) => c.json({ ok: true }));

  it('carry the same headers, counted against the key’s organization', async () => {
    await awayFromWindowEnd();
    const created = await call('POST', '/api/api-keys/add', { token: org.token, body: { name: 'Limits' } });
    expect(created.status, created.text).toBe(201);
    const fetchProbe = async () => {
      const ctx = createExecutionContext();
      const response = await probe.fetch(
        new Request('http://lead.test/probe', { headers: { 'x-api-key': created.body.data.key } }),
        env,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return response;
    };
    const first = await fetchProbe();
    const second = await fetchProbe();
    expect(first.status).toBe(200);
    expect(member(first.headers.get('ratelimit-policy'), 'org')).toEqual({ q: 1200, w: 60 });
    expect(member(second.headers.get('ratelimit'), 'org').r).toBe(member(first.headers.get('ratelimit'), 'org').r - 1);
    expect(member(first.headers.get('ratelimit-policy'), 'key')).toEqual({ q: 600, w: 60 });
    expect(member(second.headers.get('ratelimit'), 'key').r).toBe(member(first.headers.get('ratelimit'), 'key').r - 1);
    expect(policies(first.headers.get('ratelimit-policy'))).toEqual(['org', 'key']);
  });

  it('a key over its own limit answers 429 with Retry-After while its organization still has room, and its refusals do not count against the organization', async () => {
    await awayFromWindowEnd();
    const created = await call('POST', '/api/api-keys/add', { token: org.token, body: { name: 'Runaway' } });
    expect(created.status, created.text).toBe(201);
    await exhaust(`org:${org.orgId}`, `key:${created.body.data.id}`, 600);
    const refused = await call('GET', '/api/v1/lead/lead-list', { apiKey: created.body.data.key });
    expectFailure(refused, 429, 'rate_limited');
    const state = member(refused.headers.get('ratelimit'), 'key');
    expect(state.r).toBe(0);
    const orgLeft = member(refused.headers.get('ratelimit'), 'org').r;
    expect(orgLeft).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBe(state.t);
    const again = await call('GET', '/api/v1/lead/lead-list', { apiKey: created.body.data.key });
    expectFailure(again, 429, 'rate_limited');
    expect(member(again.headers.get('ratelimit'), 'org').r).toBe(orgLeft);
    // The organization's own callers are still served.
    expect((await call('GET', '/api/lead/list', { token: org.token })).status).toBe(200);
  });
});

describe('the count and the scoping statement at once', () => {
  /**
   * The real counters, each answer held until the request's scoping statement has been sent (or
   * 1.5 s have passed): at the edge the counters and the database are far apart, and a request
   * that asked them one after the other paid both round trips.
   */
  function traced() {
    const events: string[] = [];
    let scopeSent!: () => void;
    const sent = new Promise<void>((resolve) => {
      scopeSent = resolve;
    });
    const stop = observeStatements((text) => {
      if (text.includes("set_config('app.organization_id'")) {
        events.push('scope statement sent');
        scopeSent();
      }
    });
    const real = env.RATE_LIMITER!;
    /** The subjects whose counter object the request called, once per call. */
    const subjects: string[] = [];
    const names = new Map<string, string>();
    const counters = {
      idFromName: (name: string) => {
        const id = real.idFromName(name);
        names.set(id.toString(), name);
        return id;
      },
      get: (id: DurableObjectId) => ({
        count: async (limits: CounterLimit[], windowSeconds: number, tokenId?: string) => {
          subjects.push(names.get(id.toString()) as string);
          await Promise.race([sent, new Promise((resolve) => setTimeout(resolve, 1500))]);
          const states = await real.get(id).count(limits, windowSeconds, tokenId);
          events.push(states.every((state) => state.allowed) ? 'counter admitted' : 'counter refused');
          return states;
        },
        refuseToken: async (...args: Parameters<RateLimitCounter['refuseToken']>) => {
          events.push('token refused');
          return real.get(id).refuseToken(...args);
        },
      }),
    };
    const app = new Hono<AppEnv>();
    app.use('*', databaseAccess);
    app.onError(handleError);
    const handler = (c: Context<AppEnv>) => {
      events.push('handler');
      return c.json({ ok: true });
    };
    app.get('/bearer', bearerAuth, handler);
    app.get('/key', apiKeyAuth, handler);
    const fetchApp = async (path: string, headers: Record<string, string>) => {
      const ctx = createExecutionContext();
      const response = await app.fetch(
        new Request(`http://lead.test${path}`, { headers: { 'cf-connecting-ip': randomIp(), ...headers } }),
        { ...env, RATE_LIMITER: counters as unknown as typeof real },
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return response;
    };
    return { events, subjects, stop, fetchApp };
  }

  it('a bearer request sends its scoping statement while the counters count, and runs its handler once they admit it', async () => {
    await awayFromWindowEnd();
    const { events, subjects, stop, fetchApp } = traced();
    try {
      const response = await fetchApp('/bearer', { authorization: `Bearer ${org.token}` });
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit')).toMatch(/"org";r=\d+;t=\d+/);
      // One call to the organization's counters, answered after the statement had gone; the handler after it.
      expect(subjects).toEqual([`org:${org.orgId}`]);
      expect(events).toEqual(['scope statement sent', 'counter admitted', 'handler']);
    } finally {
      stop();
    }
  });

  it('an API-key request does the same', async () => {
    await awayFromWindowEnd();
    const created = await call('POST', '/api/api-keys/add', { token: org.token, body: { name: 'Overlap' } });
    expect(created.status, created.text).toBe(201);
    const { events, subjects, stop, fetchApp } = traced();
    try {
      const response = await fetchApp('/key', { 'x-api-key': created.body.data.key });
      expect(response.status).toBe(200);
      // The organization and the key are counted by one call to the organization's counters.
      expect(subjects).toEqual([`org:${org.orgId}`]);
      expect(events).toEqual(['scope statement sent', 'counter admitted', 'handler']);
    } finally {
      stop();
    }
  });

  it('a refusal that arrives after the scoping statement answers 429 and the handler never runs; the next request of that key in the window is refused before any statement', async () => {
    await awayFromWindowEnd();
    const limited = await signupOrganization('Refused overlap');
    await exhaust(`org:${limited.orgId}`, 'org', 1200);
    const { events, stop, fetchApp } = traced();
    try {
      const refused = await fetchApp('/bearer', { authorization: `Bearer ${limited.token}` });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(events).toContain('scope statement sent');
      expect(events).toContain('counter refused');
      expect(events).not.toContain('handler');

      events.length = 0;
      const again = await fetchApp('/bearer', { authorization: `Bearer ${limited.token}` });
      expect(again.status).toBe(429);
      // Counted first: the counters answered without waiting for a statement, and none was sent.
      expect(events).not.toContain('scope statement sent');
      expect(events).toContain('counter refused');
      expect(events).not.toContain('handler');
    } finally {
      stop();
    }
  });

  it('a token refused by its caller check is taken back from the count, and its next request is answered 401 before any counter or statement', async () => {
    await awayFromWindowEnd();
    const { revoked } = await withRevokedToken('Refused isolate');
    const { events, subjects, stop, fetchApp } = traced();
    try {
      const first = await fetchApp('/bearer', { authorization: `Bearer ${revoked}` });
      expect(first.status).toBe(401);
      expect(events).toEqual(['scope statement sent', 'counter admitted', 'token refused']);
      events.length = 0;
      subjects.length = 0;
      const again = await fetchApp('/bearer', { authorization: `Bearer ${revoked}` });
      expect(again.status).toBe(401);
      expect(await again.json()).toMatchObject({ error: { type: 'unauthorized', code: 'invalid_token' } });
      expect(events).toEqual([]);
      expect(subjects).toEqual([]);
    } finally {
      stop();
    }
  });
});

describe('public routes', () => {
  it('health and the OpenAPI document carry no rate-limit headers', async () => {
    for (const path of ['/api/health', '/api/openapi.json']) {
      const response = await call('GET', path);
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit')).toBeNull();
      expect(response.headers.get('ratelimit-policy')).toBeNull();
    }
  });

  it('login over its per-IP limit answers 429 with the real seconds left as Retry-After', async () => {
    await awayFromWindowEnd();
    const ip = randomIp();
    await exhaust(`auth-ip:${ip}`, 'ip', 20);
    const refused = await call('POST', '/api/auth/login', {
      body: { email: 'nobody@example.com', password: 'whatever1' },
      headers: { 'cf-connecting-ip': ip },
    });
    expectFailure(refused, 429, 'rate_limited');
    const state = member(refused.headers.get('ratelimit'), 'ip');
    expect(member(refused.headers.get('ratelimit-policy'), 'ip')).toEqual({ q: 20, w: 60 });
    expect(state.r).toBe(0);
    expect(Number(refused.headers.get('retry-after'))).toBe(state.t);
  });
});

describe('the counter', () => {
  const one = (limit: number) => [{ name: 'org', limit }];

  it('counts in clock-aligned windows, does not count refusals, and reports the seconds to the window end', () => {
    const state = { window: -1, counts: new Map<string, number>() };
    const start = 1_700_000_080_000; // 40 s into a minute
    expect(countRequest(state, one(2), 60, start)).toEqual([
      { limit: 2, remaining: 1, resetSeconds: 20, allowed: true },
    ]);
    expect(countRequest(state, one(2), 60, start + 500)).toMatchObject([
      { remaining: 0, resetSeconds: 20, allowed: true },
    ]);
    expect(countRequest(state, one(2), 60, start + 19_001)).toMatchObject([
      { remaining: 0, resetSeconds: 1, allowed: false },
    ]);
    expect(state.counts.get('org')).toBe(2);
    // The next minute starts a new window.
    expect(countRequest(state, one(2), 60, start + 20_000)).toMatchObject([
      { remaining: 1, resetSeconds: 60, allowed: true },
    ]);
  });

  it('counts a request by all of its counters or by none', () => {
    const state = { window: -1, counts: new Map<string, number>() };
    const now = 1_700_000_080_000;
    const both = [
      { name: 'org', limit: 5 },
      { name: 'key:7', limit: 1 },
    ];
    expect(countRequest(state, both, 60, now)).toMatchObject([
      { remaining: 4, allowed: true },
      { remaining: 0, allowed: true },
    ]);
    // The key is at its limit: refused, and the organization's counter does not count it either.
    expect(countRequest(state, both, 60, now + 1)).toMatchObject([
      { remaining: 4, allowed: true },
      { remaining: 0, allowed: false },
    ]);
    expect(state.counts.get('org')).toBe(1);
    // Another key of the organization has its own counter.
    expect(
      countRequest(
        state,
        [
          { name: 'org', limit: 5 },
          { name: 'key:8', limit: 1 },
        ],
        60,
        now + 2,
      ),
    ).toMatchObject([
      { remaining: 3, allowed: true },
      { remaining: 0, allowed: true },
    ]);
  });

  it('takes back a refused token’s request only in the window that counted it', () => {
    const state = { window: -1, counts: new Map<string, number>() };
    const now = 1_700_000_080_000;
    countRequest(state, one(5), 60, now);
    countRequest(state, one(5), 60, now + 1);
    uncountRequest(state, ['org'], state.window);
    expect(state.counts.get('org')).toBe(1);
    // The next window started over without it: nothing to take back.
    countRequest(state, one(5), 60, now + 20_000);
    uncountRequest(state, ['org'], state.window - 1);
    expect(state.counts.get('org')).toBe(1);
  });

  it('remembers refused tokens until their time, at most so many, the oldest forgotten first', () => {
    const tokens = new Map<string, number>();
    rememberRefusedToken(tokens, 'a', 2_000, 2);
    rememberRefusedToken(tokens, 'b', 2_000, 2);
    rememberRefusedToken(tokens, 'c', 2_000, 2);
    expect(isTokenRefused(tokens, 'a', 1_000)).toBe(false);
    expect(isTokenRefused(tokens, 'b', 1_000)).toBe(true);
    expect(isTokenRefused(tokens, 'c', 1_999)).toBe(true);
    expect(isTokenRefused(tokens, 'c', 2_000)).toBe(false);
  });
});
