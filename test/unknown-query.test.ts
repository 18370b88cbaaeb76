/**
 * A query parameter an operation does not declare is a 400 naming it: `GET /api/lead/list?serch_value=acme`
 * (a typo) used to answer every lead as if no filter were given. Every GET of the OpenAPI document
 * is called with an unknown parameter, and with every parameter it documents beside one unknown
 * (only the unknown one may be named). The public pages, links and webhooks whose URLs third parties
 * extend (`unknownQuery: 'ignore'` in defineRoute) still take anything: a pixel with utm_source and
 * fbclid, a click redirect, a booking page, a hosted form.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app';
import { STANDARD_LIST_PARAMETERS } from '../src/core/routes';
import { openApiConfig } from '../src/modules/docs/routes';
import { call, signupOrganization, type ApiResponse, type SignedUp } from './helpers/api';
import { createLead } from './helpers/leads';
import { routeKey, routes } from './helpers/registry';

type Json = Record<string, any>;
const document = buildApp().getOpenAPI31Document(openApiConfig()) as unknown as Json;

const UNKNOWN_MESSAGE = 'is not a query parameter of this route';

interface Operation {
  key: string;
  path: string;
  auth: string;
  ignoresUnknown: boolean;
  /** The query parameters the document lists for it. */
  query: Json[];
  description: string;
  /** Whether its 200 is the list envelope (`data` an array beside `total`). */
  list: boolean;
}

function resolved(schema: Json | undefined): Json | undefined {
  const ref = schema?.$ref as string | undefined;
  return ref ? (document.components.schemas[ref.split('/').pop() as string] as Json) : schema;
}

function answersList(operation: Json): boolean {
  const schema = resolved(operation.responses?.['200']?.content?.['application/json']?.schema);
  const properties = (schema?.properties ?? {}) as Json;
  return 'total' in properties && resolved(properties.data)?.type === 'array';
}

const operations: Operation[] = Object.entries(document.paths as Record<string, Json>).flatMap(([path, methods]) => {
  const operation = (methods as Json).get as Json | undefined;
  if (!operation) return [];
  const route = routes.find((candidate) => candidate.method === 'GET' && candidate.path === path);
  if (!route) throw new Error(`GET ${path} is documented but not in the route registry`);
  return [
    {
      key: routeKey(route),
      path,
      auth: route.auth,
      ignoresUnknown: route.unknownQuery === 'ignore',
      query: ((operation.parameters ?? []) as Json[]).filter((parameter) => parameter.in === 'query'),
      description: operation.description as string,
      list: answersList(operation),
    },
  ];
});

/** A value of each of the spec's standard list parameters. */
const STANDARD_SAMPLES: Record<(typeof STANDARD_LIST_PARAMETERS)[number], string> = {
  page: '1',
  limit: '10',
  search_value: 'acme',
  order_by: 'id',
  order_in: 'DESC',
  start_date: '2026-01-01',
  end_date: '2026-12-31',
};

const strict = operations.filter((operation) => !operation.ignoresUnknown);
const open = operations.filter((operation) => operation.ignoresUnknown);

/** Any value fills a path parameter: the unknown parameter is refused before the path is validated. */
function concrete(path: string): string {
  return path.replace(/\{\w+\}/g, '1');
}

/** A value for a documented parameter: its example or default, else its first enum value, else 1. */
function sampleValue(parameter: Json): string {
  const schema = (parameter.schema ?? {}) as Json;
  const value = parameter.example ?? schema.example ?? schema.default ?? schema.enum?.[0] ?? 1;
  return String(value);
}

function unknownNamed(response: ApiResponse): string[] {
  const details = (response.body?.error?.details ?? []) as { field: string; message: string }[];
  return details.filter((issue) => issue.message === UNKNOWN_MESSAGE).map((issue) => issue.field);
}

