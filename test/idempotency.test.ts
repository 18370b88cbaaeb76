/**
 * Idempotency-Key on POSTs that create (core/idempotency.ts): a retry replays the first
 * response and creates nothing; another body under the key is 422; concurrent retries create
 * one record; keys are per caller and organization; they expire after 24 hours; failed
 * requests store nothing. Swept over the registry: every POST answering 201 honours the header.
 */
import { env } from 'cloudflare:test';
import { z } from '@hono/zod-openapi';
import { and, eq, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AppEnv } from '../src/core/context';
import { IdempotentRequest, idempotencyScope, sweepIdempotencyKeys } from '../src/core/idempotency';
import { defineRoute, jsonBody } from '../src/core/routes';
import { withOwnDatabase, type Queryable } from '../src/db/client';
import { idempotencyKeys, leads } from '../src/db/schema';
import { readConfig } from '../src/env';
import { addMember, call, expectFailure, type SignedUp, signupOrganization, uniqueEmail } from './helpers/api';
import { inOrganization } from './helpers/leads';
import { postToProbe, probeApp } from './helpers/probe';
import { routes } from './helpers/registry';

let org: SignedUp;

beforeAll(async () => {
  org = await signupOrganization('Idempotency');
});

function key(): string {
  return crypto.randomUUID();
}

function addLead(owner: SignedUp, idempotencyKey: string | undefined, body: Record<string, unknown>) {
  return call('POST', '/api/lead/add', {
    token: owner.token,
    body,
    headers: idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey },
  });
}

/** Leads of the organization with this last name (read from the table, so nothing is cached). */
async function leadsNamed(owner: SignedUp, lastName: string): Promise<number> {
  const rows = await inOrganization(owner.orgId, (tx) =>
    tx.select({ id: leads.id }).from(leads).where(eq(leads.lastName, lastName)),
  );
  return rows.length;
}

async function listTotal(owner: SignedUp): Promise<number> {
  const response = await call('GET', '/api/lead/list', { token: owner.token, query: { limit: 1 } });
  expect(response.status, response.text).toBe(200);
  return response.body.total;
}

describe('a retry with the same key and body', () => {
  it('replays the first response (status, body, content type) with Idempotent-Replayed and creates nothing', async () => {
    const k = key();
    const body = { first_name: 'Ada', last_name: `Replay ${k.slice(0, 8)}`, email: uniqueEmail('idem') };
    const first = await addLead(org, k, body);
    expect(first.status, first.text).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const total = await listTotal(org);

    const retry = await addLead(org, k, body);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(await listTotal(org)).toBe(total);
    expect(await leadsNamed(org, body.last_name)).toBe(1);
  });

  it('is the same request only with the same bytes: another body under the key is 422 naming the header', async () => {
    const k = key();
    const lastName = `Reused ${k.slice(0, 8)}`;
    expect((await addLead(org, k, { first_name: 'Ada', last_name: lastName })).status).toBe(201);
    const other = await addLead(org, k, { first_name: 'Grace', last_name: lastName });
    expectFailure(other, 422, 'validation_error');
    expect(other.body.error.code).toBe('Idempotency-Key');
    expect(other.body.error.message).toMatch(/Idempotency-Key/);
    expect(await leadsNamed(org, lastName)).toBe(1);
  });

  it('without a key, the same body twice creates two records (the header is what makes a retry safe)', async () => {
    const lastName = `Twice ${key().slice(0, 8)}`;
    expect((await addLead(org, undefined, { first_name: 'Ada', last_name: lastName })).status).toBe(201);
    expect((await addLead(org, undefined, { first_name: 'Ada', last_name: lastName })).status).toBe(201);
    expect(await leadsNamed(org, lastName)).toBe(2);
  });
});

describe('multipart uploads', () => {
  it('a retry that rebuilds the same form (a new random boundary) is the same request; another file is not', async () => {
    const k = key();
    const upload = (bytes: Uint8Array) => {
      const form = new FormData();
      form.append('file', new File([bytes], 'notes.txt', { type: 'text/plain' }));
      return call('POST', '/api/storage-file/add', {
        token: org.token,
        rawBody: form,
        headers: { 'idempotency-key': k },
      });
    };
    const text = new TextEncoder().encode(`hello ${k}`);
    // The premise: each serialization of a form draws its own boundary.
    const boundaryOf = () =>
      new Request('http://x', { method: 'POST', body: new FormData() }).headers.get('content-type');
    expect(boundaryOf()).not.toBe(boundaryOf());
    const first = await upload(text);
    expect(first.status, first.text).toBe(201);
    const retry = await upload(text);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.data.id).toBe(first.body.data.id);
    const other = await upload(new TextEncoder().encode(`another ${k}`));
    expectFailure(other, 422, 'validation_error');
    expect(other.body.error.code).toBe('Idempotency-Key');
  });
});

