/**
 * Jobs that no route shows once they have ended are deleted ENDED_JOB_RETENTION_DAYS after they
 * ended, by the minute cron. They are written without anyone asking to see them, and often:
 * - a lead-scoring job for every write that changes a scored field, ingestion and imports
 *   included, and a retraining job per organization a day;
 * - a calendar sync job for every connected calendar every 5 minutes;
 * - a mail-send job for every message or batch of messages sent. The messages stay: their
 *   `send_job_id` is set null by the foreign key, and their own status says what became of them.
 * Kept for good they were the fastest growing tables of the service. A week keeps what an operator
 * needs to look into a failure, and is long past the last retry of the job's queue message. Job
 * tables whose status a user follows (imports, exports, enrichment, CRM imports, AI batches,
 * voice) are not here.
 */
import { inArray, sql } from 'drizzle-orm';
import { deleteInBatches } from '../db/batches';
import type { Queryable } from '../db/client';
import { calendarSyncJobs, leadScoringJobs, mailSendJobs } from '../db/schema';
import { ENDED_JOB_STATUSES } from './job-status';

export const ENDED_JOB_RETENTION_DAYS = 7;

/** The job tables swept; each has its `endedJobsIndex` (db/schema/job-lease.ts). */
export const UNLISTED_JOB_TABLES = [leadScoringJobs, calendarSyncJobs, mailSendJobs] as const;

/** Deletes ended jobs of UNLISTED_JOB_TABLES past the retention, across organizations, as the tables' owner, a batch a statement. */
export async function sweepEndedJobs(db: Queryable, batch = 5000, maxBatches = 20): Promise<number> {
  let deleted = 0;
  for (const table of UNLISTED_JOB_TABLES) {
    deleted += await deleteInBatches(
      db,
      table,
      sql`${table.id}`,
      sql`${table.finishedAt} < now() - make_interval(days => ${ENDED_JOB_RETENTION_DAYS}) and ${inArray(table.status, [...ENDED_JOB_STATUSES])}`,
      batch,
      maxBatches,
    );
  }
  return deleted;
}
