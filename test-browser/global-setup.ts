/**
 * Starts the local stack once for all browser tests (`npm start` on a free port, fresh data) and
 * checks that Chromium is there; stops the stack afterwards.
 */
import { existsSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { startLocalStack } from '../scripts/lib/local-stack.mjs';
import { chromiumPath } from './chromium';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const executable = chromiumPath();
  if (!existsSync(executable)) {
    throw new Error(
      `Chromium not found at ${executable}: the browser tests need it. Install Debian's package (apt-get install chromium) or set CHROMIUM_PATH.`,
    );
  }
  const stack = await startLocalStack({ label: 'lm-browser' });
  project.provide('baseUrl', stack.base);
  return async () => {
    await stack.stop();
  };
}
