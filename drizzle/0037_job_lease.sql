ALTER TABLE "company_enrichment_jobs" ADD COLUMN "lease_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "company_enrichment_jobs" ADD COLUMN "lease_resends" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "export_jobs" ADD COLUMN "lease_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "export_jobs" ADD COLUMN "lease_resends" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "import_jobs" ADD COLUMN "lease_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "import_jobs" ADD COLUMN "lease_resends" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "company_enrichment_jobs_open_lease_idx" ON "company_enrichment_jobs" USING btree ("lease_expires_at") WHERE "company_enrichment_jobs"."status" in ('queued', 'running');--> statement-breakpoint
CREATE INDEX "export_jobs_open_lease_idx" ON "export_jobs" USING btree ("lease_expires_at") WHERE "export_jobs"."status" in ('queued', 'running');--> statement-breakpoint
CREATE INDEX "import_jobs_open_lease_idx" ON "import_jobs" USING btree ("lease_expires_at") WHERE "import_jobs"."status" in ('queued', 'running');