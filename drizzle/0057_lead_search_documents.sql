CREATE TABLE "lead_search_documents" (
	"lead_id" bigint PRIMARY KEY NOT NULL,
	"organization_id" bigint NOT NULL,
	"document" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "lead_search_documents" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
DROP INDEX "leads_search_trgm_idx";--> statement-breakpoint
ALTER TABLE "lead_search_documents" ADD CONSTRAINT "lead_search_documents_lead_id_leads_id_fk" FOREIGN KEY ("lead_id") REFERENCES "public"."leads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "lead_search_documents_trgm_idx" ON "lead_search_documents" USING gin ("organization_id","document" gin_trgm_ops) WITH (gin_pending_list_limit=64);--> statement-breakpoint
CREATE POLICY "lead_search_documents_tenant_isolation" ON "lead_search_documents" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);