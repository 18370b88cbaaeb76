/**
 * The Worker's minute cron, as Cloudflare runs it, for tests of what it sweeps: the jobs its other
 * sweeps would queue go nowhere, so only the rows a test set up are looked at.
 */
import { createScheduledController } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import worker from '../../src/index';
import { MINUTE_CRON } from '../../src/cron-triggers';
import type { JobMessage } from '../../src/jobs/messages';

export async function runMinuteCron(): Promise<void> {
  const jobs = { send: async () => {}, sendBatch: async () => {} } as unknown as Queue<JobMessage>;
  await worker.scheduled(createScheduledController({ cron: MINUTE_CRON }), { ...env, JOBS: jobs });
}
