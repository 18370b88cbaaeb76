CREATE TABLE "lead_score_models" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "lead_score_models_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"version" integer NOT NULL,
	"kind" text NOT NULL,
	"intercept" double precision NOT NULL,
	"features" jsonb NOT NULL,
	"ideal_profile" jsonb NOT NULL,
	"sample_size" integer NOT NULL,
	"won_count" integer NOT NULL,
	"lost_count" integer NOT NULL,
	"trained_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "lead_score_models" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "lead_score_training_runs" (
	"day" date PRIMARY KEY NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"organizations" integer
);
--> statement-breakpoint
CREATE TABLE "lead_scoring_jobs" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "lead_scoring_jobs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"lead_ids" bigint[],
	"retrain" boolean DEFAULT false NOT NULL,
	"checkpoint_id" bigint DEFAULT 0 NOT NULL,
	"scored_count" integer DEFAULT 0 NOT NULL,
	"created_by" bigint,
	"status" text DEFAULT 'queued' NOT NULL,
	"error" text,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_expires_at" timestamp with time zone,
	"lease_resends" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "lead_scoring_jobs" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "lead_enrichment_items" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "lead_enrichment_items_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"job_id" bigint NOT NULL,
	"item" integer NOT NULL,
	"status" text NOT NULL,
	"profile_lead_id" bigint,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "lead_enrichment_items" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "lead_enrichment_jobs" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "lead_enrichment_jobs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"group_id" bigint,
	"items" jsonb NOT NULL,
	"total" integer DEFAULT 0 NOT NULL,
	"processed" integer DEFAULT 0 NOT NULL,
	"succeeded" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"created_by" bigint,
	"status" text DEFAULT 'queued' NOT NULL,
	"error" text,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_expires_at" timestamp with time zone,
	"lease_resends" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "lead_enrichment_jobs" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "profile_leads" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "profile_leads_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"lead_id" bigint,
	"provider" text NOT NULL,
	"full_name" text,
	"email" text,
	"company" text,
	"domain" text,
	"profile_url" text,
	"input" jsonb NOT NULL,
	"profile" jsonb NOT NULL,
	"job_id" bigint,
	"job_item" integer,
	"created_by" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "profile_leads" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "leads" ADD COLUMN "fit_score" smallint;--> statement-breakpoint
ALTER TABLE "leads" ADD COLUMN "engagement_score" smallint;--> statement-breakpoint
ALTER TABLE "lead_score_models" ADD CONSTRAINT "lead_score_models_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_scoring_jobs" ADD CONSTRAINT "lead_scoring_jobs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_scoring_jobs" ADD CONSTRAINT "lead_scoring_jobs_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_enrichment_items" ADD CONSTRAINT "lead_enrichment_items_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_enrichment_items" ADD CONSTRAINT "lead_enrichment_items_job_id_lead_enrichment_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."lead_enrichment_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_enrichment_items" ADD CONSTRAINT "lead_enrichment_items_profile_lead_id_profile_leads_id_fk" FOREIGN KEY ("profile_lead_id") REFERENCES "public"."profile_leads"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_enrichment_jobs" ADD CONSTRAINT "lead_enrichment_jobs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_enrichment_jobs" ADD CONSTRAINT "lead_enrichment_jobs_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "profile_leads" ADD CONSTRAINT "profile_leads_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "profile_leads" ADD CONSTRAINT "profile_leads_lead_id_leads_id_fk" FOREIGN KEY ("lead_id") REFERENCES "public"."leads"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "profile_leads" ADD CONSTRAINT "profile_leads_job_id_lead_enrichment_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."lead_enrichment_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "profile_leads" ADD CONSTRAINT "profile_leads_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "lead_score_models_organization_version_key" ON "lead_score_models" USING btree ("organization_id","version");--> statement-breakpoint
CREATE INDEX "lead_scoring_jobs_organization_id_idx" ON "lead_scoring_jobs" USING btree ("organization_id","id");--> statement-breakpoint
CREATE INDEX "lead_scoring_jobs_open_lease_idx" ON "lead_scoring_jobs" USING btree ("lease_expires_at") WHERE "lead_scoring_jobs"."status" in ('queued', 'running');--> statement-breakpoint
CREATE UNIQUE INDEX "lead_enrichment_items_job_item_key" ON "lead_enrichment_items" USING btree ("job_id","item");--> statement-breakpoint
CREATE INDEX "lead_enrichment_items_organization_job_idx" ON "lead_enrichment_items" USING btree ("organization_id","job_id","item");--> statement-breakpoint
CREATE INDEX "lead_enrichment_jobs_organization_id_idx" ON "lead_enrichment_jobs" USING btree ("organization_id","id");--> statement-breakpoint
CREATE INDEX "lead_enrichment_jobs_open_lease_idx" ON "lead_enrichment_jobs" USING btree ("lease_expires_at") WHERE "lead_enrichment_jobs"."status" in ('queued', 'running');--> statement-breakpoint
CREATE INDEX "profile_leads_organization_id_idx" ON "profile_leads" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "profile_leads_job_item_key" ON "profile_leads" USING btree ("job_id","job_item");--> statement-breakpoint
CREATE POLICY "lead_score_models_tenant_isolation" ON "lead_score_models" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);--> statement-breakpoint
CREATE POLICY "lead_scoring_jobs_tenant_isolation" ON "lead_scoring_jobs" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);--> statement-breakpoint
CREATE POLICY "lead_enrichment_items_tenant_isolation" ON "lead_enrichment_items" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);--> statement-breakpoint
CREATE POLICY "lead_enrichment_jobs_tenant_isolation" ON "lead_enrichment_jobs" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);--> statement-breakpoint
CREATE POLICY "profile_leads_tenant_isolation" ON "profile_leads" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);