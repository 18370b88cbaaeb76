CREATE TABLE "calls" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "calls_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"user_id" bigint,
	"lead_id" bigint,
	"contact_id" bigint,
	"company_id" bigint,
	"direction" text NOT NULL,
	"kind" text NOT NULL,
	"from_number" text NOT NULL,
	"to_number" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"provider" text NOT NULL,
	"connection_id" bigint,
	"provider_call_id" text,
	"agent" jsonb,
	"dial_after" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"answered_at" timestamp with time zone,
	"ended_at" timestamp with time zone,
	"duration_sec" integer,
	"transcript" jsonb,
	"price_cents" integer,
	"reserved_cents" integer DEFAULT 0 NOT NULL,
	"recording_file_id" bigint,
	"failure_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "calls_status_check" CHECK ("calls"."status" in ('queued', 'ringing', 'in-progress', 'completed', 'busy', 'failed', 'no-answer', 'canceled'))
);
--> statement-breakpoint
ALTER TABLE "calls" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "phone_number_users" (
	"organization_id" bigint NOT NULL,
	"phone_number_id" bigint NOT NULL,
	"user_id" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "phone_number_users_organization_id_phone_number_id_user_id_pk" PRIMARY KEY("organization_id","phone_number_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "phone_number_users" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "phone_numbers" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "phone_numbers_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"phone_number" text NOT NULL,
	"friendly_name" text,
	"number_type" text NOT NULL,
	"provider" text NOT NULL,
	"connection_id" bigint,
	"provider_sid" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"failure_reason" text,
	"monthly_price_cents" integer NOT NULL,
	"created_by" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "phone_numbers_status_check" CHECK ("phone_numbers"."status" in ('pending', 'active', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "phone_numbers" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "voice_jobs" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "voice_jobs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"action" text NOT NULL,
	"phone_number_id" bigint,
	"call_id" bigint,
	"source_url" text,
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
ALTER TABLE "voice_jobs" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "voice_ledger" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "voice_ledger_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"kind" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"call_id" bigint,
	"phone_number_id" bigint,
	"note" text,
	"created_by" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "voice_ledger" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_lead_id_leads_id_fk" FOREIGN KEY ("lead_id") REFERENCES "public"."leads"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_recording_file_id_stored_files_id_fk" FOREIGN KEY ("recording_file_id") REFERENCES "public"."stored_files"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phone_number_users" ADD CONSTRAINT "phone_number_users_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phone_number_users" ADD CONSTRAINT "phone_number_users_phone_number_id_phone_numbers_id_fk" FOREIGN KEY ("phone_number_id") REFERENCES "public"."phone_numbers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phone_number_users" ADD CONSTRAINT "phone_number_users_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phone_numbers" ADD CONSTRAINT "phone_numbers_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phone_numbers" ADD CONSTRAINT "phone_numbers_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phone_numbers" ADD CONSTRAINT "phone_numbers_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "voice_jobs" ADD CONSTRAINT "voice_jobs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "voice_jobs" ADD CONSTRAINT "voice_jobs_phone_number_id_phone_numbers_id_fk" FOREIGN KEY ("phone_number_id") REFERENCES "public"."phone_numbers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "voice_jobs" ADD CONSTRAINT "voice_jobs_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "voice_jobs" ADD CONSTRAINT "voice_jobs_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "voice_ledger" ADD CONSTRAINT "voice_ledger_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "voice_ledger" ADD CONSTRAINT "voice_ledger_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "voice_ledger" ADD CONSTRAINT "voice_ledger_phone_number_id_phone_numbers_id_fk" FOREIGN KEY ("phone_number_id") REFERENCES "public"."phone_numbers"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "voice_ledger" ADD CONSTRAINT "voice_ledger_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "calls_organization_idx" ON "calls" USING btree ("organization_id","id");--> statement-breakpoint
CREATE INDEX "calls_lead_idx" ON "calls" USING btree ("organization_id","lead_id");--> statement-breakpoint
CREATE INDEX "calls_contact_idx" ON "calls" USING btree ("organization_id","contact_id");--> statement-breakpoint
CREATE INDEX "calls_company_idx" ON "calls" USING btree ("organization_id","company_id");--> statement-breakpoint
CREATE UNIQUE INDEX "calls_provider_call_key" ON "calls" USING btree ("organization_id","provider","provider_call_id") WHERE "calls"."provider_call_id" is not null;--> statement-breakpoint
CREATE INDEX "phone_numbers_organization_idx" ON "phone_numbers" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "phone_numbers_live_key" ON "phone_numbers" USING btree ("organization_id","phone_number") WHERE "phone_numbers"."status" <> 'failed';--> statement-breakpoint
CREATE INDEX "voice_jobs_organization_idx" ON "voice_jobs" USING btree ("organization_id","id");--> statement-breakpoint
CREATE INDEX "voice_jobs_open_lease_idx" ON "voice_jobs" USING btree ("lease_expires_at") WHERE "voice_jobs"."status" in ('queued', 'running');--> statement-breakpoint
CREATE INDEX "voice_ledger_organization_idx" ON "voice_ledger" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "voice_ledger_call_kind_key" ON "voice_ledger" USING btree ("organization_id","call_id","kind") WHERE "voice_ledger"."call_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "voice_ledger_number_kind_key" ON "voice_ledger" USING btree ("organization_id","phone_number_id","kind") WHERE "voice_ledger"."phone_number_id" is not null;--> statement-breakpoint
CREATE POLICY "calls_tenant_isolation" ON "calls" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);--> statement-breakpoint
CREATE POLICY "phone_number_users_tenant_isolation" ON "phone_number_users" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);--> statement-breakpoint
CREATE POLICY "phone_numbers_tenant_isolation" ON "phone_numbers" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);--> statement-breakpoint
CREATE POLICY "voice_jobs_tenant_isolation" ON "voice_jobs" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);--> statement-breakpoint
CREATE POLICY "voice_ledger_tenant_isolation" ON "voice_ledger" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);