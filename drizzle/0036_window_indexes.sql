DROP INDEX "intent_signals_organization_occurred_idx";--> statement-breakpoint
DROP INDEX "deals_organization_lead_company_idx";--> statement-breakpoint
CREATE INDEX "intent_signals_organization_occurred_idx" ON "intent_signals" USING btree ("organization_id","occurred_at","lead_company_id");--> statement-breakpoint
CREATE INDEX "deals_organization_lead_company_idx" ON "deals" USING btree ("organization_id","outcome","lead_company_id","value");