-- search_value on leads, served by leads_search_trgm_idx inside tenant transactions.
-- As lm_app, row-level security lets PostgreSQL turn only leakproof operators into index
-- conditions, and ILIKE is not leakproof: queried on leads directly, the trigram index could only
-- serve organization_id and the ILIKE ran as a filter over every lead of the organization.
-- This view is owned by the migrating role (the tables' owner, not subject to their policies), so
-- queries through it carry no RLS quals and the ILIKE is an index condition. It confines itself
-- to the transaction's organization exactly as the policies do: without app.organization_id it
-- is empty. Expression identical to the index's (src/db/schema/leads.ts, leadSearchDocument).
CREATE VIEW "lead_search_scope" AS
  SELECT "id", "organization_id",
    (coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(email, '') || ' ' || coalesce(phone_number, '') || ' ' || coalesce(company, '') || ' ' || coalesce(job_title, '')) AS "search_document"
  FROM "leads"
  WHERE "organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint
    AND "deleted_at" IS NULL;
--> statement-breakpoint
GRANT SELECT ON "lead_search_scope" TO lm_app;
