CREATE TABLE "company_enrichment_jobs" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "company_enrichment_jobs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"company_id" bigint NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"total_steps" integer DEFAULT 0 NOT NULL,
	"processed_steps" integer DEFAULT 0 NOT NULL,
	"result" jsonb,
	"error" text,
	"created_by" bigint,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "company_enrichment_jobs" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "website_domain" text;--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "technologies" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "assigned_to" bigint;--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "logo_file_id" bigint;--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "enrichment" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN "tags" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "company_enrichment_jobs" ADD CONSTRAINT "company_enrichment_jobs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "company_enrichment_jobs" ADD CONSTRAINT "company_enrichment_jobs_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "company_enrichment_jobs" ADD CONSTRAINT "company_enrichment_jobs_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "company_enrichment_jobs_organization_id_idx" ON "company_enrichment_jobs" USING btree ("organization_id","id");--> statement-breakpoint
ALTER TABLE "companies" ADD CONSTRAINT "companies_assigned_to_users_id_fk" FOREIGN KEY ("assigned_to") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "companies" ADD CONSTRAINT "companies_logo_file_id_stored_files_id_fk" FOREIGN KEY ("logo_file_id") REFERENCES "public"."stored_files"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "companies_organization_created_idx" ON "companies" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "companies_organization_domain_idx" ON "companies" USING btree ("organization_id","website_domain");--> statement-breakpoint
CREATE INDEX "companies_organization_industry_idx" ON "companies" USING btree ("organization_id",lower("industry_type"));--> statement-breakpoint
CREATE INDEX "contacts_organization_company_idx" ON "contacts" USING btree ("organization_id","company_id");--> statement-breakpoint
CREATE INDEX "contacts_organization_created_idx" ON "contacts" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "contacts_organization_email_key" ON "contacts" USING btree ("organization_id",lower("email")) WHERE "contacts"."deleted_at" is null and "contacts"."email" is not null;--> statement-breakpoint
CREATE INDEX "contacts_tags_idx" ON "contacts" USING gin ("tags");--> statement-breakpoint
CREATE INDEX "leads_organization_company_idx" ON "leads" USING btree ("organization_id","company_id");--> statement-breakpoint
CREATE POLICY "company_enrichment_jobs_tenant_isolation" ON "company_enrichment_jobs" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);