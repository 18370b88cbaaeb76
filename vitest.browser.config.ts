/**
 * Browser tests: real pages (the reference page, hosted forms, booking) in Chromium (CHROMIUM_PATH, a system one, else the npm build from @sparticuz/chromium; see test-browser/chromium.ts)
 * driven by playwright-core, against the local stack as `npm start` runs it (global setup starts
 * it on a free port with its data in a temporary directory). They run in Node, not workerd.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test-browser/**/*.test.ts'],
    globalSetup: ['./test-browser/global-setup.ts'],
    environment: 'node',
    // One stack, one browser: files run one after another on this 2-core machine.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 240_000,
  },
});
