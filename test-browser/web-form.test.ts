/**
 * The hosted web form in a real browser (headless Chromium against `npm start`): a form created
 * through the API renders under its CSP with no outside request, a visitor fills and submits it
 * and the lead is read back through the API; a filled honeypot is dropped with the same
 * thank-you page; on a 375 px wide phone the page does not scroll sideways.
 */
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchBrowser } from './chromium';

let browser: Browser;
const base = inject('baseUrl');
let token: string;
let formUrl: string;

async function api(method: string, path: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** Fails the test on any request outside the local stack and collects CSP and script errors. */
async function guardedContext(options: Parameters<Browser['newContext']>[0] = {}) {
  const context = await browser.newContext(options);
  const outside: string[] = [];
  const problems: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(base)) return route.continue();
    outside.push(url);
    return route.abort();
  });
  context.on('page', (page) => {
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
  });
  return { context, outside, problems };
}

async function leadsMatching(text: string) {
  const response = await api('GET', `/api/lead/list?search_value=${encodeURIComponent(text)}`);
  return response.body.data as {
    email: string;
    first_name: string;
    company: string | null;
    tags: { name: string }[];
  }[];
}

beforeAll(async () => {
  browser = await launchBrowser();
  const signup = await api('POST', '/api/auth/signup', {
    organization_name: `Browser forms ${crypto.randomUUID().slice(0, 6)}`,
    first_name: 'Ada',
    last_name: 'Admin',
    email: `admin-${crypto.randomUUID().slice(0, 8)}@example.com`,
    password: 'correct horse battery',
  });
  expect(signup.status).toBe(201);
  token = signup.body.access_token;
  const form = await api('POST', '/api/web-forms/add', {
    name: 'Talk to sales',
    fields: [
      { name: 'first_name', required: true },
      { name: 'email', required: true, label: 'Work email' },
      { name: 'company', required: false },
    ],
    thank_you_message: 'Thanks, we will call you.',
    tags: ['browser'],
  });
  expect(form.status).toBe(201);
  formUrl = form.body.data.url;
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

describe('hosted web form in a browser', () => {
  let guarded: { context: BrowserContext; outside: string[]; problems: string[] };

  it('is filled and submitted by a visitor; the lead is in the organization', async () => {
    guarded = await guardedContext();
    const page = await guarded.context.newPage();
    const response = await page.goto(formUrl);
    expect(response?.status()).toBe(200);
    expect(await page.title()).toBe('Talk to sales');
    const email = `visitor-${crypto.randomUUID().slice(0, 8)}@example.com`;
    await page.getByLabel('First name').fill('Vera');
    await page.getByLabel('Work email').fill(email);
    await page.getByLabel('Company').fill('Visit Co');
    // The required fields say so to assistive technology.
    expect(await page.getByLabel('Work email').getAttribute('aria-required')).toBe('true');
    // A person takes a few seconds: the signed render time refuses faster posts (3 s).
    await page.waitForTimeout(3_200);
    await Promise.all([page.waitForURL(formUrl), page.getByRole('button', { name: 'Send' }).click()]);
    await expect.poll(() => page.textContent('body')).toContain('Thanks, we will call you.');
    const [lead] = await leadsMatching(email);
    expect(lead).toMatchObject({ email, first_name: 'Vera', company: 'Visit Co' });
    expect(lead.tags.map((tag) => tag.name)).toEqual(['browser']);
    expect(guarded.outside).toEqual([]);
    expect(guarded.problems).toEqual([]);
    await guarded.context.close();
  }, 60_000);

  it('drops a submission whose honeypot is filled, with the same thank-you page', async () => {
    guarded = await guardedContext();
    const page = await guarded.context.newPage();
    await page.goto(formUrl);
    const email = `bot-${crypto.randomUUID().slice(0, 8)}@example.com`;
    await page.getByLabel('First name').fill('Bot');
    await page.getByLabel('Work email').fill(email);
    // Hidden from people (off-screen, aria-hidden): only a bot fills it.
    expect(await page.locator('.hp').getAttribute('aria-hidden')).toBe('true');
    expect(await page.locator('input[name="website"]').getAttribute('tabindex')).toBe('-1');
    await page.locator('input[name="website"]').fill('http://spam.example', { force: true });
    await page.waitForTimeout(3_200);
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.textContent('body')).toContain('Thanks, we will call you.');
    expect(await leadsMatching(email)).toEqual([]);
    await guarded.context.close();
  }, 60_000);

  it('fits a 375 px phone screen without horizontal scrolling', async () => {
    guarded = await guardedContext({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });
    const page = await guarded.context.newPage();
    await page.goto(formUrl);
    const widths = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
      input: document.querySelector('input[name="email"]')?.getBoundingClientRect().right ?? 0,
    }));
    expect(widths.client).toBe(375);
    expect(widths.scroll).toBeLessThanOrEqual(375);
    expect(widths.input).toBeLessThanOrEqual(375);
    expect(guarded.problems).toEqual([]);
    await guarded.context.close();
  }, 60_000);
});
