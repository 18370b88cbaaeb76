-- Export files' retention (src/modules/exports/retention.ts): the minute cron deletes an export's
-- file 30 days after the export finished. The index holds only completed exports that still have a
-- file, by when they finished: the sweep's range, oldest first.
CREATE INDEX "export_jobs_file_expiry_idx" ON "export_jobs" USING btree ("finished_at") WHERE "export_jobs"."status" = 'completed' and "export_jobs"."file_id" is not null;
