/**
 * The role sweep: for every route that declares `roles` in `defineRoute`, each built-in role
 * outside that list (a sales_rep always; a manager on admin-only routes) gets 403 `forbidden`
 * with the route's code and changes nothing, while a permitted role sending the same request
 * succeeds and does change something (so the fixture's request is one that matters). Routes
 * join by construction: a restricted route without a fixture fails the first test.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_ROLES, type RoleName } from '../src/db/tenant';
import { call, expectFailure, memberToken, signupOrganization, type SignedUp } from './helpers/api';
import { fillPath, routeKey, routes } from './helpers/registry';
import type { RoleFixture, RoleFixtureMap } from './role-sweep/fixture';

const fixtureModules = import.meta.glob<{ fixtures: RoleFixtureMap }>('./role-sweep/fixtures/*.ts', { eager: true });
const fixtures: RoleFixtureMap = Object.assign({}, ...Object.values(fixtureModules).map((module) => module.fixtures));
const restricted = routes.filter((route) => route.roles !== undefined);

function send(method: string, path: string, fixture: RoleFixture, record: Record<string, unknown>, token: string) {
  const request = fixture.request(record);
  return call(method, fillPath(path, request.params), { token, body: request.body, query: request.query });
}

describe('role sweep', () => {
  let admin: SignedUp;
  const tokens = {} as Record<RoleName, string>;

  beforeAll(async () => {
    admin = await signupOrganization('Roles');
    tokens.admin = admin.token;
    tokens.manager = await memberToken(admin, 'manager');
    tokens.sales_rep = await memberToken(admin, 'sales_rep');
  });

  it('has a fixture for every route that declares roles, and none for a route that does not', () => {
    expect(restricted.map(routeKey).filter((key) => !fixtures[key])).toEqual([]);
    const restrictedKeys = new Set(restricted.map(routeKey));
    expect(Object.keys(fixtures).filter((key) => !restrictedKeys.has(key))).toEqual([]);
  });

  it('covers the admin and manager routes of the foundation', () => {
    const declared = Object.fromEntries(restricted.map((route) => [routeKey(route), route.roles]));
    expect(declared).toMatchObject({
      'POST /api/user/add': ['admin'],
      'POST /api/user/delete': ['admin'],
      'POST /api/role/add': ['admin'],
      'POST /api/api-keys/add': ['admin'],
      'DELETE /api/api-keys/delete/{id}': ['admin'],
      'POST /api/custom-lookups/add': ['admin', 'manager'],
      'POST /api/custom-lookups/update/{id}': ['admin', 'manager'],
    });
  });

  it('refuses a role before validating the request: an invalid body from a sales_rep is a 403, not a 422', async () => {
    const response = await call('POST', '/api/user/add', { token: tokens.sales_rep, body: {} });
    expectFailure(response, 403, 'forbidden');
    expect(response.body.error).toMatchObject({ code: 'admin_only', message: 'This action needs the admin role' });
  });

  for (const route of restricted) {
    const key = routeKey(route);
    const allowed = route.roles ?? [];
    const refused = BUILT_IN_ROLES.filter((role) => !allowed.includes(role));
    // The least privileged role the route admits, so the success also proves that role suffices.
    const permitted = [...BUILT_IN_ROLES].reverse().find((role) => allowed.includes(role)) as RoleName;

    it(`${key}: ${refused.join(' and ')} get 403 and change nothing; ${permitted} succeeds`, async () => {
      const fixture = fixtures[key];
      if (!fixture) throw new Error(`no role fixture for ${key}`);
      const record = (await fixture.setup?.(admin)) ?? {};
      const before = await fixture.snapshot(admin, record);
      for (const role of refused) {
        const response = await send(route.method, route.path, fixture, record, tokens[role]);
        expectFailure(response, 403, 'forbidden');
        expect(response.body.error.code, `${role}: ${response.text}`).toBe(`${allowed.join('_or_')}_only`);
        expect(await fixture.snapshot(admin, record), `${role} changed something`).toEqual(before);
      }
      const response = await send(route.method, route.path, fixture, record, tokens[permitted]);
      expect(response.status, `${permitted}: ${response.text}`).toBeLessThan(300);
      if (fixture.readOnly) return;
      expect(
        await fixture.snapshot(admin, record),
        `${permitted}'s request changed nothing: the fixture proves nothing`,
      ).not.toEqual(before);
    });
  }
});
