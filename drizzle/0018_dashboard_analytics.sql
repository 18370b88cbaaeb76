CREATE INDEX "leads_organization_live_created_idx" ON "leads" USING btree ("organization_id","created_at","status","lead_source","last_activity_at","id") WHERE "leads"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "leads_organization_id_company_idx" ON "leads" USING btree ("organization_id","id","company_id");--> statement-breakpoint
CREATE INDEX "intent_signals_organization_occurred_idx" ON "intent_signals" USING btree ("organization_id","occurred_at");--> statement-breakpoint
CREATE INDEX "deals_organization_closed_idx" ON "deals" USING btree ("organization_id","closed_at") WHERE "deals"."closed_at" is not null;--> statement-breakpoint
CREATE INDEX "meetings_organization_start_idx" ON "meetings" USING btree ("organization_id","start_time");