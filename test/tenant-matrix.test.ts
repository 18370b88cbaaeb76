/**
 * The cross-tenant matrix: for every route that takes a record id (path `{id}`, or a required
 * `ids` / `*_id` input), organization B acting on organization A's record gets 404 (bulk `ids`
 * routes: no effect), and A's record is unchanged afterwards. Routes join by construction:
 * a route without a fixture fails the first test.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, signupOrganization, type SignedUp } from './helpers/api';
import { fillPath, routeKey, routes, takesRecordReference } from './helpers/registry';
import type { FixtureMap } from './cross-tenant/fixture';
import type { RegisteredRoute } from '../src/core/routes';

const fixtureModules = import.meta.glob<{ fixtures: FixtureMap }>('./cross-tenant/fixtures/*.ts', { eager: true });
const fixtures: FixtureMap = Object.assign({}, ...Object.values(fixtureModules).map((module) => module.fixtures));
// Operator routes (granting credits, topping up a calling wallet) act on the organization their
// input names by design, and no tenant credential reaches them (test/credits.test.ts and
// test/voice.test.ts: an admin naming any organization gets 403).
const idRoutes = routes.filter((route) => route.auth !== 'operator' && takesRecordReference(route));

describe('cross-tenant matrix', () => {
  let owner: SignedUp;
  let intruder: SignedUp;

  let intruderApiKey: string | undefined;

  beforeAll(async () => {
    [owner, intruder] = await Promise.all([signupOrganization('Owner'), signupOrganization('Intruder')]);
  });

  /** The intruder's own credential of the route's kind: its bearer token, an API key of its organization, or none. */
  async function intruderCredentials(auth: RegisteredRoute['auth']): Promise<{ token?: string; apiKey?: string }> {
    if (auth === 'public') return {};
    if (auth === 'bearer') return { token: intruder.token };
    if (!intruderApiKey) {
      const key = await call('POST', '/api/api-keys/add', { token: intruder.token, body: { name: 'intruder' } });
      if (key.status !== 201) throw new Error(`api key: ${key.status} ${key.text}`);
      intruderApiKey = key.body.data.key as string;
    }
    return { apiKey: intruderApiKey };
  }

  it('has a fixture for every route that takes a record id', () => {
    const missing = idRoutes.map(routeKey).filter((key) => !fixtures[key]);
    expect(missing).toEqual([]);
  });

  it('covers the foundation routes', () => {
    const keys = idRoutes.map(routeKey);
    expect(keys).toEqual(
      expect.arrayContaining([
        'POST /api/user/update/{id}',
        'POST /api/user/delete',
        'DELETE /api/api-keys/delete/{id}',
      ]),
    );
  });

  for (const route of idRoutes) {
    const key = routeKey(route);
    it(`${key}: another organization cannot see or change the record`, async () => {
      const fixture = fixtures[key];
      if (!fixture) throw new Error(`no cross-tenant fixture for ${key}`);
      const record = await fixture.setup(owner);
      const before = await fixture.snapshot(owner, record);
      expect(before).not.toBeNull();
      const request = await fixture.request(record, intruder);
      const path = fillPath(route.path, request.params);
      const credentials = await intruderCredentials(route.auth);
      const sent = { ...credentials, query: request.query, headers: request.headers };
      const response = request.form
        ? await call(route.method, path, { ...sent, rawBody: request.form() })
        : await call(route.method, path, { ...sent, body: request.body, rawBody: request.rawBody });
      if ((fixture.outcome ?? 'not_found') === 'not_found') {
        expect(response.status, response.text).toBe(404);
        expect(response.body).toMatchObject({ success: false, error: { type: 'not_found' } });
      } else if (fixture.outcome === 'forbidden') {
        expect(response.status, response.text).toBe(403);
        expect(response.body).toMatchObject({ success: false, error: { type: 'forbidden' } });
      } else if (fixture.outcome === 'not_found_page') {
        expect(response.status, response.text).toBe(404);
        expect(response.headers.get('content-type')).toContain('text/html');
      } else {
        expect(response.status, response.text).toBeLessThan(300);
      }
      expect(response.text).not.toContain(String(owner.email));
      const after = await fixture.snapshot(owner, record);
      expect(after).toEqual(before);
    });
  }
});
