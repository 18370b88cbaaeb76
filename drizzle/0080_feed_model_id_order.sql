-- One record's feed in the feed list's id order: the list orders `id desc nulls last` (tenantIdOrder,
-- migration 0078), which (organization_id, model_type, model_id, id) could not give without a sort.
-- The feed list is the only reader of this index.
DROP INDEX "feed_entries_organization_model_idx";--> statement-breakpoint
CREATE INDEX "feed_entries_organization_model_idx" ON "feed_entries" USING btree ("organization_id","model_type","model_id","id" DESC NULLS LAST);