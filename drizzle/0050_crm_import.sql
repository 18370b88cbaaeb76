CREATE TABLE "crm_import_jobs" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "crm_import_jobs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"connection_id" bigint,
	"provider" text NOT NULL,
	"mapping" jsonb NOT NULL,
	"options" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"phase" text DEFAULT 'companies' NOT NULL,
	"cursor" text,
	"records_read" integer DEFAULT 0 NOT NULL,
	"phase_read" integer DEFAULT 0 NOT NULL,
	"processed_count" integer DEFAULT 0 NOT NULL,
	"created_count" integer DEFAULT 0 NOT NULL,
	"updated_count" integer DEFAULT 0 NOT NULL,
	"skipped_count" integer DEFAULT 0 NOT NULL,
	"failed_count" integer DEFAULT 0 NOT NULL,
	"total_estimate" integer,
	"created_by" bigint,
	"status" text DEFAULT 'queued' NOT NULL,
	"error" text,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_expires_at" timestamp with time zone,
	"lease_resends" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "crm_import_jobs_phase_check" CHECK ("crm_import_jobs"."phase" in ('companies', 'contacts', 'done'))
);
--> statement-breakpoint
ALTER TABLE "crm_import_jobs" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "crm_import_records" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "crm_import_records_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"job_id" bigint NOT NULL,
	"object_type" text NOT NULL,
	"external_id" text NOT NULL,
	"outcome" text NOT NULL,
	"field" text,
	"message" text NOT NULL,
	"record_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "crm_import_records" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "external_source" text;--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "external_id" text;--> statement-breakpoint
ALTER TABLE "leads" ADD COLUMN "external_source" text;--> statement-breakpoint
ALTER TABLE "leads" ADD COLUMN "external_id" text;--> statement-breakpoint
ALTER TABLE "crm_import_jobs" ADD CONSTRAINT "crm_import_jobs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_import_jobs" ADD CONSTRAINT "crm_import_jobs_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_import_jobs" ADD CONSTRAINT "crm_import_jobs_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_import_records" ADD CONSTRAINT "crm_import_records_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_import_records" ADD CONSTRAINT "crm_import_records_job_id_crm_import_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."crm_import_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "crm_import_jobs_organization_id_idx" ON "crm_import_jobs" USING btree ("organization_id","id");--> statement-breakpoint
CREATE INDEX "crm_import_jobs_open_lease_idx" ON "crm_import_jobs" USING btree ("lease_expires_at") WHERE "crm_import_jobs"."status" in ('queued', 'running');--> statement-breakpoint
CREATE INDEX "crm_import_records_organization_job_idx" ON "crm_import_records" USING btree ("organization_id","job_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "companies_organization_external_key" ON "companies" USING btree ("organization_id","external_source","external_id") WHERE "companies"."deleted_at" is null and "companies"."external_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "leads_organization_external_key" ON "leads" USING btree ("organization_id","external_source","external_id") WHERE "leads"."deleted_at" is null and "leads"."external_id" is not null;--> statement-breakpoint
CREATE POLICY "crm_import_jobs_tenant_isolation" ON "crm_import_jobs" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);--> statement-breakpoint
CREATE POLICY "crm_import_records_tenant_isolation" ON "crm_import_records" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);