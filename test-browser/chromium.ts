/**
 * Where Chromium comes from, in this order: CHROMIUM_PATH; a system Chromium on PATH (Debian's
 * package, a developer's own); else the build inside the `@sparticuz/chromium` devDependency, so that
 * `npm install && npm test` needs nothing but Node.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import sparticuz from '@sparticuz/chromium';
import { chromium, type Browser } from 'playwright-core';

/** What to launch and with which flags of its own. */
export interface ChromiumLaunch {
  executablePath: string;
  args: string[];
  source: 'CHROMIUM_PATH' | 'system' | '@sparticuz/chromium';
}

const SYSTEM_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

// Root in CI containers: Chromium's sandbox needs user namespaces it may not have there.
const COMMON_ARGS = ['--no-sandbox', '--disable-dev-shm-usage'];

/**
 * The npm build's flags are made for serverless hosts. Left out here:
 * - `--single-process`: closing one page (or context) ends the whole browser;
 * - `--headless='shell'`: playwright-core chooses the headless mode itself;
 * - the flags that switch off web security: the tests check what a user's browser does.
 */
const DROPPED_NPM_ARGS = [
  '--single-process',
  '--disable-web-security',
  '--allow-running-insecure-content',
  '--disable-site-isolation-trials',
];

export function npmChromiumArgs(args: readonly string[]): string[] {
  return args.filter((arg) => !DROPPED_NPM_ARGS.includes(arg) && !arg.startsWith('--headless'));
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function systemChromium(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    for (const name of SYSTEM_NAMES) {
      const candidate = join(dir, name);
      if (isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

/** Resolves the browser; the npm build is unpacked (once, into the temp dir) on first use. */
export async function resolveChromium(): Promise<ChromiumLaunch> {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) return { executablePath: fromEnv, args: COMMON_ARGS, source: 'CHROMIUM_PATH' };
  const system = systemChromium();
  if (system) return { executablePath: system, args: COMMON_ARGS, source: 'system' };
  const executablePath = await sparticuz.executablePath();
  const args = [...new Set([...npmChromiumArgs(sparticuz.args), ...COMMON_ARGS])];
  return { executablePath, args, source: '@sparticuz/chromium' };
}

/** A headless Chromium with no network beyond what the page asks of the local stack. */
export async function launchBrowser(): Promise<Browser> {
  const { executablePath, args } = await resolveChromium();
  return chromium.launch({ executablePath, headless: true, args });
}
