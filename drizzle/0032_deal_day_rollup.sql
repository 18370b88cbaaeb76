CREATE TABLE "deal_day_counts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "deal_day_counts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"day" date NOT NULL,
	"event" text NOT NULL,
	"delta" integer NOT NULL,
	"value_sum" numeric NOT NULL,
	"convert_days_sum" numeric NOT NULL
);
--> statement-breakpoint
ALTER TABLE "deal_day_counts" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "deals" ADD COLUMN "lead_created_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "deal_day_counts_organization_day_idx" ON "deal_day_counts" USING btree ("organization_id","day","event","delta","value_sum","convert_days_sum");--> statement-breakpoint
CREATE POLICY "deal_day_counts_tenant_isolation" ON "deal_day_counts" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);