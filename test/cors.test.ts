/**
 * CORS (core/cors.ts): /api/v1/* answers any origin's preflight and reflects the Origin on the
 * real request only when the API key's domain rules accept it; the bearer API answers only the
 * origins of CORS_ORIGINS (vitest.config.ts sets https://app.example.test).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, type SignedUp, signupOrganization, uniqueEmail } from './helpers/api';

const LISTED = 'https://app.example.test';

function preflight(path: string, origin: string, requestHeaders: string, method = 'POST') {
  return call('OPTIONS', path, {
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': requestHeaders,
    },
  });
}

describe('CORS', () => {
  let owner: SignedUp;
  let openKey: string;
  let shopKey: string;

  beforeAll(async () => {
    owner = await signupOrganization('Cors');
    const keys = await Promise.all(
      [{ name: 'open' }, { name: 'shop', allowed_domains: ['shop.example.com'] }].map((body) =>
        call('POST', '/api/api-keys/add', { token: owner.token, body }),
      ),
    );
    [openKey, shopKey] = keys.map((key) => key.body.data.key);
  });

  it('answers a preflight on /api/v1/* from any origin, allowing the ingestion headers, cached', async () => {
    for (const origin of ['https://shop.example.com', 'https://anyone.example.org']) {
      const response = await preflight('/api/v1/lead', origin, 'content-type,x-api-key,idempotency-key');
      expect(response.status).toBe(204);
      expect(response.text).toBe('');
      expect(response.headers.get('access-control-allow-origin')).toBe(origin);
      const allowed = response.headers.get('access-control-allow-headers')?.split(',') ?? [];
      expect(allowed.sort()).toEqual(['content-type', 'idempotency-key', 'x-api-key']);
      expect(response.headers.get('access-control-allow-methods')).toContain('POST');
      expect(Number(response.headers.get('access-control-max-age'))).toBeGreaterThanOrEqual(600);
    }
    const list = await preflight('/api/v1/lead/lead-list', 'https://anyone.example.org', 'x-api-key', 'GET');
    expect(list.status).toBe(204);
  });

  it('reflects the Origin on the real request for a key without domain rules', async () => {
    const origin = 'https://anyone.example.org';
    const response = await call('POST', '/api/v1/lead', {
      apiKey: openKey,
      body: { email: uniqueEmail('cors') },
      headers: { origin },
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('access-control-allow-origin')).toBe(origin);
    expect(response.headers.get('vary')).toContain('Origin');
    expect(response.headers.get('access-control-expose-headers')).toContain('RateLimit');
    // A refusal after the key was accepted (422) is readable too.
    const invalid = await call('POST', '/api/v1/lead', { apiKey: openKey, body: {}, headers: { origin } });
    expect(invalid.status).toBe(422);
    expect(invalid.headers.get('access-control-allow-origin')).toBe(origin);
  });

  it('reflects only the origins a restricted key accepts', async () => {
    const allowed = await call('GET', '/api/v1/lead/lead-list', {
      apiKey: shopKey,
      headers: { origin: 'https://www.shop.example.com' },
    });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://www.shop.example.com');
    const refused = await call('GET', '/api/v1/lead/lead-list', {
      apiKey: shopKey,
      headers: { origin: 'https://evil.example.net' },
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    // No key at all: nothing to read either.
    const missing = await call('GET', '/api/v1/lead/lead-list', { headers: { origin: 'https://evil.example.net' } });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers the bearer API’s CORS for the CORS_ORIGINS origins only', async () => {
    const listed = await preflight('/api/lead/list', LISTED, 'authorization', 'GET');
    expect(listed.status).toBe(204);
    expect(listed.headers.get('access-control-allow-origin')).toBe(LISTED);
    expect(listed.headers.get('access-control-allow-headers')).toContain('authorization');
    expect(listed.headers.get('access-control-max-age')).not.toBeNull();
    const real = await call('GET', '/api/lead/list', { token: owner.token, headers: { origin: LISTED } });
    expect(real.status).toBe(200);
    expect(real.headers.get('access-control-allow-origin')).toBe(LISTED);

    const stranger = 'https://anyone.example.org';
    const refusedPreflight = await preflight('/api/lead/list', stranger, 'authorization', 'GET');
    expect(refusedPreflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(refusedPreflight.status).not.toBe(204);
    const refusedReal = await call('GET', '/api/lead/list', { token: owner.token, headers: { origin: stranger } });
    expect(refusedReal.status).toBe(200);
    expect(refusedReal.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('lets a CORS_ORIGINS page call every method the bearer API serves, PUT and PATCH included', async () => {
    for (const [method, path] of [
      ['PUT', '/api/pipelines/update/1'],
      ['PATCH', '/api/target-accounts/1'],
      ['DELETE', '/api/lead/delete'],
      ['POST', '/api/lead/add'],
    ]) {
      const response = await preflight(path, LISTED, 'authorization,content-type', method);
      expect(response.status, method).toBe(204);
      const allowed = response.headers.get('access-control-allow-methods')?.split(',') ?? [];
      expect(allowed, method).toContain(method);
    }
  });
});
