CREATE TABLE "company_deal_counts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "company_deal_counts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"company_id" bigint NOT NULL,
	"outcome" text NOT NULL,
	"delta" integer NOT NULL,
	"value_sum" numeric NOT NULL
);
--> statement-breakpoint
ALTER TABLE "company_deal_counts" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE INDEX "company_deal_counts_organization_outcome_idx" ON "company_deal_counts" USING btree ("organization_id","outcome","company_id","delta","value_sum");--> statement-breakpoint
CREATE POLICY "company_deal_counts_tenant_isolation" ON "company_deal_counts" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);