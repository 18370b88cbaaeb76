/**
 * The cron triggers the Worker acts on are the ones wrangler.toml declares: a daily trigger
 * spelled differently in one of the two would leave the retraining and the search words to never
 * run, with every minute's sweeps still running and nothing failing.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CRON_TRIGGERS, DAILY_CRON, MINUTE_CRON } from '../src/cron-triggers';

function declaredCrons(file: string): string[] {
  const toml = readFileSync(fileURLToPath(new URL(`../${file}`, import.meta.url)), 'utf8');
  const triggers = toml.match(/^\[triggers\][^[]*?^crons\s*=\s*(\[[^\]]*\])/ms);
  if (!triggers) throw new Error(`${file} declares no [triggers] crons`);
  return JSON.parse(triggers[1]) as string[];
}

describe('cron triggers', () => {
  it('wrangler.toml declares exactly the triggers the Worker acts on', () => {
    expect(declaredCrons('wrangler.toml')).toEqual([...CRON_TRIGGERS]);
    expect(CRON_TRIGGERS).toEqual([MINUTE_CRON, DAILY_CRON]);
  });
});
