/**
 * Lead scoring in tests of other features: creating a lead queues a scoring job that the local
 * queue consumer runs a moment later, writing `score`, `fit_score`, `engagement_score` and
 * `ai_information.score` (modules/lead-scoring). A test that compares a lead across requests, or
 * sets scores itself, first lets that scoring finish, so the job cannot land in between.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { leadScoringJobs } from '../../src/db/schema';
import type { SignedUp } from './api';
import { inOrganization } from './leads';
import { deliverJobs } from './mail';

const openJobs = (org: SignedUp) =>
  inOrganization(org.orgId, (tx) =>
    tx
      .select({ id: leadScoringJobs.id })
      .from(leadScoringJobs)
      .where(
        and(eq(leadScoringJobs.organizationId, org.orgId), inArray(leadScoringJobs.status, ['queued', 'running'])),
      ),
  );

/**
 * Waits until the organization has no open scoring job. Jobs whose message waits for the cron's
 * outbox sweep (written inside a queue consumer) are delivered here after `waitMs`: scoring is
 * idempotent, so a job the consumer also runs changes nothing twice.
 */
export async function settleLeadScoring(org: SignedUp, waitMs = 8_000): Promise<void> {
  let deadline = Date.now() + waitMs;
  let delivered = false;
  for (;;) {
    const open = await openJobs(org);
    if (open.length === 0) return;
    if (Date.now() > deadline) {
      if (delivered) throw new Error(`scoring jobs still open: ${open.map((job) => job.id).join(', ')}`);
      await deliverJobs(open.map((job) => ({ kind: 'lead-scoring' as const, orgId: org.orgId, jobId: job.id })));
      delivered = true;
      deadline = Date.now() + waitMs;
      continue;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
