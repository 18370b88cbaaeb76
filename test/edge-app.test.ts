/**
 * The edge Worker's app (src/edge-app.ts) in workerd: it answers the pixel and the click redirect
 * itself with the zod-free token check and configuration (the same tokens the API Worker mints),
 * and forwards everything else through its service binding, here the API Worker of this test run.
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildEdgeApp, type EdgeBindings, SERVED_BY_HEADER } from '../src/edge-app';
import type { TrackingHit } from '../src/modules/tracking/hits';
import { tokenHash } from '../src/modules/tracking/token';
import { call, signupOrganization, type SignedUp } from './helpers/api';
import { bodyEtag } from './helpers/etag';
import { createLead } from './helpers/leads';

const edge = buildEdgeApp();

/** A request to the edge app, with a queue that records what it sends (hits are sent in waitUntil). */
async function atEdge(path: string, init: RequestInit = {}, secrets: Partial<EdgeBindings> = {}) {
  const sent: TrackingHit[] = [];
  const bindings: EdgeBindings = {
    JWT_SECRET: env.JWT_SECRET,
    TRACKING_SECRET: env.TRACKING_SECRET,
    EVENTS: { send: async (hit: TrackingHit) => void sent.push(hit) } as unknown as Queue<TrackingHit>,
    API: { fetch: (request: Request) => exports.default.fetch(request) } as unknown as Fetcher,
    ...secrets,
  };
  const ctx = createExecutionContext();
  const response = await edge.fetch(
    new Request(new URL(path, 'http://lead.test'), { redirect: 'manual', ...init }),
    bindings,
    ctx,
  );
  const body = new Uint8Array(await response.arrayBuffer());
  await waitOnExecutionContext(ctx);
  return { response, body, sent };
}

function tamper(token: string, at: number): string {
  return token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
}

