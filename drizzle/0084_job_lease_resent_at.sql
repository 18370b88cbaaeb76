-- When the lease sweep last re-sent a claimed job's message, until a delivery claims it again (the
-- claim clears it): a re-sent message that waits unclaimed in a backed-up queue is waiting, not a
-- stall, and spends none of the job's re-sends (src/jobs/lease-sweep.ts). Null on existing rows.
ALTER TABLE "company_enrichment_jobs" ADD COLUMN "lease_resent_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "export_jobs" ADD COLUMN "lease_resent_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "import_jobs" ADD COLUMN "lease_resent_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "mail_send_jobs" ADD COLUMN "lease_resent_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "calendar_event_writes" ADD COLUMN "lease_resent_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "calendar_sync_jobs" ADD COLUMN "lease_resent_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "voice_jobs" ADD COLUMN "lease_resent_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "crm_import_jobs" ADD COLUMN "lease_resent_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "ai_email_jobs" ADD COLUMN "lease_resent_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "lease_resent_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "lead_scoring_jobs" ADD COLUMN "lease_resent_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "lead_enrichment_jobs" ADD COLUMN "lease_resent_at" timestamp with time zone;