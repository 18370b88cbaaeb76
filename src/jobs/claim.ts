/**
 * Claiming a job for one delivery of its message, shared by every job kind that keeps a row in
 * a `*_jobs` table: lock the row in a transaction scoped to the job's organization, stop when
 * the job has already ended, mark it running (the kind says how), and decide whom it runs as.
 */
import { and, eq, isNull } from 'drizzle-orm';
import { withTenant, type Database, type Transaction } from '../db/client';
import { type exportJobs, type importJobs, roles, users } from '../db/schema';

/**
 * The role a job runs with when its creator can no longer act (deleted, deactivated, or never
 * known): the organization's least privileged role. The job keeps its creator's id for
 * attribution and notice, but never gains rights its creator does not hold now; in particular
 * it never falls back to `admin`.
 */
export const LEAST_PRIVILEGED_ROLE = 'sales_rep';

export interface JobActor {
  /** The job's creator (kept for created_by and the notification even if the user is gone). */
  userId: number | null;
  roleName: string;
}

type JobTable = typeof importJobs | typeof exportJobs;
type JobRow<T extends JobTable> = T['$inferSelect'];

/** The creator's current role if the creator is an active user, else LEAST_PRIVILEGED_ROLE. */
async function jobActor(tx: Transaction, createdBy: number | null): Promise<JobActor> {
  if (createdBy === null) return { userId: null, roleName: LEAST_PRIVILEGED_ROLE };
  const [creator] = await tx
    .select({ roleName: roles.name })
    .from(users)
    .innerJoin(roles, eq(roles.id, users.roleId))
    .where(and(eq(users.id, createdBy), eq(users.stateId, 1), isNull(users.deletedAt)));
  return { userId: createdBy, roleName: creator?.roleName ?? LEAST_PRIVILEGED_ROLE };
}

/**
 * Null when there is nothing to do (the job completed or failed already). Throws when the job is
 * not visible, so the queue redelivers the message; with the outbox a message only leaves after
 * its job committed, so this means the job's organization is gone, and the message dead-letters.
 * `start` marks the locked row running in the same transaction and returns the kind's claim.
 */
export async function claimJob<T extends JobTable, Claim>(
  db: Database,
  table: T,
  message: { orgId: number; jobId: number },
  start: (tx: Transaction, job: JobRow<T>, actor: JobActor) => Promise<Claim>,
): Promise<Claim | null> {
  return withTenant(db, message.orgId, async (tx) => {
    const jobs = table as JobTable;
    const [job] = (await tx
      .select()
      .from(jobs)
      .where(and(eq(jobs.organizationId, message.orgId), eq(jobs.id, message.jobId)))
      .for('update')) as JobRow<T>[];
    if (!job) throw new Error(`job ${message.jobId} of organization ${message.orgId} not found`);
    if (job.status === 'completed' || job.status === 'failed') return null;
    return start(tx, job, await jobActor(tx, job.createdBy));
  });
}