describe('concurrent retries', () => {
  it('five identical requests at once create exactly one lead; the others are replays or 409 in use', async () => {
    const k = key();
    // No email: without the key, each request would create its own lead.
    const body = { first_name: 'Race', last_name: `Concurrent ${k.slice(0, 8)}` };
    const responses = await Promise.all(Array.from({ length: 5 }, () => addLead(org, k, body)));
    const fresh = responses.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
    expect(fresh, responses.map((r) => `${r.status} ${r.text.slice(0, 120)}`).join('\n')).toHaveLength(1);
    for (const response of responses) {
      if (response === fresh[0]) continue;
      if (response.status === 201) {
        expect(response.headers.get('idempotent-replayed')).toBe('true');
        expect(response.text).toBe(fresh[0].text);
      } else {
        expectFailure(response, 409, 'conflict');
        expect(response.body.error.code).toBe('idempotency_key_in_use');
      }
    }
    expect(await leadsNamed(org, body.last_name)).toBe(1);
  });
});

describe('scope', () => {
  it('the same key in another organization creates its own record there', async () => {
    const other = await signupOrganization('Idempotency other');
    const k = key();
    const body = { first_name: 'Ada', last_name: `Tenant ${k.slice(0, 8)}` };
    const mine = await addLead(org, k, body);
    const theirs = await addLead(other, k, body);
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.data.id).not.toBe(mine.body.data.id);
    expect(await leadsNamed(org, body.last_name)).toBe(1);
    expect(await leadsNamed(other, body.last_name)).toBe(1);
  });

  it('the same key used by another user of the organization is theirs alone', async () => {
    const member = await addMember(org, { first_name: 'Rep', last_name: 'One', password: 'correct horse battery' });
    const rep = { ...org, token: member.token };
    const k = key();
    const body = { first_name: 'Ada', last_name: `User scope ${k.slice(0, 8)}` };
    expect((await addLead(org, k, body)).status).toBe(201);
    const theirs = await addLead(rep, k, body);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(await leadsNamed(org, body.last_name)).toBe(2);
  });
});

describe('expiry', () => {
  it('a key older than 24 hours is not replayed: the request runs again and the key is reused', async () => {
    const k = key();
    const body = { first_name: 'Ada', last_name: `Expired ${k.slice(0, 8)}` };
    expect((await addLead(org, k, body)).status).toBe(201);
    await inOrganization(org.orgId, (tx) =>
      tx
        .update(idempotencyKeys)
        .set({ createdAt: sql`now() - interval '24 hours 1 minute'` })
        .where(and(eq(idempotencyKeys.organizationId, org.orgId), eq(idempotencyKeys.key, k))),
    );
    const again = await addLead(org, k, body);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(await leadsNamed(org, body.last_name)).toBe(2);
    // The expired row was replaced: the key now replays the second response.
    const replay = await addLead(org, k, body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data.id).toBe(again.body.data.id);
  });

  it('the sweep deletes expired keys and keeps live ones', async () => {
    const expired = key();
    const live = key();
    expect((await addLead(org, expired, { first_name: 'Ada', last_name: 'Sweep old' })).status).toBe(201);
    expect((await addLead(org, live, { first_name: 'Ada', last_name: 'Sweep new' })).status).toBe(201);
    await inOrganization(org.orgId, (tx) =>
      tx
        .update(idempotencyKeys)
        .set({ createdAt: sql`now() - interval '25 hours'` })
        .where(eq(idempotencyKeys.key, expired)),
    );
    // Another test file's cron may sweep it first: what is left is the assertion.
    await withOwnDatabase(readConfig(env), (db) => sweepIdempotencyKeys(db));
    const remaining = await inOrganization(org.orgId, (tx) =>
      tx.select({ key: idempotencyKeys.key }).from(idempotencyKeys),
    );
    const keys = remaining.map((row) => row.key);
    expect(keys).toContain(live);
    expect(keys).not.toContain(expired);
  });
});

