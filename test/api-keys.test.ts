import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { sql } from 'drizzle-orm';
import { Hono } from 'hono';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiKeyAuth } from '../src/core/auth/api-key';
import type { AppEnv } from '../src/core/context';
import { databaseAccess } from '../src/core/database';
import { handleError } from '../src/core/http';
import { openDatabase } from '../src/db/client';
import { call, expectFailure, signupOrganization, type SignedUp } from './helpers/api';

/** The real API-key middleware chain on a probe route (ingestion routes arrive with a later issue). */
const probe = new Hono<AppEnv>();
probe.use('*', databaseAccess);
probe.get('/probe', apiKeyAuth, (c) => c.json({ org: c.var.tenant.orgId, key: c.var.apiKey.keyId }));
probe.onError(handleError);

async function probeWith(headers: Record<string, string>) {
  const ctx = createExecutionContext();
  const response = await probe.fetch(new Request('http://lead.test/probe', { headers }), env, ctx);
  await waitOnExecutionContext(ctx);
  return { status: response.status, body: (await response.json()) as any };
}

async function createKey(org: SignedUp, body: Record<string, unknown> = {}) {
  const response = await call('POST', '/api/api-keys/add', { token: org.token, body: { name: 'Website form', ...body } });
  expect(response.status, response.text).toBe(201);
  return response.body.data as { id: number; key: string; prefix: string };
}

describe('API key management', () => {
  let org: SignedUp;
  let other: SignedUp;

  beforeAll(async () => {
    [org, other] = await Promise.all([signupOrganization('Keys'), signupOrganization('OtherKeys')]);
  });

  it('shows the plaintext key once and never again', async () => {
    const created = await createKey(org, { allowed_domains: ['example.com'], allowed_ips: ['203.0.113.0/24', '2001:db8::/32'] });
    expect(created.key).toMatch(/^lm_live_[A-Za-z0-9_-]{43}$/);
    expect(created.key.startsWith(created.prefix)).toBe(true);
    const list = await call('GET', '/api/api-keys/list', { token: org.token, query: { limit: 100 } });
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(created.key);
    const listed = list.body.data.find((key: { id: number }) => key.id === created.id);
    expect(listed).toMatchObject({
      name: 'Website form',
      prefix: created.prefix,
      allowed_domains: ['example.com'],
      allowed_ips: ['203.0.113.0/24', '2001:db8::/32'],
      last_used_at: null,
    });
    expect(listed.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(listed.key).toBeUndefined();
  });

  it('refuses an invalid CIDR range with 422 naming the entry', async () => {
    const response = await call('POST', '/api/api-keys/add', { token: org.token, body: { name: 'bad', allowed_ips: ['10.0.0.0/33'] } });
    expectFailure(response, 422, 'validation_error');
    expect(response.body.error.code).toBe('allowed_ips.0');
  });

  it('DELETE /api/api-keys/delete/:id revokes; another organization’s key is 404', async () => {
    const created = await createKey(org);
    expectFailure(await call('DELETE', `/api/api-keys/delete/${created.id}`, { token: other.token }), 404, 'not_found');
    const revoked = await call('DELETE', `/api/api-keys/delete/${created.id}`, { token: org.token });
    expect(revoked.status).toBe(200);
    const list = await call('GET', '/api/api-keys/list', { token: org.token, query: { limit: 100 } });
    expect(list.body.data.map((key: { id: number }) => key.id)).not.toContain(created.id);
    expectFailure(await call('DELETE', `/api/api-keys/delete/${created.id}`, { token: org.token }), 404, 'not_found');
  });
});

describe('API-key authentication', () => {
  let org: SignedUp;

  beforeAll(async () => {
    org = await signupOrganization('KeyAuth');
  });

  it('resolves a valid key to its own organization and records its use', async () => {
    const created = await createKey(org);
    const response = await probeWith({ 'x-api-key': created.key });
    expect(response).toEqual({ status: 200, body: { org: org.orgId, key: created.id } });
    const list = await call('GET', '/api/api-keys/list', { token: org.token, query: { limit: 100 } });
    expect(list.body.data.find((key: { id: number }) => key.id === created.id).last_used_at).not.toBeNull();
  });

  it('answers 401 without a key and 403 for an unknown or revoked key', async () => {
    expect(await probeWith({})).toMatchObject({ status: 401, body: { success: false, error: { type: 'unauthorized' } } });
    expect(await probeWith({ 'x-api-key': 'lm_live_not-a-real-key' })).toMatchObject({ status: 403, body: { error: { type: 'forbidden' } } });
    const created = await createKey(org);
    await call('DELETE', `/api/api-keys/delete/${created.id}`, { token: org.token });
    expect(await probeWith({ 'x-api-key': created.key })).toMatchObject({ status: 403, body: { error: { code: 'invalid_api_key' } } });
  });

  it('answers 403 for an expired key', async () => {
    const created = await createKey(org, { expires_at: new Date(Date.now() + 60_000).toISOString() });
    expect((await probeWith({ 'x-api-key': created.key })).status).toBe(200);
    const handle = openDatabase(env as never);
    await handle.db.execute(sql`update api_keys set expires_at = now() - interval '1 minute' where id = ${created.id}`);
    await handle.close();
    expect(await probeWith({ 'x-api-key': created.key })).toMatchObject({ status: 403, body: { error: { code: 'api_key_expired' } } });
  });

  it('enforces the IP allow-list', async () => {
    const created = await createKey(org, { allowed_ips: ['203.0.113.0/24'] });
    expect((await probeWith({ 'x-api-key': created.key, 'cf-connecting-ip': '203.0.113.9' })).status).toBe(200);
    expect(await probeWith({ 'x-api-key': created.key, 'cf-connecting-ip': '198.51.100.1' })).toMatchObject({ status: 403, body: { error: { code: 'ip_not_allowed' } } });
    expect((await probeWith({ 'x-api-key': created.key })).status).toBe(403);
  });

  it('enforces the domain allow-list on Origin, then Referer', async () => {
    const created = await createKey(org, { allowed_domains: ['example.com'] });
    expect((await probeWith({ 'x-api-key': created.key, origin: 'https://app.example.com' })).status).toBe(200);
    expect((await probeWith({ 'x-api-key': created.key, referer: 'https://example.com/pricing' })).status).toBe(200);
    expect(await probeWith({ 'x-api-key': created.key, origin: 'https://evil.test' })).toMatchObject({ status: 403, body: { error: { code: 'domain_not_allowed' } } });
    expect(await probeWith({ 'x-api-key': created.key, origin: 'https://notexample.com' })).toMatchObject({ status: 403 });
    expect((await probeWith({ 'x-api-key': created.key })).status).toBe(403);
  });
});
