/**
 * Claiming a job for one delivery of its message, shared by every job kind that keeps a row in
 * a `*_jobs` table: lock the row in a transaction scoped to the job's organization, stop when
 * the job has already ended, mark it running (the kind says how); the job acts for its creator.
 */
import { and, eq } from 'drizzle-orm';
import { withTenant, type Database, type Transaction } from '../db/client';
import type { companyEnrichmentJobs, exportJobs, importJobs } from '../db/schema';
import { ENDED_JOB_STATUSES, type JobStatus } from './job-status';

/**
 * Whom a job works for. A job acts as itself (a `job` actor, db/tenant.ts), which holds no role,
 * so it never has more rights than the least privileged user, whatever became of its creator;
 * the creator is kept only to credit the job's writes and to receive its notice.
 */
export interface JobActor {
  /** The job's creator (kept for created_by and the notification even if the user is gone). */
  userId: number | null;
}

type JobTable = typeof importJobs | typeof exportJobs | typeof companyEnrichmentJobs;
type JobRow<T extends JobTable> = T['$inferSelect'];

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
    if (ENDED_JOB_STATUSES.includes(job.status as JobStatus)) return null;
    return start(tx, job, { userId: job.createdBy });
  });
}
