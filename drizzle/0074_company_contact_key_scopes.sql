-- The name check of a company create or update, "link or create by name" (leads' company field),
-- the company import's match of held companies, and the email check of a contact create or update
-- look companies up by lower(company_name) and contacts by lower(email). Inside a tenant
-- transaction row-level security keeps lower() (not leakproof) out of index conditions on the
-- tables, so each of them read every company or contact of the organization, whatever the unique
-- indexes. Like lead_key_scope (0073), these views are owned by the tables' owner, so queries
-- through them carry no RLS quals, and they confine themselves to the transaction's organization
-- exactly as the policy does (empty without app.organization_id). `name_key` and `email_key` are
-- the unique indexes' expressions.
CREATE VIEW "company_key_scope" AS
  SELECT "id", "organization_id", "company_name", lower("company_name") AS "name_key", "website_domain",
    "external_source", "external_id"
  FROM "companies"
  WHERE "organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint
    AND "deleted_at" IS NULL;
--> statement-breakpoint
GRANT SELECT ON "company_key_scope" TO lm_app;
--> statement-breakpoint
CREATE VIEW "contact_key_scope" AS
  SELECT "id", "organization_id", lower("email") AS "email_key"
  FROM "contacts"
  WHERE "organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint
    AND "deleted_at" IS NULL AND "email" IS NOT NULL;
--> statement-breakpoint
GRANT SELECT ON "contact_key_scope" TO lm_app;
