/**
 * The one URL rule (core/web-url.ts): no control character or whitespace in the raw text, http or
 * https only, a DNS host name or an IP literal. The findings: a CR/LF target URL minted a click
 * link that answered 500, a CR/LF redirect_url made every submission of its form answer 500, and
 * `https://a;sandbox` reached the form page's CSP header. The bad-input sweep sends CR/LF to every
 * URL field of every route.
 */
import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { webUrlProblem } from '../src/core/web-url';
import { webForms } from '../src/db/schema';
import { signTrackingToken, trackingSecrets } from '../src/modules/tracking/token';
import { call, expectFailure, fetchWorker, signupOrganization, type SignedUp } from './helpers/api';
import { createLead, inOrganization } from './helpers/leads';

const HEADER_BREAKERS = [
  'https://example.com/\r\nSet-Cookie: a=1',
  'https://exa\nmple.com/',
  'https://example.com/\tpath',
  'https://example.com/a b',
  'https://example.com/\u2028',
];

describe('the URL rule', () => {
  it('refuses control characters, whitespace and backslashes before parsing', () => {
    for (const value of [...HEADER_BREAKERS, 'https:\\\\evil.example/', 'https://example.com/\u0000']) {
      expect(webUrlProblem(value), JSON.stringify(value)).toBe('unsafe');
    }
  });

  it('takes only http and https', () => {
    for (const value of ['javascript:alert(1)', 'ftp://example.com/', 'data:text/html,hi', 'mailto:a@example.com']) {
      expect(webUrlProblem(value, { bareHost: true }), value).toBe('scheme');
    }
    expect(webUrlProblem('example.com/pricing')).toBe('scheme');
    expect(webUrlProblem('example.com/pricing', { bareHost: true })).toBeNull();
  });

  it('takes DNS host names and IP literals only', () => {
    for (const value of [
      'https://a;sandbox',
      'https://a_b.example/',
      'https://-a.example/',
      'https://a..b/',
      'https://',
    ]) {
      expect(webUrlProblem(value), value).toBe('host');
    }
    for (const value of [
      'https://example.com',
      'HTTP://Example.COM:8080/a?b=c#d',
      'https://192.0.2.1/',
      'https://[2001:db8::1]/',
      'https://bücher.example/',
      'https://example.com./',
    ]) {
      expect(webUrlProblem(value), value).toBeNull();
    }
  });
});

describe('click targets', () => {
  let owner: SignedUp;
  let leadId: number;

  beforeAll(async () => {
    owner = await signupOrganization('UrlRule');
    leadId = await createLead(owner);
    // Its click links redirect (302) rather than show the interstitial: the host is a link domain.
    const listed = await call('POST', '/api/organization/link-domains', {
      token: owner.token,
      body: { link_domains: ['xn--bcher-kva.example'] },
    });
    expect(listed.status, listed.text).toBe(200);
    const verified = await call('POST', '/api/organization/link-domains/verify', { token: owner.token });
    expect(verified.body.data?.verifications?.[0]?.verified, verified.text).toBe(true);
  });

  it('refuses a target URL that would break the Location header, with 422 naming target_url', async () => {
    for (const target of [...HEADER_BREAKERS, 'https://a;sandbox']) {
      const response = await call('POST', '/api/tracking/tokens', {
        token: owner.token,
        body: { lead_id: leadId, target_url: target },
      });
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code, JSON.stringify(target)).toBe('target_url');
    }
  });

  it('stores a target outside ASCII in the form a Location header carries', async () => {
    const response = await call('POST', '/api/tracking/tokens', {
      token: owner.token,
      body: { lead_id: leadId, target_url: 'https://bücher.example/ä' },
    });
    expect(response.status, response.text).toBe(201);
    const click = await fetchWorker(new Request(response.body.data.click_url, { redirect: 'manual' }));
    expect(click.status).toBe(302);
    expect(click.headers.get('location')).toBe('https://xn--bcher-kva.example/%C3%A4');
  });

  it('answers 404, not 500, to a click link signed before the rule with a CR/LF target', async () => {
    const token = await signTrackingToken(trackingSecrets(env as never), {
      organizationId: owner.orgId,
      leadId,
      targetUrl: 'https://example.com/\r\nSet-Cookie: a=1',
      campaign: null,
      // Signed as a link-domain target: the one that would reach a Location header.
      direct: true,
    });
    const click = await fetchWorker(
      new Request(`http://lead.test/api/v1/track/click/${token}`, { redirect: 'manual' }),
    );
    expect(click.status).toBe(404);
  });
});

describe('web form redirects', () => {
  let owner: SignedUp;

  beforeAll(async () => {
    owner = await signupOrganization('UrlForms');
  });

  it('refuses a redirect_url with CR/LF or a host no CSP can carry, on add and update, with 422', async () => {
    const form = await call('POST', '/api/web-forms/add', { token: owner.token, body: { name: 'Contact' } });
    expect(form.status, form.text).toBe(201);
    for (const redirect of [...HEADER_BREAKERS, 'https://a;sandbox', "https://a'unsafe-inline'"]) {
      const added = await call('POST', '/api/web-forms/add', {
        token: owner.token,
        body: { name: 'Bad', redirect_url: redirect },
      });
      expectFailure(added, 422, 'validation_error');
      expect(added.body.error.code, JSON.stringify(redirect)).toBe('redirect_url');
      const updated = await call('POST', `/api/web-forms/update/${form.body.data.id}`, {
        token: owner.token,
        body: { redirect_url: redirect },
      });
      expectFailure(updated, 422, 'validation_error');
      expect(updated.body.error.code, JSON.stringify(redirect)).toBe('redirect_url');
    }
  });

  it('keeps a redirect stored before the rule out of the page CSP', async () => {
    const form = await call('POST', '/api/web-forms/add', { token: owner.token, body: { name: 'Legacy' } });
    expect(form.status, form.text).toBe(201);
    await inOrganization(owner.orgId, (tx) =>
      tx.update(webForms).set({ redirectUrl: 'https://a;sandbox' }).where(eq(webForms.id, form.body.data.id)),
    );
    const page = await fetchWorker(new Request(`http://lead.test/api/v1/web-form/${form.body.data.form_link}`));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).not.toContain('sandbox');
  });
});
