-- A create's dedupe check (src/modules/leads/dedupe.ts) looks up the live leads holding its email
-- or profile URL, the ones let in as duplicates (duplicate_of set) too. The unique indexes serve the
-- originals only (where duplicate_of is null), so one condition over both read every lead of the
-- organization. The check now reads the two kinds apart; these serve the flagged ones. Few leads are
-- flagged, so they are small and cost an insert nothing unless it is a flagged duplicate.
CREATE INDEX "leads_organization_live_duplicate_email_idx" ON "leads" USING btree ("organization_id",lower("email")) WHERE "leads"."deleted_at" is null and "leads"."duplicate_of" is not null;--> statement-breakpoint
CREATE INDEX "leads_organization_live_duplicate_profile_url_idx" ON "leads" USING btree ("organization_id","profile_url_key") WHERE "leads"."deleted_at" is null and "leads"."duplicate_of" is not null;--> statement-breakpoint
-- The same check inside a tenant transaction: row-level security keeps lower(email) (not leakproof)
-- out of index conditions on the table, so it ran as a filter over every lead of the organization
-- whatever the indexes. Like lead_phone_scope (0062), this view is owned by the tables' owner, so
-- queries through it carry no RLS quals, and it confines itself to the transaction's organization
-- exactly as the policy does (empty without app.organization_id). `email_key` and `profile_key`
-- are the indexes' expressions.
CREATE VIEW "lead_key_scope" AS
  SELECT "id", "organization_id", lower("email") AS "email_key", "profile_url_key" AS "profile_key",
    "duplicate_of", "import_job_id", "import_row"
  FROM "leads"
  WHERE "organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint
    AND "deleted_at" IS NULL;
--> statement-breakpoint
GRANT SELECT ON "lead_key_scope" TO lm_app;
