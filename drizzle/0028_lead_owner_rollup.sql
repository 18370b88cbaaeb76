CREATE TABLE "lead_owner_counts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "lead_owner_counts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"assigned_to" bigint,
	"status" integer NOT NULL,
	"lead_source" smallint,
	"delta" integer NOT NULL,
	"score_sum" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "lead_owner_counts" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE INDEX "lead_owner_counts_organization_owner_idx" ON "lead_owner_counts" USING btree ("organization_id","assigned_to","status","lead_source","delta","score_sum");--> statement-breakpoint
CREATE POLICY "lead_owner_counts_tenant_isolation" ON "lead_owner_counts" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);