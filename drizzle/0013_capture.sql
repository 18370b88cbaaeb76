CREATE TABLE "web_forms" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "web_forms_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"name" text NOT NULL,
	"form_link" text NOT NULL,
	"fields" jsonb NOT NULL,
	"redirect_url" text,
	"thank_you_message" text,
	"tags" text[] DEFAULT '{}'::text[] NOT NULL,
	"assigned_to" bigint,
	"created_by" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "web_forms" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
DROP INDEX "leads_organization_live_email_key";--> statement-breakpoint
ALTER TABLE "leads" ADD COLUMN "duplicate_of" bigint;--> statement-breakpoint
ALTER TABLE "leads" ADD COLUMN "profile_url_key" text GENERATED ALWAYS AS (nullif(regexp_replace(lower(split_part(regexp_replace(regexp_replace(trim("profile_url"), '[?#].*$', ''), '^[A-Za-z][A-Za-z0-9+.-]*://', ''), '/', 1)) || substr(regexp_replace(regexp_replace(trim("profile_url"), '[?#].*$', ''), '^[A-Za-z][A-Za-z0-9+.-]*://', ''), length(split_part(regexp_replace(regexp_replace(trim("profile_url"), '[?#].*$', ''), '^[A-Za-z][A-Za-z0-9+.-]*://', ''), '/', 1)) + 1), '/+$', ''), '')) STORED;--> statement-breakpoint
ALTER TABLE "web_forms" ADD CONSTRAINT "web_forms_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "web_forms" ADD CONSTRAINT "web_forms_assigned_to_users_id_fk" FOREIGN KEY ("assigned_to") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "web_forms" ADD CONSTRAINT "web_forms_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "web_forms_form_link_key" ON "web_forms" USING btree ("form_link");--> statement-breakpoint
CREATE INDEX "web_forms_organization_id_idx" ON "web_forms" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "leads_organization_live_profile_url_key" ON "leads" USING btree ("organization_id","profile_url_key") WHERE "leads"."deleted_at" is null and "leads"."duplicate_of" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "leads_organization_live_email_key" ON "leads" USING btree ("organization_id",lower("email")) WHERE "leads"."deleted_at" is null and "leads"."duplicate_of" is null;--> statement-breakpoint
CREATE POLICY "web_forms_tenant_isolation" ON "web_forms" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);