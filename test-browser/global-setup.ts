/**
 * Starts the local stack once for all browser tests (`npm start` on a free port, fresh data) and
 * checks that Chromium is there (unpacking the npm build if it is the one used); stops the stack afterwards.
 */
import { existsSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { startLocalStack } from '../scripts/lib/local-stack.mjs';
import { resolveChromium } from './chromium';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const { executablePath, source } = await resolveChromium();
  if (!existsSync(executablePath)) {
    throw new Error(
      `Chromium not found at ${executablePath} (from ${source}): the browser tests need it. Unset CHROMIUM_PATH to use the one npm installs (@sparticuz/chromium), or point it at a Chromium.`,
    );
  }
  const stack = await startLocalStack({ label: 'lm-browser' });
  project.provide('baseUrl', stack.base);
  return async () => {
    await stack.stop();
  };
}
