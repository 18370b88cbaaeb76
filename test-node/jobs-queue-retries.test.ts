/**
 * The voice job decides on a delivery's last attempt (`isLastAttempt`) from `JOBS_MAX_RETRIES`,
 * which must be the jobs queue consumer's `max_retries` in wrangler.toml: raised there alone, the
 * job would ask Vapi for a lost call and give up too early; lowered, the queue would dead-letter a
 * call before the job's last-attempt lookup ever ran.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const read = (file: string) => readFileSync(fileURLToPath(new URL(`../${file}`, import.meta.url)), 'utf8');

/** src/jobs/faults.ts's constant, read from its source: the module needs the Workers' types, which this suite has not. */
function jobsMaxRetries(): number {
  const declared = read('src/jobs/faults.ts').match(/^export const JOBS_MAX_RETRIES = (\d+);$/m);
  if (!declared) throw new Error('src/jobs/faults.ts no longer declares JOBS_MAX_RETRIES as a number');
  return Number(declared[1]);
}

function consumerMaxRetries(file: string, queue: string): number {
  const toml = read(file);
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
    expect(jobsMaxRetries()).toBe(declared);
  });
});
