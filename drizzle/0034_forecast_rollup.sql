CREATE TABLE "deal_close_month_counts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "deal_close_month_counts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"pipeline_id" bigint NOT NULL,
	"month" date NOT NULL,
	"outcome" text NOT NULL,
	"delta" integer NOT NULL,
	"value_sum" numeric NOT NULL,
	"weighted_sum" numeric NOT NULL
);
--> statement-breakpoint
ALTER TABLE "deal_close_month_counts" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "deals" ADD COLUMN "forecast_weighted_value" numeric(14, 2);--> statement-breakpoint
ALTER TABLE "deals" ADD COLUMN "forecast_snapshot_date" date;--> statement-breakpoint
CREATE INDEX "deal_close_month_counts_organization_month_idx" ON "deal_close_month_counts" USING btree ("organization_id","month","pipeline_id","outcome","delta","value_sum","weighted_sum");--> statement-breakpoint
CREATE POLICY "deal_close_month_counts_tenant_isolation" ON "deal_close_month_counts" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);