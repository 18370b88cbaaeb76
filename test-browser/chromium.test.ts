/**
 * The browser the suite launches (test-browser/chromium.ts) behaves as a normal desktop one: the
 * npm build's serverless flags that break it are left out, so closing one page (or context) leaves
 * the browser running for the next test, and the page keeps the browser's web security.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchBrowser, npmChromiumArgs, resolveChromium } from './chromium';

let browser: Browser;
const base = inject('baseUrl');

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe('the Chromium the browser suite launches', () => {
  it('leaves out --single-process, the headless mode and the web-security switches of the npm build', () => {
    const kept = npmChromiumArgs([
      '--no-pings',
      '--single-process',
      "--headless='shell'",
      '--disable-web-security',
      '--allow-running-insecure-content',
      '--no-zygote',
    ]);
    expect(kept).toEqual(['--no-pings', '--no-zygote']);
  });

  it('launches with none of them, whichever Chromium it found', async () => {
    const { args, source } = await resolveChromium();
    expect(args, source).not.toContain('--single-process');
    expect(args, source).not.toContain('--disable-web-security');
  });

  it('keeps running after a page and its context are closed', async () => {
    for (let round = 0; round < 3; round++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      const response = await page.goto(`${base}/api/health`);
      expect(response?.status(), `round ${round}`).toBe(200);
      await page.close();
      await context.close();
      expect(browser.isConnected(), `round ${round}`).toBe(true);
    }
  });

  it('keeps the same-origin policy: a page cannot read another origin’s answer that sends no CORS header', async () => {
    // Another origin, served here (not routed through playwright, which would add CORS headers itself).
    const other = createServer((_request, response) => response.end('secret'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const { port } = other.address() as AddressInfo;
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${base}/api/health`);
      const outcome = await page.evaluate(async (url) => {
        try {
          return await (await fetch(url)).text();
        } catch {
          return 'blocked';
        }
      }, `http://127.0.0.1:${port}/data`);
      expect(outcome).toBe('blocked');
    } finally {
      await context.close();
      await new Promise((resolve) => other.close(resolve));
    }
  });
});
