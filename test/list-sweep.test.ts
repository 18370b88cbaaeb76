/**
 * Every list route of the registry (any route whose query takes `cursor`) answers a total that
 * agrees with its own rows: walking every page by next_cursor visits exactly `total` rows, every
 * cursor page repeats the first page's total, and a search_value that matches nothing gives
 * `total: 0` with no rows (so no list counts without the search or joins it fetches with).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { FixtureMap } from './cross-tenant/fixture';
import { call, signupOrganization, type SignedUp } from './helpers/api';
import { createLead } from './helpers/leads';
import { fillPath, objectShape, routeKey, routes } from './helpers/registry';

const fixtureModules = import.meta.glob<{ fixtures: FixtureMap }>('./cross-tenant/fixtures/*.ts', { eager: true });
const fixtures: FixtureMap = Object.assign({}, ...Object.values(fixtureModules).map((module) => module.fixtures));

const listRoutes = routes.filter(
  (route) => route.method.toLowerCase() === 'get' && 'cursor' in objectShape(route.query),
);

let owner: SignedUp;
let ownerKey: string;

beforeAll(async () => {
  owner = await signupOrganization('List sweep');
  const key = await call('POST', '/api/api-keys/add', { token: owner.token, body: { name: 'list sweep' } });
  ownerKey = key.body.data.key;
  for (const name of ['Ada', 'Grace', 'Edsger', 'Barbara', 'Donald']) await createLead(owner, name, 'Sweep');
}, 120_000);

async function listRequest(key: string) {
  const fixture = fixtures[key];
  if (!fixture) return { params: {}, query: {} };
  const request = await fixture.request(await fixture.setup(owner), owner);
  return { params: request.params ?? {}, query: request.query ?? {} };
}

describe('every list route', () => {
  it('is found in the registry: the 42 lists', () => {
    expect(listRoutes.map(routeKey).sort()).toHaveLength(42);
  });

  for (const route of listRoutes) {
    it(`${routeKey(route)}: cursor pages visit exactly total rows and carry the total; a search that matches nothing gives total 0`, async () => {
      const { params, query } = await listRequest(routeKey(route));
      // API-key lists are called with the owner's key, the others with its token.
      const credentials = route.auth === 'apiKey' ? { apiKey: ownerKey } : { token: owner.token };
      const path = fillPath(route.path, params);
      const first = await call('GET', path, { ...credentials, query: { ...query, limit: 2 } });
      expect(first.status, first.text).toBe(200);
      expect(first.body.total_is_estimate).toBe(false);
      const total = first.body.total as number;
      const seen = new Set<unknown>(first.body.data.map((row: { id: unknown }) => row.id));
      let cursor = first.body.next_cursor as string | null;
      for (let pages = 0; cursor && pages < 100; pages++) {
        const next = await call('GET', path, { ...credentials, query: { ...query, limit: 2, cursor } });
        expect(next.status, next.text).toBe(200);
        expect(next.body).toMatchObject({ total, total_is_estimate: false });
        for (const row of next.body.data as { id: unknown }[]) seen.add(row.id);
        cursor = next.body.next_cursor;
      }
      expect(seen.size).toBe(total);

      const none = await call('GET', path, {
        ...credentials,
        query: { ...query, search_value: 'zq-no-such-text-xj' },
      });
      expect(none.status, none.text).toBe(200);
      expect(none.body).toMatchObject({ data: [], total: 0, total_is_estimate: false, next_cursor: null });
    }, 120_000);

    it(`${routeKey(route)}: refuses start_date after end_date with 400 naming start_date, never an empty page`, async () => {
      const { params, query } = await listRequest(routeKey(route));
      const credentials = route.auth === 'apiKey' ? { apiKey: ownerKey } : { token: owner.token };
      const path = fillPath(route.path, params);
      const inverted = await call('GET', path, {
        ...credentials,
        query: { ...query, start_date: '2026-03-02', end_date: '2026-03-01' },
      });
      expect(inverted.status, inverted.text).toBe(400);
      expect(inverted.body.error.code).toBe('start_date');
      const oneDay = await call('GET', path, {
        ...credentials,
        query: { ...query, start_date: '2026-03-01', end_date: '2026-03-01' },
      });
      expect(oneDay.status, oneDay.text).toBe(200);
    }, 120_000);
  }
});
