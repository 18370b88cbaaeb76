/**
 * The OpenAPI document: generated from the same schemas that validate requests, lists every
 * mounted route, and says how each authenticates.
 */
import { SCALAR_BUNDLE_PATH, SCALAR_SRI, SCALAR_VERSION } from '../src/modules/docs/routes';
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { call } from './helpers/api';
import { app, routeKey, routes } from './helpers/registry';

describe('GET /api/openapi.json', () => {
  it('is an OpenAPI 3.1 document listing every registered route with its auth', async () => {
    const response = await call('GET', '/api/openapi.json');
    expect(response.status).toBe(200);
    const document = response.body;
    expect(document.openapi).toBe('3.1.0');
    for (const route of routes) {
      const operation = document.paths?.[route.path]?.[route.method.toLowerCase()];
      expect(operation, routeKey(route)).toBeDefined();
      expect(operation.operationId).toBe(route.operationId);
      if (route.auth === 'bearer') expect(operation.security).toEqual([{ bearerAuth: [] }]);
      if (route.auth === 'apiKey') expect(operation.security).toEqual([{ apiKeyAuth: [] }]);
      if (route.auth === 'operator') expect(operation.security).toEqual([{ operatorBearer: [] }, { operatorKey: [] }]);
    }
  });

  it('states the roles of every restricted route (x-roles, the description and the 403 response) and none elsewhere', async () => {
    const document = (await call('GET', '/api/openapi.json')).body;
    for (const route of routes) {
      const operation = document.paths[route.path][route.method.toLowerCase()];
      expect(operation['x-roles'], routeKey(route)).toEqual(route.roles);
      if (!route.roles) continue;
      expect(operation.description, routeKey(route)).toContain(`Requires the role ${route.roles.join(' or ')}`);
      expect(operation.responses['403'].description, routeKey(route)).toContain(`${route.roles.join('_or_')}_only`);
    }
    expect(document.paths['/api/user/add'].post['x-roles']).toEqual(['admin']);
    expect(document.paths['/api/custom-lookups/add'].post['x-roles']).toEqual(['admin', 'manager']);
  });

  it('has no mounted route missing from the document', async () => {
    const document = (await call('GET', '/api/openapi.json')).body;
    const documented = new Set(
      Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([path, operations]) =>
        Object.keys(operations).map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
      ),
    );
    const undocumentedAllowed = new Set(['GET /api/openapi.json', 'GET /api/docs', `GET ${SCALAR_BUNDLE_PATH}`]);
    const mounted = app.routes
      .filter((route) => route.method !== 'ALL')
      .map((route) => `${route.method} ${route.path}`)
      .filter((key) => !undocumentedAllowed.has(key));
    expect(mounted.filter((key) => !documented.has(key))).toEqual([]);
  });

  it('has unique operation ids', () => {
    const ids = routes.map((route) => route.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('serves an interactive reference page', async () => {
    const response = await call('GET', '/api/docs');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(response.text).toContain('/api/openapi.json');
  });

  it('loads the reference page’s script from this Worker at a pinned version with its SRI hash, under a CSP that admits nothing remote', async () => {
    const [first, second] = [await call('GET', '/api/docs'), await call('GET', '/api/docs')];
    const policy = first.headers.get('content-security-policy') ?? '';
    const nonce = /'nonce-([0-9a-f]+)'/.exec(policy)?.[1];
    expect(nonce).toBeTruthy();
    expect(second.headers.get('content-security-policy')).not.toContain(`nonce-${nonce}`);
    const directives = Object.fromEntries(
      policy.split(';').map((directive) => {
        const [name, ...sources] = directive.trim().split(/\s+/);
        return [name, sources];
      }),
    );
    expect(directives['default-src']).toEqual(["'none'"]);
    expect(directives['script-src']).toEqual([`'nonce-${nonce}'`]);
    // Nothing remote: no scheme or host source in any directive, only keywords, nonces and data:.
    for (const [name, sources] of Object.entries(directives)) {
      for (const source of sources) expect(source, name).toMatch(/^('[^']+'|data:)$/);
    }

    // One same-origin script at the pinned version, checked by its SRI hash, and the inline start-up.
    expect(SCALAR_BUNDLE_PATH).toBe(`/api/docs/scalar-${SCALAR_VERSION}.js`);
    const scripts = [...first.text.matchAll(/<script([^>]*)>/g)].map((match) => match[1]);
    expect(scripts).toHaveLength(2);
    for (const attributes of scripts) expect(attributes).toContain(`nonce="${nonce}"`);
    expect(scripts[0]).toContain(`src="${SCALAR_BUNDLE_PATH}" integrity="${SCALAR_SRI}"`);
    expect(first.text).not.toMatch(/https?:\/\//);

    // The Worker serves those bytes, as JavaScript, cacheable for good; they hash to the SRI.
    const bundle = await exports.default.fetch(new Request(new URL(SCALAR_BUNDLE_PATH, 'http://lead.test')));
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(bundle.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const bytes = await bundle.arrayBuffer();
    const digest = await crypto.subtle.digest('SHA-384', bytes);
    expect(`sha384-${btoa(String.fromCharCode(...new Uint8Array(digest)))}`).toBe(SCALAR_SRI);
  });

  it('names its server relatively, whatever Host the request claims', async () => {
    const response = await call('GET', '/api/openapi.json', { headers: { host: 'evil.example' } });
    expect(response.body.servers).toEqual([{ url: '/', description: 'This deployment' }]);
  });
});
