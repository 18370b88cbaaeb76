/** The lifecycle every job goes through (src/jobs/lifecycle.ts moves a job along it). */
export const JOB_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Statuses a job never leaves: a delivery that finds one does nothing. */
export const ENDED_JOB_STATUSES: readonly JobStatus[] = ['completed', 'failed', 'cancelled'];

/** Statuses of a job that has not ended: the ones a delivery, the dead-letter consumer or the lease sweep may move on. */
export const OPEN_JOB_STATUSES: readonly JobStatus[] = ['queued', 'running'];
