/**
 * The OpenAPI document: generated from the same schemas that validate requests, lists every
 * mounted route, and says how each authenticates.
 */
import { SCALAR_BUNDLE_URL, SCALAR_SRI, SCALAR_VERSION } from '../src/modules/docs/routes';
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
    const undocumentedAllowed = new Set(['GET /api/openapi.json', 'GET /api/docs']);
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

  it('loads the reference page’s script at a pinned version with its SRI hash, under a CSP that admits nothing else', async () => {
    const [first, second] = [await call('GET', '/api/docs'), await call('GET', '/api/docs')];
    const policy = first.headers.get('content-security-policy') ?? '';
    const nonce = /'nonce-([0-9a-f]+)'/.exec(policy)?.[1];
    expect(nonce).toBeTruthy();
    expect(second.headers.get('content-security-policy')).not.toContain(`nonce-${nonce}`);
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain(`script-src 'nonce-${nonce}' ${SCALAR_BUNDLE_URL}`);
    expect(SCALAR_BUNDLE_URL).toContain(`@scalar/api-reference@${SCALAR_VERSION}/`);
    expect(first.text).toContain(`src="${SCALAR_BUNDLE_URL}" integrity="${SCALAR_SRI}" crossorigin="anonymous"`);
    const scripts = [...first.text.matchAll(/<script([^>]*)>/g)].map((match) => match[1]);
    expect(scripts).toHaveLength(2);
    for (const attributes of scripts) expect(attributes).toContain(`nonce="${nonce}"`);
  });

  it('names its server relatively, whatever Host the request claims', async () => {
    const response = await call('GET', '/api/openapi.json', { headers: { host: 'evil.example' } });
    expect(response.body.servers).toEqual([{ url: '/', description: 'This deployment' }]);
  });
});
