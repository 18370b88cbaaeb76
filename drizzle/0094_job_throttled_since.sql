-- When a provider first asked the job to wait (a 429) since its last checkpoint: the runner snoozes a
-- throttled job (its message sent again with the provider's delay, the queue's retries unspent) until
-- 24 h after it, then fails it (src/jobs/runner.ts). A checkpoint clears it. Null on existing rows.
ALTER TABLE "company_enrichment_jobs" ADD COLUMN "throttled_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "export_jobs" ADD COLUMN "throttled_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "import_jobs" ADD COLUMN "throttled_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "mail_send_jobs" ADD COLUMN "throttled_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "calendar_event_writes" ADD COLUMN "throttled_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "calendar_sync_jobs" ADD COLUMN "throttled_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "voice_jobs" ADD COLUMN "throttled_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "crm_import_jobs" ADD COLUMN "throttled_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "ai_email_jobs" ADD COLUMN "throttled_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "throttled_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "lead_scoring_jobs" ADD COLUMN "throttled_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "lead_enrichment_jobs" ADD COLUMN "throttled_since" timestamp with time zone;