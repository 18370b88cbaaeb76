/**
 * ETag and 304 on JSON GETs (defineRoute adds hono/etag to every GET whose 200 is JSON only):
 * a strong validator over the exact body; If-None-Match with it answers 304 without a body
 * until the record or the page changes. File downloads keep their own headers.
 */
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, type SignedUp, signupOrganization, uniqueEmail } from './helpers/api';
import { bodyEtag } from './helpers/etag';
import { routes } from './helpers/registry';
import { settleLeadScoring } from './helpers/scoring';

let org: SignedUp;
let leadId: number;

/** The strong validator of a body: its bytes' SHA-1 in hex, quoted (what hono/etag computes). */

beforeAll(async () => {
  org = await signupOrganization('ETags');
  const created = await call('POST', '/api/lead/add', {
    token: org.token,
    body: { first_name: 'Ada', last_name: 'Lovelace', email: uniqueEmail('etag') },
  });
  expect(created.status, created.text).toBe(201);
  leadId = created.body.data.id;
  // The lead's scoring (a job its creation queued) rewrites it a moment later: let it land first,
  // so the validators below compare one version of the record.
  await settleLeadScoring(org);
});

describe('a single record', () => {
  it('has an ETag; If-None-Match with it is 304 with an empty body; after an update the old one gets 200 and a new ETag', async () => {
    const first = await call('GET', `/api/lead/view/${leadId}`, { token: org.token });
    expect(first.status).toBe(200);
    const tag = first.headers.get('etag');
    expect(tag).toMatch(/^"[A-Za-z0-9+/=_-]+"$/);
    // The same body gives the same validator.
    expect((await call('GET', `/api/lead/view/${leadId}`, { token: org.token })).headers.get('etag')).toBe(tag);

    const notModified = await call('GET', `/api/lead/view/${leadId}`, {
      token: org.token,
      headers: { 'if-none-match': tag as string },
    });
    expect(notModified.status).toBe(304);
    expect(notModified.text).toBe('');
    expect(notModified.headers.get('etag')).toBe(tag);
    expect(notModified.headers.get('content-type')).toBeNull();

    const updated = await call('POST', `/api/lead/update/${leadId}`, {
      token: org.token,
      body: { first_name: 'Augusta' },
    });
    expect(updated.status, updated.text).toBe(200);
    const after = await call('GET', `/api/lead/view/${leadId}`, {
      token: org.token,
      headers: { 'if-none-match': tag as string },
    });
    expect(after.status).toBe(200);
    expect(after.body.data.first_name).toBe('Augusta');
    expect(after.headers.get('etag')).toBeTruthy();
    expect(after.headers.get('etag')).not.toBe(tag);
  });

  it('is the SHA-1 of the exact bytes of the body, non-ASCII text included', async () => {
    const created = await call('POST', '/api/lead/add', {
      token: org.token,
      body: { first_name: 'Zoë', last_name: 'Ångström', email: uniqueEmail('etag-bytes') },
    });
    expect(created.status, created.text).toBe(201);
    const read = await call('GET', `/api/lead/view/${created.body.data.id}`, { token: org.token });
    expect(read.body.data.last_name).toBe('Ångström');
    expect(read.headers.get('etag')).toBe(bodyEtag(read.text));
    // Over UTF-16 code units or Latin-1 it would differ: the validator covers the bytes sent.
    expect(bodyEtag(read.text)).not.toBe(
      `"${createHash('sha1').update(Buffer.from(read.text, 'latin1')).digest('hex')}"`,
    );
  });

  it('another ETag, or a list of them without the current one, gets the full 200', async () => {
    const response = await call('GET', `/api/lead/view/${leadId}`, {
      token: org.token,
      headers: { 'if-none-match': '"stale", W/"older"' },
    });
    expect(response.status).toBe(200);
    expect(response.body.data.id).toBe(leadId);
  });

  it('errors carry no ETag and are never 304', async () => {
    const missing = await call('GET', '/api/lead/view/999999999', {
      token: org.token,
      headers: { 'if-none-match': '*' },
    });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('etag')).toBeNull();
  });
});

describe('a list', () => {
  it('has an ETag that answers 304 until the page changes', async () => {
    const query = { limit: 100 };
    const first = await call('GET', '/api/lead/list', { token: org.token, query });
    expect(first.status).toBe(200);
    const tag = first.headers.get('etag') as string;
    expect(tag).toBe(bodyEtag(first.text));
    const notModified = await call('GET', '/api/lead/list', {
      token: org.token,
      query,
      headers: { 'if-none-match': tag },
    });
    expect(notModified.status).toBe(304);
    expect(notModified.text).toBe('');

    const added = await call('POST', '/api/lead/add', {
      token: org.token,
      body: { first_name: 'Grace', last_name: 'Hopper' },
    });
    expect(added.status).toBe(201);
    const changed = await call('GET', '/api/lead/list', { token: org.token, query, headers: { 'if-none-match': tag } });
    expect(changed.status).toBe(200);
    expect(changed.body.total).toBe(first.body.total + 1);
    expect(changed.headers.get('etag')).not.toBe(tag);
  });
});

describe('which routes', () => {
  it('every GET whose 200 is JSON gets ETags; downloads and non-GETs do not; the document declares 304 and ETag', async () => {
    const document = (await call('GET', '/api/openapi.json')).body;
    const etagged = routes.filter((route) => route.etag);
    expect(etagged.length).toBeGreaterThan(10);
    for (const route of routes) {
      const operation = document.paths[route.path]?.[route.method.toLowerCase()];
      if (!operation) continue;
      const ok = operation.responses['200'];
      const jsonOnly =
        route.method === 'GET' && !!ok?.content && Object.keys(ok.content).every((type) => type === 'application/json');
      expect(route.etag, `${route.method} ${route.path}`).toBe(jsonOnly);
      if (jsonOnly) {
        expect(operation.responses['304'], route.path).toBeDefined();
        expect(ok.headers?.ETag, route.path).toBeDefined();
      } else {
        expect(operation.responses['304'], route.path).toBeUndefined();
      }
    }
    // File downloads are among the GETs without ETags from this middleware.
    expect(routes.some((route) => route.method === 'GET' && !route.etag)).toBe(true);
  });
});
