-- Lists in id order read the organization's own ids (issue 17): `order by id desc nulls last`, which
-- the primary key cannot give, so the planner cannot walk it past other organizations' newer ids
-- with the organization as a filter (core/list.ts `tenantIdOrder`). Each (organization_id, id)
-- index becomes (organization_id, id desc nulls last): the same writes; the feed gets one.
DROP INDEX "companies_organization_id_idx";--> statement-breakpoint
DROP INDEX "contacts_organization_id_idx";--> statement-breakpoint
DROP INDEX "deals_organization_id_idx";--> statement-breakpoint
DROP INDEX "meetings_organization_id_idx";--> statement-breakpoint
DROP INDEX "calls_organization_idx";--> statement-breakpoint
CREATE INDEX "feed_entries_organization_id_order_idx" ON "feed_entries" USING btree ("organization_id","id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "companies_organization_id_idx" ON "companies" USING btree ("organization_id","id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "contacts_organization_id_idx" ON "contacts" USING btree ("organization_id","id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "deals_organization_id_idx" ON "deals" USING btree ("organization_id","id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "meetings_organization_id_idx" ON "meetings" USING btree ("organization_id","id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "calls_organization_idx" ON "calls" USING btree ("organization_id","id" DESC NULLS LAST);