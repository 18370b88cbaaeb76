CREATE TABLE "lead_activity_day_counts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "lead_activity_day_counts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"day" date,
	"status" integer NOT NULL,
	"delta" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "lead_activity_day_counts" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
DROP INDEX "leads_organization_live_created_idx";--> statement-breakpoint
CREATE INDEX "lead_activity_day_counts_organization_day_idx" ON "lead_activity_day_counts" USING btree ("organization_id","day","status","delta");--> statement-breakpoint
CREATE INDEX "leads_organization_live_activity_idx" ON "leads" USING btree ("organization_id","last_activity_at","status","created_at") WHERE "leads"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "leads_organization_live_created_idx" ON "leads" USING btree ("organization_id","created_at","status","lead_source","id") WHERE "leads"."deleted_at" is null;--> statement-breakpoint
CREATE POLICY "lead_activity_day_counts_tenant_isolation" ON "lead_activity_day_counts" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);