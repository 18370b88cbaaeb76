/** Where Chromium is: CHROMIUM_PATH, else Debian's package (/usr/bin/chromium). */
import { chromium, type Browser } from 'playwright-core';

export function chromiumPath(): string {
  return process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
}

/** A headless Chromium with no network beyond what the page asks of the local stack. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    // Root in CI containers: Chromium's sandbox needs user namespaces it may not have there.
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
}
