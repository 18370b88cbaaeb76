-- Ended mail-send jobs are deleted 7 days after they ended, like the other jobs no route shows
-- (src/jobs/ended-jobs.ts), by their finished_at. Deleting one sets mail_messages.send_job_id null
-- through the foreign key, which looks the messages up by send_job_id alone: the index on
-- (organization_id, send_job_id) could not serve that lookup, so it becomes one on send_job_id,
-- which also serves the job's own read of its messages (organization and job).
DROP INDEX "mail_messages_send_job_idx";--> statement-breakpoint
CREATE INDEX "mail_send_jobs_ended_idx" ON "mail_send_jobs" USING btree ("finished_at") WHERE "mail_send_jobs"."finished_at" is not null;--> statement-breakpoint
CREATE INDEX "mail_messages_send_job_idx" ON "mail_messages" USING btree ("send_job_id") WHERE "mail_messages"."send_job_id" is not null;