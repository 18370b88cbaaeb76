CREATE TABLE "outreach_plans" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "outreach_plans_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"target_account_id" bigint NOT NULL,
	"contact_id" bigint NOT NULL,
	"channel" text NOT NULL,
	"scheduled_at" timestamp with time zone NOT NULL,
	"assigned_to" bigint,
	"notes" text,
	"created_by" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "outreach_plans" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "target_account_contacts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "target_account_contacts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"target_account_id" bigint NOT NULL,
	"contact_id" bigint NOT NULL,
	"stakeholder_role" text,
	"created_by" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "target_account_contacts" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "target_accounts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "target_accounts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"company_id" bigint NOT NULL,
	"owner_id" bigint,
	"tier" smallint DEFAULT 3 NOT NULL,
	"estimated_decision_makers" integer,
	"icp_fit_score" smallint,
	"status" text DEFAULT 'active' NOT NULL,
	"created_by" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "target_accounts" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "outreach_plans" ADD CONSTRAINT "outreach_plans_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outreach_plans" ADD CONSTRAINT "outreach_plans_target_account_id_target_accounts_id_fk" FOREIGN KEY ("target_account_id") REFERENCES "public"."target_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outreach_plans" ADD CONSTRAINT "outreach_plans_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outreach_plans" ADD CONSTRAINT "outreach_plans_assigned_to_users_id_fk" FOREIGN KEY ("assigned_to") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outreach_plans" ADD CONSTRAINT "outreach_plans_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "target_account_contacts" ADD CONSTRAINT "target_account_contacts_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "target_account_contacts" ADD CONSTRAINT "target_account_contacts_target_account_id_target_accounts_id_fk" FOREIGN KEY ("target_account_id") REFERENCES "public"."target_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "target_account_contacts" ADD CONSTRAINT "target_account_contacts_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "target_account_contacts" ADD CONSTRAINT "target_account_contacts_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "target_accounts" ADD CONSTRAINT "target_accounts_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "target_accounts" ADD CONSTRAINT "target_accounts_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "target_accounts" ADD CONSTRAINT "target_accounts_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "target_accounts" ADD CONSTRAINT "target_accounts_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "outreach_plans_organization_account_idx" ON "outreach_plans" USING btree ("organization_id","target_account_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "target_account_contacts_account_contact_key" ON "target_account_contacts" USING btree ("target_account_id","contact_id");--> statement-breakpoint
CREATE INDEX "target_account_contacts_organization_idx" ON "target_account_contacts" USING btree ("organization_id","target_account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "target_accounts_organization_company_key" ON "target_accounts" USING btree ("organization_id","company_id");--> statement-breakpoint
CREATE INDEX "target_accounts_organization_id_idx" ON "target_accounts" USING btree ("organization_id","id");--> statement-breakpoint
CREATE INDEX "target_accounts_organization_created_idx" ON "target_accounts" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE POLICY "outreach_plans_tenant_isolation" ON "outreach_plans" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);--> statement-breakpoint
CREATE POLICY "target_account_contacts_tenant_isolation" ON "target_account_contacts" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);--> statement-breakpoint
CREATE POLICY "target_accounts_tenant_isolation" ON "target_accounts" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);