ALTER TABLE "intent_signals" ADD COLUMN "lead_company_id" bigint;--> statement-breakpoint
ALTER TABLE "meetings" ADD COLUMN "lead_company_id" bigint;--> statement-breakpoint
CREATE INDEX "intent_signals_organization_lead_company_idx" ON "intent_signals" USING btree ("organization_id","lead_company_id","occurred_at");--> statement-breakpoint
CREATE INDEX "meetings_organization_lead_company_idx" ON "meetings" USING btree ("organization_id","lead_company_id","start_time");