-- The search documents of live leads, kept by the writes (issue 17). `search_value` used to build
-- each lead's document from six columns of leads at search time: the trigram index found the
-- candidates, then every candidate's wide row was read and its document built again for the
-- ILIKE recheck. A search matching 2 % of 100 000 leads spent 12 ms on its matches on
-- PostgreSQL 15, 5 ms from this narrow table (stored, lower-cased text compared with LIKE).
-- Statement-level AFTER triggers with transition tables, as for live_row_counts (0007): one
-- set-based statement per writing statement, whatever path wrote (insert, bulk CTE, import,
-- upsert, merge, soft delete, restore). A hard delete cascades through the foreign key.
-- Triggers run as the invoking role, so row-level security backs the table too.
-- The document expression appears twice below (insert and update); keep them identical.
CREATE FUNCTION "index_new_lead_search_documents"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO lead_search_documents (lead_id, organization_id, document)
  SELECT id, organization_id,
    lower(coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(email, '') || ' ' || coalesce(phone_number, '') || ' ' || coalesce(company, '') || ' ' || coalesce(job_title, ''))
  FROM new_rows WHERE deleted_at IS NULL
  ON CONFLICT (lead_id) DO UPDATE SET document = excluded.document;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
-- An update that changes no searched column and no deleted_at (most: score, activity, notes)
-- writes nothing.
CREATE FUNCTION "reindex_lead_search_documents"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM lead_search_documents d USING new_rows n, old_rows o
  WHERE d.lead_id = n.id AND o.id = n.id AND n.deleted_at IS NOT NULL AND o.deleted_at IS NULL;
  INSERT INTO lead_search_documents (lead_id, organization_id, document)
  SELECT n.id, n.organization_id,
    lower(coalesce(n.first_name, '') || ' ' || coalesce(n.last_name, '') || ' ' || coalesce(n.email, '') || ' ' || coalesce(n.phone_number, '') || ' ' || coalesce(n.company, '') || ' ' || coalesce(n.job_title, ''))
  FROM new_rows n JOIN old_rows o ON o.id = n.id
  WHERE n.deleted_at IS NULL
    AND (o.deleted_at IS NOT NULL
      OR (n.first_name, n.last_name, n.email, n.phone_number, n.company, n.job_title)
        IS DISTINCT FROM (o.first_name, o.last_name, o.email, o.phone_number, o.company, o.job_title))
  ON CONFLICT (lead_id) DO UPDATE SET document = excluded.document;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "leads_search_documents_insert" AFTER INSERT ON "leads" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION index_new_lead_search_documents();--> statement-breakpoint
CREATE TRIGGER "leads_search_documents_update" AFTER UPDATE ON "leads" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION reindex_lead_search_documents();--> statement-breakpoint
INSERT INTO lead_search_documents (lead_id, organization_id, document)
SELECT id, organization_id,
  lower(coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(email, '') || ' ' || coalesce(phone_number, '') || ' ' || coalesce(company, '') || ' ' || coalesce(job_title, ''))
FROM leads WHERE deleted_at IS NULL;--> statement-breakpoint
-- Same name and columns as 0004's view, now over the narrow table; search_document is lower-cased.
CREATE OR REPLACE VIEW "lead_search_scope" AS
  SELECT "lead_id" AS "id", "organization_id", "document" AS "search_document"
  FROM "lead_search_documents"
  WHERE "organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint;--> statement-breakpoint
ANALYZE "lead_search_documents";
