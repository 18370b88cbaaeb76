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
import { type CounterLimit, countRequest } from '../src/core/rate-limit-counter';
import { observeStatements } from '../src/db/client';
import { call, expectFailure, randomIp, type SignedUp, signupOrganization } from './helpers/api';
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

/** Fills one counter of a subject's object to its limit through the Durable Object itself, as that many requests would. */
async function exhaust(subject: string, counter: string, limit: number): Promise<void> {
  const stub = env.RATE_LIMITER!.get(env.RATE_LIMITER!.idFromName(subject));
  for (let sent = 0; sent < limit; sent += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, limit - sent) }, () => stub.count([{ name: counter, limit }], 60)),
    );
  }
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
        count: async (limits: CounterLimit[], windowSeconds: number) => {
          subjects.push(names.get(id.toString()) as string);
          await Promise.race([sent, new Promise((resolve) => setTimeout(resolve, 1500))]);
          const states = await real.get(id).count(limits, windowSeconds);
          events.push(states.every((state) => state.allowed) ? 'counter admitted' : 'counter refused');
          return states;
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
});
