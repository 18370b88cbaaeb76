DROP INDEX "leads_organization_company_idx";--> statement-breakpoint
CREATE INDEX "leads_organization_company_live_idx" ON "leads" USING btree ("organization_id","company_id","deleted_at","id");