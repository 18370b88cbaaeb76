/**
 * Allow-lists are own keys: a name every object inherits (`constructor`, `__proto__`,
 * `hasOwnProperty`) is in no allow-list. The finding: a saved query naming one as a metric field,
 * group_by or bucket field was stored (201) and its execution answered 500, or ran and labelled
 * groups "function Object() { [native code] }". The bad-input sweep sends these names to every
 * enum-like field of every route.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { planColumns } from '../src/modules/imports/header-mapping';
import { call, expectFailure, signupOrganization, type SignedUp } from './helpers/api';

const INHERITED = ['constructor', '__proto__', 'hasOwnProperty', 'toString', 'valueOf'];

describe('saved queries name own fields only', () => {
  let owner: SignedUp;

  beforeAll(async () => {
    owner = await signupOrganization('OwnKeys');
  });

  it('refuses an inherited name as module, metric field, group_by or bucket field with 422 naming it', async () => {
    for (const name of INHERITED) {
      const cases: [Record<string, unknown>, string][] = [
        [{ module: name, metric: { op: 'count' } }, 'definition.module'],
        [{ module: 'leads', metric: { op: 'sum', field: name } }, 'definition.metric.field'],
        [{ module: 'leads', metric: { op: 'avg', field: name } }, 'definition.metric.field'],
        [{ module: 'leads', metric: { op: 'count' }, group_by: name }, 'definition.group_by'],
        [
          { module: 'deals', metric: { op: 'count' }, bucket: { field: name, unit: 'month' } },
          'definition.bucket.field',
        ],
      ];
      for (const [definition, field] of cases) {
        const response = await call('POST', '/api/queries', { token: owner.token, body: { name: 'Q', definition } });
        expectFailure(response, 422, 'validation_error');
        expect(
          response.body.error.details.map((issue: { field: string }) => issue.field),
          JSON.stringify(definition),
        ).toContain(field);
      }
    }
  });

  it('groups by no inherited name when a query is executed inline', async () => {
    const response = await call('POST', '/api/queries', {
      token: owner.token,
      body: { name: 'Q', definition: { module: 'leads', metric: { op: 'count' }, group_by: 'constructor' } },
    });
    expect(response.status, response.text).toBe(422);
    expect(response.text).not.toContain('native code');
  });
});

describe('API-key ingestion keeps inherited names as custom fields', () => {
  it('stores a field named constructor or hasOwnProperty under custom_fields instead of dropping it', async () => {
    const owner = await signupOrganization('OwnKeysIngest');
    const key = await call('POST', '/api/api-keys/add', { token: owner.token, body: { name: 'site' } });
    const response = await call('POST', '/api/v1/lead', {
      apiKey: key.body.data.key,
      body: { email: 'own-keys@example.com', constructor: 'kept', hasOwnProperty: 'also kept' },
    });
    expect(response.status, response.text).toBe(201);
    const view = await call('GET', `/api/lead/view/${response.body.data.id}`, { token: owner.token });
    expect(view.body.data.custom_fields).toEqual({ constructor: 'kept', hasOwnProperty: 'also kept' });
  });
});

describe('import headers', () => {
  it('maps a header named like an inherited property to a custom field, never to a lead field', () => {
    expect(planColumns(['constructor', '__proto__', 'toString', 'Email'])).toEqual([
      { kind: 'custom', key: 'constructor' },
      { kind: 'custom', key: '__proto__' },
      { kind: 'custom', key: 'toString' },
      { kind: 'field', field: 'email' },
    ]);
  });
});