describe('failures store nothing', () => {
  it('a refused request (422) leaves the key free: the corrected request with the same key creates, then replays', async () => {
    const k = key();
    const lastName = `Corrected ${k.slice(0, 8)}`;
    const refused = await addLead(org, k, { first_name: 'Ada', last_name: lastName, status: 999 });
    expectFailure(refused, 422, 'validation_error');
    expect(refused.body.error.code).not.toBe('Idempotency-Key');
    const corrected = await addLead(org, k, { first_name: 'Ada', last_name: lastName });
    expect(corrected.status, corrected.text).toBe(201);
    expect(corrected.headers.get('idempotent-replayed')).toBeNull();
    const replay = await addLead(org, k, { first_name: 'Ada', last_name: lastName });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await leadsNamed(org, lastName)).toBe(1);
  });

  it('a 409 of the handler (duplicate email) stores nothing either', async () => {
    const email = uniqueEmail('dup');
    expect((await addLead(org, undefined, { first_name: 'Ada', last_name: 'Dup', email })).status).toBe(201);
    const k = key();
    const duplicate = await addLead(org, k, { first_name: 'Ada', last_name: 'Dup', email });
    expectFailure(duplicate, 409, 'conflict');
    const rows = await inOrganization(org.orgId, (tx) =>
      tx.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, k)),
    );
    expect(rows).toHaveLength(0);
  });
});

describe('the header itself', () => {
  it.each([
    ['empty', ''],
    ['longer than 255 characters', 'k'.repeat(256)],
    ['a control character', 'abc\tdef'],
  ])('%s is a 400 naming Idempotency-Key, and nothing is created', async (_label, value) => {
    const lastName = `Bad key ${key().slice(0, 8)}`;
    const response = await addLead(org, value, { first_name: 'Ada', last_name: lastName });
    expectFailure(response, 400, 'bad_request');
    expect(response.body.error.code).toBe('Idempotency-Key');
    expect(await leadsNamed(org, lastName)).toBe(0);
  });

  it('255 printable characters are a valid key', async () => {
    const response = await addLead(org, `${'k'.repeat(254)}!`, { first_name: 'Ada', last_name: 'Long key' });
    expect(response.status, response.text).toBe(201);
  });

  it('is ignored on routes that do not create (a GET, an update)', async () => {
    const list = await call('GET', '/api/lead/list', { token: org.token, headers: { 'idempotency-key': '' } });
    expect(list.status).toBe(200);
  });
});

describe('every POST that creates honours the header (registry sweep)', () => {
  it('marks exactly the bearer and API-key POSTs answering 201 (and the opt-ins and operator POSTs), and declares the header, 409 and 422 on them', async () => {
    const document = (await call('GET', '/api/openapi.json')).body;
    const idempotent = routes.filter((route) => route.idempotent);
    expect(idempotent.length).toBeGreaterThan(5);
    // The API-key probe below is registered by this file only, outside the app's document.
    for (const route of routes.filter((r) => !r.path.startsWith('/probe/'))) {
      const operation = document.paths[route.path][route.method.toLowerCase()];
      // A web-form submission opts in (public, run as the form's organization, keys scoped by IP),
      // the mail sends (202 queued: a send retried after a timeout must not go twice), and the paid
      // AI tools answering 200 (a retry must not be charged again), and an export's create (202
      // queued: a retry must not write the file twice).
      const optsIn =
        route.method === 'POST' &&
        [
          '/api/v1/web-form/{form_link}',
          '/api/inbox/send',
          '/api/inbox/reply/{messageId}',
          '/api/target-accounts/{id}/send-bulk-email',
          '/api/ai-email/draft/{draft_id}/send',
          '/api/ai-tools/magicpen',
          '/api/ai-tools/email-generator',
          '/api/exports/create',
        ].includes(route.path);
      // Every operator POST (a credit grant, a wallet top-up), its keys the operator's under the
      // organization acted on (test/operator-idempotency.test.ts).
      const tenantAuth = route.auth === 'bearer' || route.auth === 'apiKey';
      const operator = route.method === 'POST' && route.auth === 'operator';
      const creates = (route.method === 'POST' && tenantAuth && '201' in operation.responses) || optsIn || operator;
      expect(route.idempotent, `${route.method} ${route.path}`).toBe(creates);
      const parameter = (operation.parameters ?? []).find(
        (p: { name: string; in: string }) => p.name === 'Idempotency-Key' && p.in === 'header',
      );
      if (!creates) {
        expect(parameter, `${route.method} ${route.path}`).toBeUndefined();
        continue;
      }
      expect(parameter, `${route.method} ${route.path}`).toMatchObject({
        required: false,
        schema: { type: 'string', maxLength: 255 },
      });
      expect(operation.responses['409'].description).toMatch(/idempotency_key_in_use/);
      expect(operation.responses['422'].description).toMatch(/Idempotency-Key/);
      const success = ['201', '202', '200'].find((status) => status in operation.responses) as string;
      expect(operation.responses[success].headers['Idempotent-Replayed']).toBeDefined();
    }
  });

  it('signup (public, no caller before it runs) is not idempotent', () => {
    const signup = routes.find((route) => route.path === '/api/auth/signup');
    expect(signup?.idempotent).toBe(false);
  });
});

