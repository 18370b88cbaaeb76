CREATE TABLE "company_signal_counts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "company_signal_counts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"company_id" bigint NOT NULL,
	"bucket" date NOT NULL,
	"delta" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "company_signal_counts" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE INDEX "company_signal_counts_organization_bucket_idx" ON "company_signal_counts" USING btree ("organization_id","bucket","company_id","delta");--> statement-breakpoint
CREATE POLICY "company_signal_counts_tenant_isolation" ON "company_signal_counts" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);