/**
 * The two Workers as `npm start` runs them: the edge Worker serves the port and answers the
 * tracking routes itself, forwarding everything else through its service binding to the API
 * Worker, whose queue consumer records the hits. Plain HTTP against the local stack (no browser).
 */
import { describe, expect, inject, it } from 'vitest';

const base = inject('baseUrl');

async function json(path: string, init: RequestInit & { token?: string } = {}) {
  const headers = new Headers(init.headers);
  if (init.token) headers.set('authorization', `Bearer ${init.token}`);
  if (init.body) headers.set('content-type', 'application/json');
  const response = await fetch(`${base}${path}`, { ...init, headers });
  return { response, body: await response.json() };
}

async function signUp() {
  const email = `edge-${crypto.randomUUID()}@example.com`;
  const password = 'correct horse battery';
  const signup = await json('/api/auth/signup', {
    method: 'POST',
    body: JSON.stringify({ organization_name: 'Edge Co', first_name: 'Eve', email, password }),
  });
  expect(signup.response.status, JSON.stringify(signup.body)).toBe(201);
  return signup.body.access_token as string;
}

describe('edge Worker in front of the API Worker', () => {
  it('forwards API requests through the service binding and says so', async () => {
    const { response, body } = await json('/api/health');
    expect(response.status).toBe(200);
    expect(body.data.database).toBe('ok');
    expect(response.headers.get('x-served-by')).toBe('api');
  });

  it('answers the pixel itself, for any token, with a no-store GIF', async () => {
    const response = await fetch(`${base}/api/v1/track/open/not-a-token`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/gif');
    expect(response.headers.get('cache-control')).toContain('no-store');
    expect(response.headers.get('x-served-by')).toBe('edge');
    expect((await response.arrayBuffer()).byteLength).toBe(42);
  });

  it('leaves the API Worker the 405 of a tracking path asked with another method', async () => {
    const response = await fetch(`${base}/api/v1/track/open/whatever`, { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('x-served-by')).toBe('api');
  });

  it("records a pixel open and a click answered at the edge as the lead's intent signals", async () => {
    const token = await signUp();
    const lead = await json('/api/lead/add', {
      method: 'POST',
      token,
      body: JSON.stringify({
        first_name: 'Tracked',
        last_name: 'Reader',
        email: `tracked-${crypto.randomUUID()}@example.com`,
      }),
    });
    expect(lead.response.status, JSON.stringify(lead.body)).toBe(201);
    const leadId = lead.body.data.id as number;
    // example.com is the organization's own link domain, verified by its DNS record (the local DNS
    // provider of npm start finds it at reserved names): its click links redirect at once.
    const listed = await json('/api/organization/link-domains', {
      method: 'POST',
      token,
      body: JSON.stringify({ link_domains: ['example.com'] }),
    });
    expect(listed.response.status, JSON.stringify(listed.body)).toBe(200);
    const verified = await json('/api/organization/link-domains/verify', { method: 'POST', token });
    expect(verified.response.status, JSON.stringify(verified.body)).toBe(200);
    expect(verified.body.data.verifications).toMatchObject([{ domain: 'example.com', verified: true }]);
    const minted = await json('/api/tracking/tokens', {
      method: 'POST',
      token,
      body: JSON.stringify({ lead_id: leadId, target_url: 'https://example.com/pricing' }),
    });
    expect(minted.response.status, JSON.stringify(minted.body)).toBe(201);

    const open = await fetch(minted.body.data.open_url);
    expect(open.headers.get('x-served-by')).toBe('edge');
    await open.arrayBuffer();
    const click = await fetch(minted.body.data.click_url, { redirect: 'manual' });
    expect(click.status).toBe(302);
    expect(click.headers.get('location')).toBe('https://example.com/pricing');
    expect(click.headers.get('x-served-by')).toBe('edge');

    // The events queue's consumer (in the API Worker) inserts the hits in batches.
    await expect
      .poll(
        async () => {
          const signals = await json(`/api/intent-alert/lead/${leadId}`, { token });
          return (signals.body.data as { signal_type: string }[]).map((signal) => signal.signal_type).sort();
        },
        { timeout: 30_000, interval: 500 },
      )
      .toEqual(['email_opened', 'link_clicked']);
  });

  it('serves a repeated booking read from its own cache and reads again after a confirmation it forwarded', async () => {
    const token = await signUp();
    const me = await json('/api/user/my', { token });
    const slug = me.body.data.booking_slug as string;
    const path = `/api/v1/booking/${slug}/availability?tz=UTC`;

    const first = await fetch(`${base}${path}`);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-served-by')).toBe('api');
    const slots = (await first.json()).data.slots as { start: string; end: string }[];
    expect(slots.length).toBeGreaterThan(0);
    // The edge keeps the answer after responding (waitUntil): the next read is served from it.
    await expect
      .poll(async () => (await fetch(`${base}${path}`)).headers.get('x-served-by'), { timeout: 10_000, interval: 200 })
      .toBe('cache');

    const confirmed = await json(`/api/v1/booking/${slug}/confirm`, {
      method: 'POST',
      body: JSON.stringify({ ...slots[0], name: 'Grace Hopper', email: `grace-${crypto.randomUUID()}@example.com` }),
    });
    expect(confirmed.response.status, JSON.stringify(confirmed.body)).toBe(201);

    // The confirmation went through this edge, which forgot the rep's version: the next read goes
    // to the API Worker and no longer offers the booked slot.
    const after = await fetch(`${base}${path}`);
    expect(after.headers.get('x-served-by')).toBe('api');
    const remaining = ((await after.json()).data.slots as { start: string }[]).map((slot) => slot.start);
    expect(remaining).not.toContain(slots[0].start);
  });
});
