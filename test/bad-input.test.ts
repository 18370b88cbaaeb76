/**
 * The bad-input sweep over the route registry: malformed JSON, bodies of the wrong JSON type,
 * oversized strings, malformed ids and unknown order_by values all get a 4xx failure envelope,
 * never a 500 and never a success. Every string a body accepts has a maximum length.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, type CallOptions, randomIp, signupOrganization, type ApiResponse, type SignedUp } from './helpers/api';
import { dateField, objectShape, routeKey, routes, unboundedStrings, urlField } from './helpers/registry';
import { operatorHeaders } from './helpers/operator';
import type { RegisteredRoute } from '../src/core/routes';
import { signDelivery } from '../src/modules/meetings/webhook-signature';
import { base64url } from 'jose';

function expectClientFailure(response: ApiResponse, label: string): void {
  expect(response.status, `${label}: ${response.text.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
  expect(response.status, `${label}: ${response.text.slice(0, 300)}`).toBeLessThan(500);
  expect(response.body?.success, label).toBe(false);
  expect(typeof response.body?.error?.type, label).toBe('string');
  expectPlainMessages(response, label);
}

/** zod's own English (validation-messages.ts replaces it) appears in no message of a failure, nor of its details. */
function expectPlainMessages(response: ApiResponse, label: string): void {
  const error = response.body?.error ?? {};
  const details: { message?: unknown }[] = Array.isArray(error.details) ? error.details : [];
  for (const message of [error.message, ...details.map((detail) => detail.message)]) {
    expect(String(message), label).not.toMatch(/Invalid input|\bexpected [a-z]+, received\b|received undefined/i);
  }
}

function samplePath(route: RegisteredRoute, value: string | number = 999_999_999): string {
  return route.path.replace(/\{\w+\}/g, String(value));
}

const swept = routes.filter((route) => !['/api/health', '/api/openapi.json', '/api/docs'].includes(route.path));
/**
 * A route taking several body media types (company add and update: JSON or multipart) is swept as
 * each: `bodyOf` views it with that media type's schema.
 */
function bodyOf(route: RegisteredRoute, mediaType: string): RegisteredRoute | undefined {
  const declared = route.bodies.find((body) => body.mediaType === mediaType);
  return declared ? { ...route, body: declared.schema, bodyMediaType: mediaType } : undefined;
}
const jsonRoutes = swept.flatMap((route) => bodyOf(route, 'application/json') ?? []);
const multipartRoutes = swept.flatMap((route) => bodyOf(route, 'multipart/form-data') ?? []);
const bodyRoutes = swept.filter((route) => route.bodies.length > 0);
const listRoutes = swept.filter((route) => 'order_by' in objectShape(route.query));
// Tracking tokens, form links and booking slugs are opaque, not ids: the pixel answers its GIF to any
// token, the click 404 (test/tracking.test.ts), an unknown form link the 404 page (test/web-forms.test.ts),
// a slug nobody has 404 (test/booking.test.ts checks malformed ones). A calendar provider is a name:
// another one is a 404 naming the served ones (test/calendar.test.ts).
const idPathRoutes = swept.filter(
  (route) =>
    route.path.includes('{') &&
    !route.path.includes('{token}') &&
    !route.path.includes('{form_link}') &&
    !route.path.includes('{slug}') &&
    !route.path.includes('{provider}'),
);

