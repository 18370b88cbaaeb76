/**
 * Every answer whose `data` is an array carries the whole list envelope (total, total_is_estimate,
 * page, limit, next_cursor), paged lists and complete ones (top-N rankings, a pipeline's stages, a
 * deal's forecast history) alike, so a client needs one parser for every list. Found from the
 * OpenAPI document itself, so a route added with a bare array cannot slip; then each such GET is
 * called and its real answer checked.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app';
import { openApiConfig } from '../src/modules/docs/routes';
import type { FixtureMap } from './cross-tenant/fixture';
import { call, signupOrganization, type SignedUp } from './helpers/api';
import { createLead } from './helpers/leads';
import { fillPath, routeKey, routes } from './helpers/registry';

type Json = Record<string, any>;
const document = buildApp().getOpenAPI31Document(openApiConfig()) as unknown as Json;

function resolve(schema: Json | undefined): Json | undefined {
  let current = schema;
  while (current?.$ref) current = document.components.schemas[current.$ref.replace('#/components/schemas/', '')];
  return current;
}

function isArray(schema: Json | undefined): boolean {
  const resolved = resolve(schema);
  if (!resolved) return false;
  if (resolved.type === 'array' || (Array.isArray(resolved.type) && resolved.type.includes('array'))) return true;
  return [...(resolved.anyOf ?? []), ...(resolved.oneOf ?? [])].some((option: Json) => isArray(option));
}

interface ArrayAnswer {
  key: string;
  path: string;
  method: string;
  schema: Json;
}

const arrayAnswers: ArrayAnswer[] = Object.entries(document.paths as Record<string, Json>).flatMap(([path, methods]) =>
  Object.entries(methods as Record<string, Json>).flatMap(([method, operation]) =>
    Object.entries((operation.responses ?? {}) as Record<string, Json>)
      .filter(([status]) => status.startsWith('2'))
      .flatMap(([status, response]) => {
        const schema = resolve(response.content?.['application/json']?.schema);
        if (!schema || !isArray(schema.properties?.data)) return [];
        return [{ key: `${method.toUpperCase()} ${path} ${status}`, path, method: method.toUpperCase(), schema }];
      }),
  ),
);

const ENVELOPE = ['total', 'total_is_estimate', 'page', 'limit', 'next_cursor'];

describe('the list envelope on every answer whose data is an array', () => {
  it('finds the array answers in the document, paged lists and complete ones', () => {
    const keys = arrayAnswers.map((answer) => answer.key);
    expect(keys).toContain('GET /api/lead/list 200');
    expect(keys).toContain('GET /api/intent-alert/hot-leads 200');
    expect(keys).toContain('GET /api/pipelines/stages/{id} 200');
  });

  for (const answer of arrayAnswers) {
    it(`${answer.key} declares total, total_is_estimate, page, limit and a nullable next_cursor`, () => {
      const properties = answer.schema.properties ?? {};
      for (const field of ENVELOPE) {
        expect(properties[field], `${answer.key} ${field}`).toBeDefined();
        expect(answer.schema.required ?? [], `${answer.key} ${field}`).toContain(field);
      }
      expect(resolve(properties.total)?.type).toBe('integer');
      expect(resolve(properties.total_is_estimate)?.type).toBe('boolean');
      expect(resolve(properties.page)?.type).toBe('integer');
      expect(resolve(properties.limit)?.type).toBe('integer');
      const cursor = resolve(properties.next_cursor) ?? {};
      const types = [cursor.type, ...(cursor.anyOf ?? []).map((option: Json) => option.type)].flat();
      expect(types, answer.key).toEqual(expect.arrayContaining(['string', 'null']));
    });
  }
});

const fixtureModules = import.meta.glob<{ fixtures: FixtureMap }>('./cross-tenant/fixtures/*.ts', { eager: true });
const fixtures: FixtureMap = Object.assign({}, ...Object.values(fixtureModules).map((module) => module.fixtures));

/** The GETs among them that can be called here: no path parameter, or a cross-tenant fixture that makes one. */
const callable = routes.filter((route) => {
  if (route.method !== 'GET') return false;
  if (!arrayAnswers.some((answer) => answer.method === 'GET' && answer.path === route.path)) return false;
  return !route.path.includes('{') || routeKey(route) in fixtures;
});

describe('the list envelope on a real answer', () => {
  let owner: SignedUp;
  let ownerKey: string;

  beforeAll(async () => {
    owner = await signupOrganization('List envelope');
    const key = await call('POST', '/api/api-keys/add', { token: owner.token, body: { name: 'envelope sweep' } });
    ownerKey = key.body.data.key;
    await createLead(owner, 'Ada', 'Envelope');
  }, 120_000);

  it('covers the complete lists of the issue (hot leads, stages, forecast history)', () => {
    const keys = callable.map(routeKey);
    expect(keys).toContain('GET /api/intent-alert/hot-leads');
    expect(keys).toContain('GET /api/pipelines/stages/{id}');
  });

  for (const route of callable) {
    it(`${routeKey(route)} answers data with total, total_is_estimate, page, limit and next_cursor`, async () => {
      const fixture = fixtures[routeKey(route)];
      const request = fixture ? await fixture.request(await fixture.setup(owner), owner) : {};
      const credentials = route.auth === 'apiKey' ? { apiKey: ownerKey } : { token: owner.token };
      const response = await call('GET', fillPath(route.path, request.params ?? {}), {
        ...credentials,
        query: request.query ?? {},
      });
      expect(response.status, response.text.slice(0, 300)).toBe(200);
      const body = response.body;
      expect(Array.isArray(body.data)).toBe(true);
      expect(Number.isInteger(body.total)).toBe(true);
      expect(body.total).toBeGreaterThanOrEqual(body.data.length);
      expect(typeof body.total_is_estimate).toBe('boolean');
      expect(Number.isInteger(body.page) && body.page >= 1).toBe(true);
      expect(Number.isInteger(body.limit)).toBe(true);
      expect(body.next_cursor === null || typeof body.next_cursor === 'string').toBe(true);
      if (body.next_cursor === null && body.page === 1) expect(body.total).toBe(body.data.length);
    }, 60_000);
  }
});