describe('API-key callers', () => {
  // A POST creating a lead for an API key, built with defineRoute and the real chain: the
  // ingestion routes that use API keys arrive with a later issue.
  const probe = probeApp();
  probe.openapi(
    defineRoute({
      method: 'post',
      path: '/probe/idempotency/lead',
      operationId: 'probeIdempotentLead',
      description: 'A test-only route that creates a lead as an API-key caller',
      auth: 'apiKey',
      scope: 'leads:write',
      request: { body: jsonBody(z.object({ last_name: z.string() })) },
      responses: { 201: { description: 'Created' } },
    }),
    async (c) => {
      const { db, orgId, userId } = c.var.tenant;
      const [row] = await db
        .insert(leads)
        .values({
          organizationId: orgId,
          firstName: 'Key',
          lastName: c.req.valid('json').last_name,
          status: 1,
          createdBy: userId,
        })
        .returning({ id: leads.id });
      return c.json({ success: true, data: { id: row.id } }, 201);
    },
  );

  const post = (apiKey: string, idempotencyKey: string, lastName: string) =>
    postToProbe(
      probe,
      '/probe/idempotency/lead',
      { last_name: lastName },
      { 'x-api-key': apiKey, 'idempotency-key': idempotencyKey },
    );

  async function createKey(name: string): Promise<string> {
    const response = await call('POST', '/api/api-keys/add', { token: org.token, body: { name } });
    expect(response.status, response.text).toBe(201);
    return response.body.data.key;
  }

  it('replays for the same key, and scopes keys to the API key', async () => {
    const first = await createKey('Form A');
    const second = await createKey('Form B');
    const k = key();
    const lastName = `Api key ${k.slice(0, 8)}`;
    const created = await post(first, k, lastName);
    expect(created.status, created.text).toBe(201);
    const replay = await post(first, k, lastName);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(created.text);
    expect(await leadsNamed(org, lastName)).toBe(1);
    // Another API key of the same organization: its own scope.
    const other = await post(second, k, lastName);
    expect(other.status).toBe(201);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    // And the same key by a user (bearer) is not the API key's either.
    const byUser = await addLead(org, k, { first_name: 'Key', last_name: lastName });
    expect(byUser.headers.get('idempotent-replayed')).toBeNull();
    expect(await leadsNamed(org, lastName)).toBe(3);
  });
});

describe('the in-use answers (the embedded test database runs one transaction at a time, so they are driven directly)', () => {
  async function request(): Promise<IdempotentRequest> {
    const c = {
      var: { idempotent: true },
      req: {
        method: 'POST',
        url: 'http://lead.test/api/lead/add',
        header: (name: string) => (name === 'Idempotency-Key' ? 'k-1' : undefined),
        arrayBuffer: async () => new TextEncoder().encode('{}').buffer,
      },
    } as unknown as Context<AppEnv>;
    const made = await IdempotentRequest.of(c, 1, { kind: 'user', userId: 7, role: 'admin' });
    if (!made) throw new Error('expected an idempotent request');
    return made;
  }

  it('409 idempotency_key_in_use when the lock is held and nothing is stored yet', async () => {
    const db = { execute: async () => ({ rows: [{ locked: false, stored: null }] }) } as unknown as Queryable;
    await expect((await request()).replayOrLock(db, {} as Context<AppEnv>)).rejects.toMatchObject({
      status: 409,
      code: 'idempotency_key_in_use',
    });
  });

  it('409 when another request with the key committed between this one’s lock and read (the store finds a live row)', async () => {
    const chain = {
      values: () => chain,
      onConflictDoUpdate: () => chain,
      returning: async () => [],
    };
    const db = { insert: () => chain } as unknown as Queryable;
    await expect((await request()).store(db, new Response('{}', { status: 201 }))).rejects.toMatchObject({
      status: 409,
      code: 'idempotency_key_in_use',
    });
  });

  it('the scope is per user and per API key; jobs have none', () => {
    expect(idempotencyScope({ kind: 'user', userId: 7, role: 'admin' })).toBe('user:7');
    expect(idempotencyScope({ kind: 'apiKey', keyId: 7, createdBy: 1 })).toBe('api_key:7');
    expect(idempotencyScope({ kind: 'job', jobId: 7, createdBy: 1 })).toBeNull();
  });
});