describe('bad-input sweep', () => {
  /**
   * The sweep sends thousands of requests within a minute, more than one organization's (or one
   * address's) rate limit allows: routes are spread over a few organizations, each calling from
   * its own address, so every answer judged is the route's own and never a 429. Six were too
   * few once the sweep grew (an organization reached 1 200 requests within its minute and a
   * sweep answer was a 429 in CI): sixteen spread the same requests over more organizations.
   */
  interface Sweeper {
    caller: SignedUp;
    apiKey: string;
    /** A lead of the caller, for lists scoped to one (notes, follow-ups, documents, files). */
    leadId: number;
    ip: string;
    /** The caller's own meeting-tool webhook endpoint: its path and signing secret (SIGNED_ROUTES). */
    webhook: { path: string; secret: string };
  }
  const SWEEPERS = 16;
  let sweepers: Sweeper[] = [];

  beforeAll(async () => {
    sweepers = await Promise.all(
      Array.from({ length: SWEEPERS }, async () => {
        const caller = await signupOrganization('Sweep');
        const key = await call('POST', '/api/api-keys/add', { token: caller.token, body: { name: 'sweep' } });
        const lead = await call('POST', '/api/lead/add', {
          token: caller.token,
          body: { first_name: 'Sweep', last_name: 'Lead' },
        });
        const webhook = await call('POST', '/api/meeting-tools/webhooks/add', {
          token: caller.token,
          body: { tool: 'tool_a' },
        });
        return {
          caller,
          apiKey: key.body.data.key,
          leadId: lead.body.data.id,
          ip: randomIp(),
          webhook: { path: webhook.body.data.url as string, secret: webhook.body.data.secret as string },
        };
      }),
    );
  });

  function sweeperFor(route: RegisteredRoute): Sweeper {
    const index = routes.findIndex((other) => other.method === route.method && other.path === route.path);
    return sweepers[index % SWEEPERS];
  }

  function auth(route: RegisteredRoute) {
    const sweeper = sweeperFor(route);
    const headers = { 'cf-connecting-ip': sweeper.ip };
    if (route.auth === 'bearer') return { token: sweeper.caller.token, headers };
    if (route.auth === 'apiKey') return { apiKey: sweeper.apiKey, headers };
    if (route.auth === 'operator') return { headers: { ...headers, ...operatorHeaders() } };
    return { headers };
  }

  /**
   * Routes authenticated by a signature over the raw body (meeting-tool webhooks, Standard Webhooks
   * headers) rather than a credential. Their order of checks is the path (tool, token), the body
   * (NUL bytes, then the schema), the endpoint (404), then the signature (401): so every request the
   * sweep makes to them goes to the caller's own endpoint, signed over the exact bytes sent, and
   * each refusal judged is a refusal of the input by a route that would have accepted the sender.
   * The test after the sweep's own checks proves the signature is really required.
   */
  const SIGNED_ROUTES = new Set(['POST /api/v1/meeting-tools/{tool}/webhook/{token}']);

  /** Sends to the route (sample ids in its path, or `pathValue`), signing the body of a signed route. */
  async function send(route: RegisteredRoute, options: CallOptions, pathValue?: string | number) {
    if (!SIGNED_ROUTES.has(routeKey(route)) || pathValue !== undefined)
      return call(route.method, samplePath(route, pathValue), options);
    const { webhook } = sweeperFor(route);
    const raw =
      typeof options.rawBody === 'string'
        ? options.rawBody
        : options.rawBody === undefined && options.body !== undefined
          ? JSON.stringify(options.body)
          : undefined;
    if (raw === undefined) return call(route.method, webhook.path, options);
    const id = `msg_${crypto.randomUUID()}`;
    const timestamp = Math.floor(Date.now() / 1000);
    return call(route.method, webhook.path, {
      ...options,
      body: undefined,
      rawBody: raw,
      headers: {
        'content-type': 'application/json',
        ...options.headers,
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': await signDelivery(webhook.secret, id, timestamp, raw),
      },
    });
  }

  for (const key of SIGNED_ROUTES) {
    it(`${key} checks the body before the signature, and requires the signature of a well-formed one`, async () => {
      const route = routes.find((candidate) => routeKey(candidate) === key) as RegisteredRoute;
      expect(route, key).toBeDefined();
      const { webhook, ip } = sweeperFor(route);
      const headers = { 'cf-connecting-ip': ip };
      // Validly signed, a bad field is still a 422 naming it.
      const signedBad = await send(route, {
        headers,
        body: { meeting_url: 'javascript:alert(1)', transcript: 'A: hi' },
      });
      expect([signedBad.status, signedBad.body.error?.code], signedBad.text).toEqual([422, 'meeting_url']);
      // A well-formed body without a signature, or signed with another secret, is refused with 401.
      const body = { meeting_id: 1, transcript: 'A: hi' };
      const unsigned = await call(route.method, webhook.path, { headers, body });
      expect([unsigned.status, unsigned.body.error?.code], unsigned.text).toEqual([401, 'webhook_signature_missing']);
      const raw = JSON.stringify(body);
      const timestamp = Math.floor(Date.now() / 1000);
      const forged = await call(route.method, webhook.path, {
        rawBody: raw,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'webhook-id': 'msg_forged',
          'webhook-timestamp': String(timestamp),
          'webhook-signature': await signDelivery(`whsec_${btoa('x'.repeat(32))}`, 'msg_forged', timestamp, raw),
        },
      });
      expect([forged.status, forged.body.error?.code], forged.text).toEqual([401, 'webhook_signature_invalid']);
    });
  }

  it('gives every string field of every body a maximum length, in each media type it takes', () => {
    const unbounded = swept.flatMap((route) =>
      route.bodies.flatMap((body) =>
        unboundedStrings(body.schema).map((path) => `${routeKey(route)} ${body.mediaType} ${path}`),
      ),
    );
    expect(unbounded).toEqual([]);
  });

  it('finds the routes that take both JSON and multipart bodies', () => {
    const both = bodyRoutes.filter((route) => route.bodies.length > 1).map(routeKey);
    expect(both.sort()).toEqual(['POST /api/company/add', 'POST /api/company/update/{id}']);
  });

  for (const route of bodyRoutes) {
    const accepted = route.bodies.map((body) => body.mediaType).join(' or ');
    it(`${routeKey(route)} refuses any other content type with 415 naming ${accepted}`, async () => {
      for (const type of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded']) {
        if (route.bodies.some((body) => body.mediaType === type)) continue;
        const response = await send(route, {
          ...auth(route),
          rawBody: 'a=1',
          headers: { ...auth(route).headers, 'content-type': type },
        });
        expectClientFailure(response, type);
        expect([response.status, response.body.error.type], type).toEqual([415, 'unsupported_media_type']);
        expect(response.body.error.message, type).toContain(accepted);
      }
    });
  }

  for (const route of jsonRoutes) {
    it(`${routeKey(route)} refuses unparseable JSON with 400`, async () => {
      const response = await send(route, {
        ...auth(route),
        rawBody: '{"broken',
        headers: { ...auth(route).headers, 'content-type': 'application/json' },
      });
      expectClientFailure(response, 'unparseable');
      expect(response.status).toBe(400);
    });

    it(`${routeKey(route)} refuses bodies of the wrong JSON type and oversized strings`, async () => {
      for (const body of [[1, 2, 3], 'a string', 42, null, true]) {
        expectClientFailure(await send(route, { ...auth(route), body }), `body ${JSON.stringify(body)}`);
      }
      const oversized = Object.fromEntries(
        Object.keys(objectShape(route.body)).map((key) => [key, 'x'.repeat(10_001)]),
      );
      expectClientFailure(await send(route, { ...auth(route), body: oversized }), 'oversized strings');
      const wrongTypes = Object.fromEntries(
        Object.keys(objectShape(route.body)).map((key) => [key, { nested: [true] }]),
      );
      expectClientFailure(await send(route, { ...auth(route), body: wrongTypes }), 'wrong field types');
    });

    it(`${routeKey(route)} refuses a non-JSON content type`, async () => {
      const response = await send(route, {
        ...auth(route),
        rawBody: 'a=1',
        headers: { ...auth(route).headers, 'content-type': 'text/plain' },
      });
      expectClientFailure(response, 'text/plain');
      expect([response.status, response.body.error.type]).toEqual([415, 'unsupported_media_type']);
    });
  }

  for (const route of multipartRoutes) {
    it(`${routeKey(route)} refuses JSON (unless it takes JSON too) and empty multipart bodies`, async () => {
      if (!bodyOf(route, 'application/json')) {
        expectClientFailure(await send(route, { ...auth(route), body: { file: 'not a file' } }), 'json to multipart');
      }
      expectClientFailure(await send(route, { ...auth(route), rawBody: new FormData() }), 'empty form');
    });
  }

  for (const route of listRoutes) {
    it(`${routeKey(route)} refuses unknown order_by and malformed paging with 400`, async () => {
      for (const query of [
        { order_by: 'password_hash' },
        { order_by: 'id;drop table users' },
        { page: 'abc' },
        { limit: '-1' },
        { order_in: 'sideways' },
        { start_date: 'yesterday' },
        { cursor: 'not-a-cursor' },
      ]) {
        const response = await send(route, { ...auth(route), query });
        expectClientFailure(response, JSON.stringify(query));
        expect(response.status, JSON.stringify(query)).toBe(400);
      }
    });
  }

  for (const route of idPathRoutes) {
    it(`${routeKey(route)} refuses a malformed id with 400`, async () => {
      for (const value of ['abc', '-5', '1.5', '99999999999999999999']) {
        const response = await send(
          route,
          { ...auth(route), body: route.bodyMediaType === 'application/json' ? {} : undefined },
          value,
        );
        expectClientFailure(response, `id ${value}`);
        expect(response.status, `id ${value}`).toBe(400);
      }
    });
  }

  const NUL = 'x\u0000y';
  const queryRoutes = swept.filter((route) => Object.keys(objectShape(route.query)).length > 0);

  for (const route of jsonRoutes) {
    it(`${routeKey(route)} refuses a NUL byte in every field, nested ones included, with 422 naming it`, async () => {
      for (const key of Object.keys(objectShape(route.body))) {
        for (const [value, field] of [
          [NUL, key],
          [{ inner: NUL }, `${key}.inner`],
          [[NUL], `${key}.0`],
        ] as const) {
          const response = await send(route, { ...auth(route), body: { [key]: value } });
          expectClientFailure(response, `${key} ${JSON.stringify(value)}`);
          expect([response.status, response.body.error.code], `${key} ${JSON.stringify(value)}`).toEqual([422, field]);
        }
      }
    });
  }

  const LONE_SURROGATE = 'x\ud83dy';

  for (const route of jsonRoutes) {
    it(`${routeKey(route)} refuses an unpaired surrogate in every field and in a nested key with 422 naming it`, async () => {
      for (const key of Object.keys(objectShape(route.body))) {
        for (const [value, field] of [
          [LONE_SURROGATE, key],
          [{ 'k\udc00': 'v' }, `${key}.k\\udc00`],
        ] as const) {
          const response = await send(route, { ...auth(route), body: { [key]: value } });
          expectClientFailure(response, `${key} ${JSON.stringify(value)}`);
          expect([response.status, response.body.error.code], `${key} ${JSON.stringify(value)}`).toEqual([422, field]);
        }
      }
    });
  }

  for (const route of multipartRoutes) {
    it(`${routeKey(route)} refuses a NUL byte in a form field with 422 naming it`, async () => {
      for (const key of Object.keys(objectShape(route.body))) {
        const form = new FormData();
        form.append(key, NUL);
        const response = await send(route, { ...auth(route), rawBody: form });
        expect([response.status, response.body.error?.code], key).toEqual([422, key]);
      }
    });
  }

  for (const route of queryRoutes) {
    it(`${routeKey(route)} refuses a NUL byte in every query value with 400 naming it`, async () => {
      for (const key of Object.keys(objectShape(route.query))) {
        const response = await send(route, { ...auth(route), query: { [key]: NUL } });
        expect([response.status, response.body.error?.code], key).toEqual([400, key]);
      }
    });
  }

  function nested(depth: number): unknown {
    let value: unknown = 'leaf';
    for (let i = 0; i < depth; i++) value = { next: value };
    return value;
  }

  for (const route of jsonRoutes) {
    it(`${routeKey(route)} refuses JSON nested deeper than 32 levels in every field with a 4xx`, async () => {
      for (const key of Object.keys(objectShape(route.body))) {
        for (const depth of [33, 5_000]) {
          const response = await send(route, {
            ...auth(route),
            body: { [key]: nested(depth) },
          });
          expectClientFailure(response, `${key} nested ${depth}`);
        }
      }
    });
  }

  /** Values for a list's required query parameters (e.g. lead_id, subject_type), so the cursor is what gets judged. */
  function requiredQuery(route: RegisteredRoute): Record<string, string> {
    const filled: Record<string, string> = {};
    for (const [key, schema] of Object.entries(objectShape(route.query))) {
      const field = schema as { safeParse(value: unknown): { success: boolean } };
      if (field.safeParse(undefined).success) continue;
      const value = [String(sweeperFor(route).leadId), 'lead', 'true'].find(
        (candidate) => field.safeParse(candidate).success,
      );
      if (value) filled[key] = value;
    }
    return filled;
  }

  for (const route of listRoutes) {
    it(`${routeKey(route)} refuses forged cursors (a sort key that is an array, an object or holds a NUL) with 400`, async () => {
      for (const v of [['a'], { a: 1 }, 'x\u0000y', 12]) {
        const cursor = base64url.encode(JSON.stringify({ k: 'id', d: 'DESC', v, id: 1 }));
        const query = { ...requiredQuery(route), cursor };
        const response = await send(route, { ...auth(route), query });
        expect([response.status, response.body.error?.code], JSON.stringify(v)).toEqual([400, 'cursor']);
      }
    });
  }

  /** Whether the failure names `key`, as error.code or among error.details. */
  function names(response: ApiResponse, key: string): boolean {
    const details: { field?: string }[] = response.body?.error?.details ?? [];
    return response.body?.error?.code === key || details.some((detail) => detail.field === key);
  }

  /** Sends `{ key: value }` as the route's body (JSON or form) or query. */
  function sendField(route: RegisteredRoute, where: 'body' | 'query', key: string, value: string) {
    if (where === 'query') return send(route, { ...auth(route), query: { [key]: value } });
    if (route.bodyMediaType === 'multipart/form-data') {
      const form = new FormData();
      form.append(key, value);
      return send(route, { ...auth(route), rawBody: form });
    }
    return send(route, { ...auth(route), body: { [key]: value } });
  }

  /** Each route once per body media type it takes (company update: JSON and multipart). */
  const bodyViews = [...jsonRoutes, ...multipartRoutes];
  const urlKeys = bodyViews.map((route) => ({
    route,
    keys: Object.entries(objectShape(route.body)).filter(([key, field]) => urlField(key, field).isUrl),
  }));

  it('puts every body field named like a URL under the URL rule, and finds the known ones', () => {
    const loose = bodyViews.flatMap((route) =>
      Object.entries(objectShape(route.body))
        .filter(([key, field]) => urlField(key, field).named && !urlField(key, field).isUrl)
        .map(([key]) => `${routeKey(route)} ${key}`),
    );
    expect(loose).toEqual([]);
    const found = new Set(urlKeys.flatMap(({ keys }) => keys.map(([key]) => key)));
    for (const key of ['target_url', 'redirect_url', 'website', 'profile_url', 'company_logo', 'meeting_url']) {
      expect(found, key).toContain(key);
    }
  });

  const HEADER_BREAKERS = [
    'https://example.com/\r\nSet-Cookie: a=1',
    'https://exa\nmple.com/',
    'https://example.com/\r',
    'https://a;sandbox',
  ];

  for (const { route, keys } of urlKeys.filter(({ keys }) => keys.length > 0)) {
    it(`${routeKey(route)} refuses CR/LF and hosts no header can carry in every URL field, naming it`, async () => {
      for (const [key] of keys) {
        for (const value of HEADER_BREAKERS) {
          const response = await sendField(route, 'body', key, value);
          expectClientFailure(response, `${key} ${JSON.stringify(value)}`);
          expect([response.status, names(response, key)], `${key} ${JSON.stringify(value)}`).toEqual([422, true]);
        }
      }
    });
  }

  /** Past the calendar, or no day at all: refused, naming the field. */
  const OUTSIDE_CALENDAR = [
    '0001-01-01',
    '1899-12-31',
    '2026-02-30',
    '10000-01-01',
    '+275760-09-13',
    '-271821-04-20T00:00:00Z',
    '2026-02-30T10:00:00Z',
    '9999-12-31T23:59:60Z',
  ];
  /** The calendar's own edges: answered without a 500, whatever else the route asks for. */
  const CALENDAR_EDGES = ['1900-01-01', '9999-12-31', '1900-01-01T00:00:00Z', '9999-12-31T23:59:59Z'];

  const dateKeys = swept.flatMap((route) =>
    (['body', 'query'] as const).flatMap((where) =>
      Object.entries(objectShape(where === 'body' ? route.body : route.query))
        .filter(([, field]) => dateField(field))
        .map(([key]) => ({ route, where, key })),
    ),
  );

  it('finds the date fields of the calendar rule', () => {
    const found = new Set(dateKeys.map(({ route, key }) => `${routeKey(route)} ${key}`));
    for (const known of [
      'GET /api/v1/booking/{slug}/availability date',
      'GET /api/calendar/availability from',
      'GET /api/meeting/list to',
      'POST /api/intent-alert/signal occurred_at',
      'POST /api/v1/intent-signal occurred_at',
    ]) {
      expect(found, known).toContain(known);
    }
  });

  for (const { route, where, key } of dateKeys) {
    it(`${routeKey(route)} refuses ${key} outside the calendar, naming it, and answers its edges without a 500`, async () => {
      const status = where === 'query' ? 400 : 422;
      for (const value of OUTSIDE_CALENDAR) {
        const response = await sendField(route, where, key, value);
        expectClientFailure(response, `${key}=${value}`);
        expect([response.status, names(response, key)], `${key}=${value}`).toEqual([status, true]);
      }
      for (const value of CALENDAR_EDGES) {
        const response = await sendField(route, where, key, value);
        expect(response.status, `${key}=${value}: ${response.text.slice(0, 300)}`).toBeLessThan(500);
      }
    });
  }

  /** Names every object inherits: in no allow-list. */
  const INHERITED = ['constructor', '__proto__', 'hasOwnProperty'];

  for (const route of swept.filter(
    (route) => route.bodyMediaType || Object.keys(objectShape(route.query)).length > 0,
  )) {
    it(`${routeKey(route)} refuses inherited names in every field that refuses an unlisted name`, async () => {
      const fields = [
        ...Object.keys(objectShape(route.body)).map((key) => ({ where: 'body' as const, key })),
        ...Object.keys(objectShape(route.query)).map((key) => ({ where: 'query' as const, key })),
      ];
      for (const { where, key } of fields) {
        // Enum-like: the route itself refuses a name not on its list (schema or service check).
        const unlisted = await sendField(route, where, key, 'zzznotlisted');
        if (unlisted.status >= 500 || !names(unlisted, key)) continue;
        for (const name of INHERITED) {
          const response = await sendField(route, where, key, name);
          expectClientFailure(response, `${key}=${name}`);
          expect(names(response, key), `${key}=${name}: ${response.text.slice(0, 300)}`).toBe(true);
          expect(response.text).not.toContain('native code');
        }
      }
    });
  }

  it('answers 405 with an Allow header to a known path asked with a method it does not serve', async () => {
    const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
    for (const route of swept) {
      const served = new Set(routes.filter((other) => other.path === route.path).map((other) => other.method));
      const wrong = methods.find((method) => !served.has(method));
      if (!wrong) continue;
      const response = await call(wrong, samplePath(route), { ...auth(route) });
      expect([response.status, response.body.error?.type], `${wrong} ${route.path}`).toEqual([
        405,
        'method_not_allowed',
      ]);
      const allow = (response.headers.get('allow') ?? '').split(', ');
      for (const method of served) expect(allow, `${wrong} ${route.path}`).toContain(method);
    }
  });
});
