CREATE TABLE "company_lead_counts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "company_lead_counts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"company_id" bigint NOT NULL,
	"delta" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "company_lead_counts" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "lead_day_counts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "lead_day_counts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"day" date NOT NULL,
	"status" integer NOT NULL,
	"lead_source" smallint,
	"won_deal" boolean NOT NULL,
	"delta" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "lead_day_counts" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
DROP INDEX "leads_organization_company_idx";--> statement-breakpoint
ALTER TABLE "leads" ADD COLUMN "open_deals" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "leads" ADD COLUMN "won_deals" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "company_lead_counts_organization_company_idx" ON "company_lead_counts" USING btree ("organization_id","company_id","delta");--> statement-breakpoint
CREATE INDEX "lead_day_counts_organization_day_idx" ON "lead_day_counts" USING btree ("organization_id","day","status","lead_source","won_deal","delta");--> statement-breakpoint
CREATE INDEX "leads_organization_company_live_idx" ON "leads" USING btree ("organization_id","company_id","deleted_at","id","open_deals","won_deals");--> statement-breakpoint
CREATE POLICY "company_lead_counts_tenant_isolation" ON "company_lead_counts" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);--> statement-breakpoint
CREATE POLICY "lead_day_counts_tenant_isolation" ON "lead_day_counts" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);