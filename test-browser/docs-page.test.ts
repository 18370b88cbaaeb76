/**
 * The API reference page works offline: Chromium loads it from the local stack with every request
 * outside it blocked, the pinned bundle passes its integrity check under the page's CSP, and the
 * reference renders the operations of the document.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchBrowser } from './chromium';

let browser: Browser;
const base = inject('baseUrl');

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe('GET /api/docs in a browser', () => {
  it('renders the reference from the local bundle alone, with no request leaving the origin', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const outside: string[] = [];
    const problems: string[] = [];
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(base) || url.startsWith('data:')) return route.continue();
      outside.push(url);
      return route.abort();
    });
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));

    const response = await page.goto(`${base}/api/docs`);
    expect(response?.status()).toBe(200);
    // Scalar renders each operation's summary; the login operation is one of them.
    await expect.poll(async () => (await page.content()).includes('/api/auth/login'), { timeout: 30_000 }).toBe(true);
    expect(outside).toEqual([]);
    expect(problems.filter((text) => /Content Security Policy|integrity|Refused/i.test(text))).toEqual([]);
    await context.close();
  });
});
