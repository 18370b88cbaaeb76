import { pgError } from '../db/errors';

/** The lifecycle every import and export job goes through. */
export const JOB_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Statuses a job never leaves: a delivery that finds one does nothing. */
export const ENDED_JOB_STATUSES: readonly JobStatus[] = ['completed', 'failed', 'cancelled'];

/**
 * What a job's `error` may say about a failure that is not the user's file or input: never the
 * database's or the runtime's own text (it can name tables, constraints and values of other
 * rows), only that the failure was internal, with the SQLSTATE for support when there is one.
 * The full error goes to the log.
 */
export function userFacingJobError(error: unknown): string {
  console.error(
    JSON.stringify({
      level: 'error',
      message: 'job failure',
      error: error instanceof Error ? error.message : String(error),
    }),
  );
  const code = pgError(error)?.code;
  if (code) return `an internal database error (SQLSTATE ${code})`;
  return 'an internal error';
}
