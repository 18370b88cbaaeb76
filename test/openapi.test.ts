/**
 * The OpenAPI document: generated from the same schemas that validate requests, lists every
 * mounted route, and says how each authenticates.
 */
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
});
