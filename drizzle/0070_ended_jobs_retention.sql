-- Ended jobs no route shows (src/jobs/ended-jobs.ts: lead scoring, calendar syncs) are deleted 7
-- days after they ended by the minute cron. Each index holds the ended jobs by when they ended:
-- the sweep's range, without the open ones.
CREATE INDEX "calendar_sync_jobs_ended_idx" ON "calendar_sync_jobs" USING btree ("finished_at") WHERE "calendar_sync_jobs"."finished_at" is not null;--> statement-breakpoint
CREATE INDEX "lead_scoring_jobs_ended_idx" ON "lead_scoring_jobs" USING btree ("finished_at") WHERE "lead_scoring_jobs"."finished_at" is not null;
