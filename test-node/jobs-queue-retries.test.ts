/**
 * The voice job decides on a delivery's last attempt (`isLastAttempt`) from `JOBS_MAX_RETRIES`,
 * which must be the jobs queue consumer's `max_retries` in wrangler.toml: raised there alone, the
 * job would ask Vapi for a lost call and give up too early; lowered, the queue would dead-letter a
 * call before the job's last-attempt lookup ever ran.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isLastAttempt, JOBS_MAX_RETRIES } from '../src/jobs/faults';

function consumerMaxRetries(file: string, queue: string): number {
  const toml = readFileSync(fileURLToPath(new URL(`../${file}`, import.meta.url)), 'utf8');
  for (const block of toml.split(/^\[\[queues\.consumers\]\]\s*$/m).slice(1)) {
    const body = block.split(/^\[/m)[0];
    if (body.match(/^queue\s*=\s*"([^"]+)"/m)?.[1] !== queue) continue;
    const retries = body.match(/^max_retries\s*=\s*(\d+)/m);
    if (!retries) throw new Error(`${file}: the ${queue} consumer declares no max_retries`);
    return Number(retries[1]);
  }
  throw new Error(`${file} has no consumer of ${queue}`);
}

describe('jobs queue retries', () => {
  it("JOBS_MAX_RETRIES is the jobs consumer's max_retries in wrangler.toml", () => {
    const declared = consumerMaxRetries('wrangler.toml', 'lead-management-jobs');
    expect(JOBS_MAX_RETRIES).toBe(declared);
    // Attempts count from 1: the queue delivers 1 + max_retries times, and only the last is the last.
    expect(isLastAttempt(declared)).toBe(false);
    expect(isLastAttempt(declared + 1)).toBe(true);
  });
});
