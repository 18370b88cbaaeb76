CREATE TABLE "ai_email_drafts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ai_email_drafts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"lead_id" bigint NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"persona" text,
	"subject" text NOT NULL,
	"body" text NOT NULL,
	"provider" text NOT NULL,
	"model" text NOT NULL,
	"prompt_version" text NOT NULL,
	"job_id" bigint,
	"reservation_id" bigint,
	"approved_by" bigint,
	"approved_at" timestamp with time zone,
	"rejected_by" bigint,
	"rejected_at" timestamp with time zone,
	"mail_message_id" bigint,
	"created_by" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ai_email_drafts_status_check" CHECK ("ai_email_drafts"."status" in ('draft', 'approved', 'queued', 'rejected'))
);
--> statement-breakpoint
ALTER TABLE "ai_email_drafts" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "ai_email_jobs" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ai_email_jobs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"lead_ids" bigint[] NOT NULL,
	"persona" text,
	"status" text DEFAULT 'queued' NOT NULL,
	"total_items" integer DEFAULT 0 NOT NULL,
	"processed_items" integer DEFAULT 0 NOT NULL,
	"drafts_created" integer DEFAULT 0 NOT NULL,
	"item_errors" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"error" text,
	"created_by" bigint,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_expires_at" timestamp with time zone,
	"lease_resends" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ai_email_jobs" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "ai_email_drafts" ADD CONSTRAINT "ai_email_drafts_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_email_drafts" ADD CONSTRAINT "ai_email_drafts_lead_id_leads_id_fk" FOREIGN KEY ("lead_id") REFERENCES "public"."leads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_email_drafts" ADD CONSTRAINT "ai_email_drafts_job_id_ai_email_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."ai_email_jobs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_email_drafts" ADD CONSTRAINT "ai_email_drafts_reservation_id_credit_ledger_id_fk" FOREIGN KEY ("reservation_id") REFERENCES "public"."credit_ledger"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_email_drafts" ADD CONSTRAINT "ai_email_drafts_approved_by_users_id_fk" FOREIGN KEY ("approved_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_email_drafts" ADD CONSTRAINT "ai_email_drafts_rejected_by_users_id_fk" FOREIGN KEY ("rejected_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_email_drafts" ADD CONSTRAINT "ai_email_drafts_mail_message_id_mail_messages_id_fk" FOREIGN KEY ("mail_message_id") REFERENCES "public"."mail_messages"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_email_drafts" ADD CONSTRAINT "ai_email_drafts_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_email_jobs" ADD CONSTRAINT "ai_email_jobs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_email_jobs" ADD CONSTRAINT "ai_email_jobs_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ai_email_drafts_lead_idx" ON "ai_email_drafts" USING btree ("organization_id","lead_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "ai_email_drafts_job_lead_key" ON "ai_email_drafts" USING btree ("job_id","lead_id") WHERE "ai_email_drafts"."job_id" is not null;--> statement-breakpoint
CREATE INDEX "ai_email_jobs_organization_idx" ON "ai_email_jobs" USING btree ("organization_id","id");--> statement-breakpoint
CREATE INDEX "ai_email_jobs_open_lease_idx" ON "ai_email_jobs" USING btree ("lease_expires_at") WHERE "ai_email_jobs"."status" in ('queued', 'running');--> statement-breakpoint
CREATE POLICY "ai_email_drafts_tenant_isolation" ON "ai_email_drafts" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);--> statement-breakpoint
CREATE POLICY "ai_email_jobs_tenant_isolation" ON "ai_email_jobs" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);