/**
 * The public booking page in a real browser: a visitor in New York (the browser's own zone) opens
 * /book/{slug} of a UTC rep, picks a day and a slot, confirms with name and email and sees the
 * confirmation; the meeting and the lead are then read back through the API. Nothing is loaded
 * from outside the origin and the page's CSP refuses nothing it runs.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchBrowser } from './chromium';

let browser: Browser;
const base = inject('baseUrl');

async function api(method: string, path: string, token?: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: await response.json() };
}

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe('GET /book/{slug} in a browser', () => {
  it('books a slot in the visitor’s zone; the meeting and the lead are in the API', async () => {
    const suffix = crypto.randomUUID().slice(0, 8);
    const signup = await api('POST', '/api/auth/signup', undefined, {
      organization_name: `Booking ${suffix}`,
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: `ada-${suffix}@example.com`,
      password: 'correct horse battery',
    });
    expect(signup.status).toBe(201);
    const token = signup.body.access_token as string;
    const me = (await api('GET', '/api/user/my', token)).body.data;
    const slug = me.booking_slug as string;

    const context = await browser.newContext({ timezoneId: 'America/New_York', locale: 'en-US' });
    const page = await context.newPage();
    const outside: string[] = [];
    const problems: string[] = [];
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(base)) return route.continue();
      outside.push(url);
      return route.abort();
    });
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));

    const response = await page.goto(`${base}/book/${slug}`);
    expect(response?.status()).toBe(200);
    await expect(page.locator('h1').textContent()).resolves.toContain('Ada Lovelace');
    await expect.poll(() => page.locator('#tz').textContent()).toBe('America/New_York');

    // Step 1: the first day with free times.
    const day = page.locator('#days button:not([disabled])').first();
    await day.waitFor();
    await day.click();
    // Step 2: its first slot, shown in New York time (the rep works 09:00-17:00 UTC).
    const slot = page.locator('#slots button').first();
    await slot.waitFor();
    const start = (await slot.getAttribute('data-start')) as string;
    expect(start).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00-0[45]:00$/);
    await slot.click();
    // Step 3: details, then confirm.
    const email = `grace-${suffix}@example.com`;
    await page.getByLabel('Name').fill('Grace Hopper');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Company').fill('Navy Labs');
    await page.getByRole('button', { name: 'Confirm booking' }).click();
    await page.locator('#done').waitFor({ state: 'visible' });
    await expect(page.locator('#done').textContent()).resolves.toContain('You are booked');

    const meetings = await api('GET', '/api/meeting/list', token);
    expect(meetings.body.total).toBe(1);
    const meeting = meetings.body.data[0];
    expect(meeting).toMatchObject({
      user_id: me.id,
      status: 1,
      source: 'booking',
      attendees: [{ email, name: 'Grace Hopper' }],
      start_time: new Date(start).toISOString(),
    });
    const lead = await api('GET', `/api/lead/view/${meeting.lead_id}`, token);
    expect(lead.body.data).toMatchObject({ email, first_name: 'Grace', last_name: 'Hopper', company: 'Navy Labs' });

    expect(outside).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
