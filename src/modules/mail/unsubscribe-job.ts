/**
 * The mail-unsubscribe job: the public one-click route put the verified (organization, address)
 * on the jobs queue; this adds the address to the organization's suppression list. Idempotent: a
 * redelivery, or a second click, finds the address there and changes nothing.
 */
import { sql } from 'drizzle-orm';
import { withTenant } from '../../db/client';
import { mailSuppressions } from '../../db/schema';
import type { JobHandler } from '../../jobs/job-handler';

export const mailUnsubscribeJobHandler: JobHandler<'mail-unsubscribe'> = {
  run: async (job, { db }) => {
    await withTenant(db, job.orgId, (tx) =>
      tx
        .insert(mailSuppressions)
        .values({
          organizationId: job.orgId,
          address: job.address.toLowerCase(),
          reason: 'unsubscribed',
          createdAt: sql`least(${job.at}::timestamptz, now())`,
        })
        .onConflictDoNothing(),
    );
  },
  // Nothing to end: log what was lost (the address is personal data, so only the organization).
  deadLettered: async (job) => {
    console.error(
      JSON.stringify({ level: 'error', message: 'unsubscribe dead-lettered, not recorded', org_id: job.orgId }),
    );
  },
};
