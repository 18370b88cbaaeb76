-- The organization's deleted leads and contacts: the call list's unfiltered total is the calls
-- counter (0079) less the calls of deleted leads and contacts, which the list no longer shows
-- (src/modules/voice/calls.ts hiddenCalls); these indexes keep that count's cost to the deleted
-- records, whatever the number of live ones.
CREATE INDEX "contacts_organization_deleted_idx" ON "contacts" USING btree ("organization_id","id") WHERE "contacts"."deleted_at" is not null;--> statement-breakpoint
CREATE INDEX "leads_organization_deleted_idx" ON "leads" USING btree ("organization_id","id") WHERE "leads"."deleted_at" is not null;