describe('unknown query parameters', () => {
  let owner: SignedUp;
  let ownerKey: string;

  beforeAll(async () => {
    owner = await signupOrganization('Unknown query');
    const key = await call('POST', '/api/api-keys/add', { token: owner.token, body: { name: 'unknown query sweep' } });
    ownerKey = key.body.data.key;
  }, 120_000);

  function credentials(operation: Operation) {
    if (operation.auth === 'apiKey') return { apiKey: ownerKey };
    if (operation.auth === 'bearer') return { token: owner.token };
    return {};
  }

  it('finds the GETs of the document, the lists and the open public routes among them', () => {
    const keys = strict.map((operation) => operation.key);
    expect(Object.keys(STANDARD_SAMPLES).sort()).toEqual([...STANDARD_LIST_PARAMETERS].sort());
    const lists = strict.filter((operation) => operation.list).map((operation) => operation.key);
    expect(lists).toEqual(
      expect.arrayContaining([
        'GET /api/lead/list',
        'GET /api/calendar/connections/list',
        'GET /api/dashboard/top-accounts',
      ]),
    );
    expect(keys).toContain('GET /api/lead/list');
    expect(keys).toContain('GET /api/v1/lead/lead-list');
    expect(keys).toContain('GET /api/lead/view/{id}');
    expect(open.map((operation) => operation.key)).toEqual(
      expect.arrayContaining(['GET /api/v1/track/open/{token}', 'GET /book/{slug}', 'GET /api/v1/booking/{slug}']),
    );
  });

  it('takes no unknown parameter by default: only the public routes third parties extend opt out', () => {
    const ignoring = routes.filter((route) => route.unknownQuery === 'ignore').map(routeKey);
    expect(ignoring.sort()).toEqual(
      [
        'GET /api/v1/track/open/{token}',
        'GET /api/v1/track/click/{token}',
        'GET /api/v1/web-form/{form_link}',
        'POST /api/v1/web-form/{form_link}',
        'POST /api/v1/meeting-tools/{tool}/webhook/{token}',
        'GET /api/v1/booking/{slug}',
        'GET /api/v1/booking/{slug}/availability',
        'POST /api/v1/booking/{slug}/confirm',
        'GET /book/{slug}',
        'GET /api/v1/mail/unsubscribe/{token}',
        'POST /api/v1/mail/unsubscribe/{token}',
        'POST /api/v1/voice/twilio/{org_id}',
        'POST /api/v1/voice/twilio/{org_id}/voice',
        'POST /api/v1/voice/vapi/{org_id}',
        'GET /api/v1/call/recording/{token}',
      ].sort(),
    );
    for (const route of routes.filter((candidate) => candidate.unknownQuery === 'ignore')) {
      expect(route.auth, routeKey(route)).toBe('public');
    }
  });

  it('documents the rule: in the info description, and on each route that ignores them', () => {
    expect(document.info.description).toContain('A query parameter an operation does not declare is a 400');
    expect(document.info.description).toContain(
      'A list answered whole (every row on page 1) also takes the standard list parameters',
    );
    for (const operation of open)
      expect(operation.description, operation.key).toContain('does not declare are ignored');
    for (const operation of strict) {
      expect(document.paths[operation.path].get.responses['400'].description, operation.key).toContain(
        'a query parameter the operation does not declare',
      );
    }
  });

  it('declares in the document exactly the parameters the route takes', () => {
    for (const operation of operations) {
      const route = routes.find((candidate) => routeKey(candidate) === operation.key);
      expect(operation.query.map((parameter) => parameter.name).sort(), operation.key).toEqual(
        [...(route?.queryKeys ?? [])].sort(),
      );
    }
  });

  for (const operation of strict) {
    it(`${operation.key}: an unknown parameter is a 400 naming it; its documented ones are taken`, async () => {
      const path = concrete(operation.path);
      const typo = await call('GET', path, { ...credentials(operation), query: { serch_value: 'acme' } });
      expect(typo.status, typo.text.slice(0, 300)).toBe(400);
      expect(typo.body.error).toEqual({
        message: 'Unknown query parameter: serch_value',
        type: 'bad_request',
        code: 'serch_value',
        details: [{ field: 'serch_value', message: UNKNOWN_MESSAGE }],
      });

      // Every documented parameter beside two unknown ones: only the unknown ones are named.
      const documented = Object.fromEntries(
        operation.query.map((parameter) => [parameter.name, sampleValue(parameter)]),
      );
      const both = await call('GET', path, {
        ...credentials(operation),
        query: { ...documented, zz_first: '1', zz_second: '2' },
      });
      expect(both.status, both.text.slice(0, 300)).toBe(400);
      expect(both.body.error.message).toBe('Unknown query parameters: zz_first, zz_second');
      expect(unknownNamed(both)).toEqual(['zz_first', 'zz_second']);

      // A list takes the spec's standard list parameters ("All list endpoints accept"), also one
      // answered whole that declares none of them.
      if (operation.list) {
        const standard = await call('GET', path, {
          ...credentials(operation),
          query: { ...STANDARD_SAMPLES, ...documented, zz_first: '1' },
        });
        expect(standard.status, standard.text.slice(0, 300)).toBe(400);
        expect(unknownNamed(standard)).toEqual(['zz_first']);
        // Taken, but checked: a malformed page is a 400 naming it, declared or not (test/whole-lists.test.ts).
        const malformed = await call('GET', path, { ...credentials(operation), query: { ...documented, page: '0' } });
        expect(malformed.status, malformed.text.slice(0, 300)).toBe(400);
        expect(malformed.body.error.code).toBe('page');
      }
    }, 60_000);
  }

  it('checks the caller first: no credential is a 401, not a 400 for the parameter', async () => {
    const response = await call('GET', '/api/lead/list', { query: { serch_value: 'acme' } });
    expect(response.status).toBe(401);
  });

  it('filters the lead list by the parameter spelt right, and refuses the misspelt one', async () => {
    await createLead(owner, 'Acme', 'Buyer');
    await createLead(owner, 'Other', 'Person');
    const right = await call('GET', '/api/lead/list', { token: owner.token, query: { search_value: 'acme' } });
    expect(right.status).toBe(200);
    expect(right.body.data.map((lead: Json) => lead.first_name)).toEqual(['Acme']);
    const typo = await call('GET', '/api/lead/list', { token: owner.token, query: { serch_value: 'acme' } });
    expect(typo.status).toBe(400);
    expect(typo.body.error.code).toBe('serch_value');
  });

  it('applies to writes too: a POST with an unknown query parameter changes nothing', async () => {
    const response = await call('POST', '/api/lead/add', {
      token: owner.token,
      query: { dry_run: '1' },
      body: { first_name: 'Never', last_name: 'Created' },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('dry_run');
    const list = await call('GET', '/api/lead/list', { token: owner.token, query: { search_value: 'Never' } });
    expect(list.body.total).toBe(0);
  });
});

describe('the public routes third parties extend take any parameter', () => {
  const extra = { utm_source: 'newsletter', utm_medium: 'email', fbclid: 'IwAR0abc', gclid: 'Cj0KCQ' };
  let owner: SignedUp;
  let slug: string;

  beforeAll(async () => {
    owner = await signupOrganization('Open routes');
    slug = (await call('GET', '/api/user/my', { token: owner.token })).body.data.booking_slug;
  }, 120_000);

  it('a tracking pixel and a click redirect with utm_source and fbclid', async () => {
    const leadId = await createLead(owner, 'Pixel', 'Reader');
    const minted = await call('POST', '/api/tracking/tokens', {
      token: owner.token,
      body: { lead_id: leadId, target_url: 'https://example.com/case-study' },
    });
    expect(minted.status, minted.text).toBe(201);
    const pixel = await call('GET', `/api/v1/track/open/${minted.body.data.open_token}`, { query: extra });
    expect(pixel.status).toBe(200);
    expect(pixel.headers.get('content-type')).toContain('image/gif');
    const click = await call('GET', `/api/v1/track/click/${minted.body.data.click_token}`, { query: extra });
    expect([200, 302]).toContain(click.status);
  });

  it('a booking page, its profile and its availability with campaign parameters', async () => {
    const page = await call('GET', `/book/${slug}`, { query: extra });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const profile = await call('GET', `/api/v1/booking/${slug}`, { query: extra });
    expect(profile.status, profile.text.slice(0, 300)).toBe(200);
    const availability = await call('GET', `/api/v1/booking/${slug}/availability`, { query: extra });
    expect(availability.status, availability.text.slice(0, 300)).toBe(200);
  });

  it('a hosted web form with campaign parameters', async () => {
    const form = await call('POST', '/api/web-forms/add', { token: owner.token, body: { name: 'Contact us' } });
    expect(form.status, form.text).toBe(201);
    const page = await call('GET', `/api/v1/web-form/${form.body.data.form_link}`, { query: extra });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
  });

  it('still validates what an open route declares', async () => {
    const availability = await call('GET', `/api/v1/booking/${slug}/availability`, {
      query: { ...extra, duration: 'long' },
    });
    expect(availability.status).toBe(400);
    expect(availability.body.error.code).toBe('duration');
  });
});
