-- The other party of a call nobody placed from here (src/modules/voice/observed-calls.ts): the
-- organization's live leads and contacts whose phone has the call's digits. Inside a tenant
-- transaction, row-level security keeps regexp_replace (not leakproof) out of index conditions:
-- queried on the tables, the digits indexes of 0061 served organization_id alone and the digits
-- ran as a filter over every lead of the organization. Like lead_search_scope (0004, 0058), these
-- views are owned by the tables' owner, so queries through them carry no RLS quals, and they
-- confine themselves to the transaction's organization exactly as the policies do (empty without
-- app.organization_id). `phone_digits` is the indexes' expression (src/db/schema).
CREATE VIEW "lead_phone_scope" AS
  SELECT "id", "organization_id", "company_id", "phone_number",
    regexp_replace("phone_number", '\D', '', 'g') AS "phone_digits"
  FROM "leads"
  WHERE "organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint
    AND "deleted_at" IS NULL AND "phone_number" IS NOT NULL;
--> statement-breakpoint
GRANT SELECT ON "lead_phone_scope" TO lm_app;
--> statement-breakpoint
CREATE VIEW "contact_phone_scope" AS
  SELECT "id", "organization_id", "company_id", "phone_number",
    regexp_replace("phone_number", '\D', '', 'g') AS "phone_digits"
  FROM "contacts"
  WHERE "organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint
    AND "deleted_at" IS NULL AND "phone_number" IS NOT NULL;
--> statement-breakpoint
GRANT SELECT ON "contact_phone_scope" TO lm_app;