describe('edge Worker app', () => {
  let owner: SignedUp;
  let leadId: number;
  let minted: { open_token: string; click_token: string };

  beforeAll(async () => {
    owner = await signupOrganization('Edge app');
    leadId = await createLead(owner);
    // A link domain: its click links redirect at once (claim d); others show the interstitial.
    const listed = await call('POST', '/api/organization/link-domains', {
      token: owner.token,
      body: { link_domains: ['example.com'] },
    });
    expect(listed.status, listed.text).toBe(200);
    const verified = await call('POST', '/api/organization/link-domains/verify', { token: owner.token });
    expect(verified.body.data?.verifications?.[0]?.verified, verified.text).toBe(true);
    const response = await call('POST', '/api/tracking/tokens', {
      token: owner.token,
      body: { lead_id: leadId, target_url: 'https://example.com/pricing', campaign: 'launch' },
    });
    expect(response.status, response.text).toBe(201);
    minted = response.body.data;
  });

  it('answers the pixel itself and queues the open of a valid token, nothing for another', async () => {
    const open = await atEdge(`/api/v1/track/open/${minted.open_token}`);
    expect(open.response.status).toBe(200);
    expect(open.response.headers.get('content-type')).toBe('image/gif');
    expect(open.response.headers.get('cache-control')).toContain('no-store');
    expect(open.response.headers.get(SERVED_BY_HEADER)).toBe('edge');
    expect(open.body.byteLength).toBe(42);
    expect(open.sent).toEqual([
      expect.objectContaining({
        kind: 'open',
        orgId: owner.orgId,
        leadId,
        campaign: 'launch',
        targetUrl: null,
        tokenHash: await tokenHash(minted.open_token),
      }),
    ]);
    for (const token of [tamper(minted.open_token, 4), 'garbage', 'a'.repeat(5000)]) {
      const bad = await atEdge(`/api/v1/track/open/${token}`);
      expect(bad.response.status).toBe(200);
      expect(bad.body.byteLength).toBe(42);
      expect(bad.sent).toEqual([]);
    }
  });

  it('redirects a valid click token and refuses any other with the 404 envelope, redirecting nowhere', async () => {
    const click = await atEdge(`/api/v1/track/click/${minted.click_token}`);
    expect(click.response.status).toBe(302);
    expect(click.response.headers.get('location')).toBe('https://example.com/pricing');
    expect(click.response.headers.get(SERVED_BY_HEADER)).toBe('edge');
    expect(click.sent).toEqual([
      expect.objectContaining({ kind: 'click', leadId, targetUrl: 'https://example.com/pricing' }),
    ]);
    for (const token of [tamper(minted.click_token, minted.click_token.length - 3), minted.open_token, 'x.y']) {
      const bad = await atEdge(`/api/v1/track/click/${token}`);
      expect(bad.response.status).toBe(404);
      expect(bad.response.headers.get('location')).toBeNull();
      expect(JSON.parse(new TextDecoder().decode(bad.body))).toMatchObject({
        success: false,
        error: { type: 'not_found' },
      });
      expect(bad.sent).toEqual([]);
    }
  });

  it('shows the interstitial itself, naming the destination, for a target off the link domains', async () => {
    const offList = await call('POST', '/api/tracking/tokens', {
      token: owner.token,
      body: { lead_id: leadId, target_url: 'https://elsewhere.test/offer?x=<b>' },
    });
    expect(offList.status, offList.text).toBe(201);
    const click = await atEdge(`/api/v1/track/click/${offList.body.data.click_token}`);
    expect(click.response.status).toBe(200);
    expect(click.response.headers.get('location')).toBeNull();
    expect(click.response.headers.get(SERVED_BY_HEADER)).toBe('edge');
    expect(click.response.headers.get('content-type')).toContain('text/html');
    expect(click.response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(click.response.headers.get('cache-control')).toContain('no-store');
    const page = new TextDecoder().decode(click.body);
    expect(page).toContain('elsewhere.test');
    expect(page).toContain('href="https://elsewhere.test/offer?x=&lt;b&gt;"');
    expect(page).not.toContain('<b>');
    expect(click.sent).toEqual([
      expect.objectContaining({ kind: 'click', leadId, targetUrl: 'https://elsewhere.test/offer?x=<b>' }),
    ]);
  });

  it('forwards what it does not answer to the API Worker, other methods on the tracking paths included', async () => {
    const health = await atEdge('/api/health');
    expect(health.response.status).toBe(200);
    expect(health.response.headers.get(SERVED_BY_HEADER)).toBe('api');
    const post = await atEdge(`/api/v1/track/open/${minted.open_token}`, { method: 'POST' });
    expect(post.response.status).toBe(405);
    expect(post.response.headers.get(SERVED_BY_HEADER)).toBe('api');
    expect(post.sent).toEqual([]);
  });

  it('answers a repeated booking read from its cache with the ETag the API Worker gave the same body; If-None-Match with it is 304', async () => {
    const me = await call('GET', '/api/user/my', { token: owner.token });
    const path = `/api/v1/booking/${me.body.data.booking_slug}`;
    const cold = await atEdge(path);
    expect(cold.response.status).toBe(200);
    expect(cold.response.headers.get(SERVED_BY_HEADER)).toBe('api');
    const warm = await atEdge(path);
    expect(warm.response.headers.get(SERVED_BY_HEADER)).toBe('cache');
    expect(warm.body).toEqual(cold.body);
    const tag = bodyEtag(warm.body);
    expect(cold.response.headers.get('etag')).toBe(tag);
    expect(warm.response.headers.get('etag')).toBe(tag);
    const revalidated = await atEdge(path, { headers: { 'if-none-match': tag } });
    expect(revalidated.response.status).toBe(304);
    expect(revalidated.body).toHaveLength(0);
    expect(revalidated.response.headers.get('etag')).toBe(tag);
  });

  it('forgets its cached slots of the rep when a confirmation it forwards is refused as taken (409), as after a booking', async () => {
    const me = await call('GET', '/api/user/my', { token: owner.token });
    const slug = me.body.data.booking_slug as string;
    const path = `/api/v1/booking/${slug}/availability?date=2027-03-01&tz=UTC`;
    await atEdge(path);
    expect((await atEdge(path)).response.headers.get(SERVED_BY_HEADER)).toBe('cache');
    // The API Worker refuses the slot (taken meanwhile in another data centre, whose cache this one never hears of).
    const taken = {
      fetch: async () => Response.json({ success: false, error: { code: 'slot_unavailable' } }, { status: 409 }),
    };
    const refused = await atEdge(
      `/api/v1/booking/${slug}/confirm`,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
      { API: taken as unknown as Fetcher },
    );
    expect(refused.response.status).toBe(409);
    expect((await atEdge(path)).response.headers.get(SERVED_BY_HEADER)).toBe('api');
  });

  it('refuses to verify tokens with a weak or published secret: 500, and nothing queued', async () => {
    for (const JWT_SECRET of ['short', 'local-development-secret-not-for-production-use', undefined]) {
      const open = await atEdge(`/api/v1/track/open/${minted.open_token}`, {}, { JWT_SECRET });
      expect(open.response.status).toBe(500);
      expect(JSON.parse(new TextDecoder().decode(open.body))).toMatchObject({ error: { type: 'internal_error' } });
      expect(open.sent).toEqual([]);
    }
  });
});
