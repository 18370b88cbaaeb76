-- Indexes for the foreign keys of rows the API deletes outright. Deleting a parent row makes
-- PostgreSQL look up its children by the foreign key's column alone (to cascade, to set null, or
-- to refuse): WHERE deal_id = $1, once per deleted row. The tenant indexes lead with
-- organization_id and cannot serve that, so each lookup read the whole child table:
--   - a deal's delete read every deal's forecast snapshots (one row per open deal and day) and
--     stage history;
--   - a stored file's delete (a lead document's) read every company (logo), attachment, export
--     and import job, and call (recording); its check that no lead shows it as a profile image
--     (no foreign key) read the organization's leads;
--   - a meeting's, its transcripts and calendar writes; a target account's, its outreach plans
--     and every mail message.
-- Sparse columns get partial indexes (the lookup's equality implies IS NOT NULL). Which foreign
-- keys are covered and which are not, and why, is test/foreign-key-indexes.test.ts.
CREATE INDEX "companies_logo_file_idx" ON "companies" USING btree ("logo_file_id") WHERE "companies"."logo_file_id" is not null;--> statement-breakpoint
CREATE INDEX "leads_profile_image_file_idx" ON "leads" USING btree ("profile_image_file_id") WHERE "leads"."profile_image_file_id" is not null;--> statement-breakpoint
CREATE INDEX "attachments_file_idx" ON "attachments" USING btree ("file_id");--> statement-breakpoint
CREATE INDEX "export_jobs_file_idx" ON "export_jobs" USING btree ("file_id") WHERE "export_jobs"."file_id" is not null;--> statement-breakpoint
CREATE INDEX "import_jobs_file_idx" ON "import_jobs" USING btree ("file_id") WHERE "import_jobs"."file_id" is not null;--> statement-breakpoint
CREATE INDEX "deal_forecasts_deal_idx" ON "deal_forecasts" USING btree ("deal_id");--> statement-breakpoint
CREATE INDEX "deal_stage_history_deal_idx" ON "deal_stage_history" USING btree ("deal_id");--> statement-breakpoint
CREATE INDEX "outreach_plans_target_account_idx" ON "outreach_plans" USING btree ("target_account_id");--> statement-breakpoint
CREATE INDEX "mail_messages_target_account_idx" ON "mail_messages" USING btree ("target_account_id") WHERE "mail_messages"."target_account_id" is not null;--> statement-breakpoint
CREATE INDEX "meeting_transcripts_meeting_id_idx" ON "meeting_transcripts" USING btree ("meeting_id");--> statement-breakpoint
CREATE INDEX "calendar_event_writes_meeting_id_idx" ON "calendar_event_writes" USING btree ("meeting_id");--> statement-breakpoint
CREATE INDEX "calls_recording_file_idx" ON "calls" USING btree ("recording_file_id") WHERE "calls"."recording_file_id" is not null;
