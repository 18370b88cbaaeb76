-- Statement triggers that join a statement's old and new rows (old_rows, new_rows) plan that join
-- per statement. PL/pgSQL prepares a static statement once per session and keeps its plan, and a
-- transition table's size is only known when a statement is planned: the first update a backend
-- ran (one lead, say) left a nested-loop join in its cache, and every later bulk update on that
-- backend compared each new row with each old row. With 2 500 leads: 0.24 s, or 2.2 s after a
-- one-lead update; 20 000 leads (a select_all status change): 2 s, or 130 s. A pooled backend
-- serves many requests, so any bulk action could meet it. EXECUTE plans the join every time, with
-- the transition tables' real sizes (a hash join when they are large); the bodies are otherwise
-- those of 0058 (reindex_lead_search_documents), 0025 (pass_on_lead_company) and 0023
-- (count_lead_deals).
CREATE OR REPLACE FUNCTION "reindex_lead_search_documents"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE $sql$
    DELETE FROM lead_search_documents d USING new_rows n, old_rows o
    WHERE d.lead_id = n.id AND o.id = n.id AND n.deleted_at IS NOT NULL AND o.deleted_at IS NULL
  $sql$;
  EXECUTE $sql$
    INSERT INTO lead_search_documents (lead_id, organization_id, document)
    SELECT n.id, n.organization_id,
      lower(coalesce(n.first_name, '') || ' ' || coalesce(n.last_name, '') || ' ' || coalesce(n.email, '') || ' ' || coalesce(n.phone_number, '') || ' ' || coalesce(n.company, '') || ' ' || coalesce(n.job_title, ''))
    FROM new_rows n JOIN old_rows o ON o.id = n.id
    WHERE n.deleted_at IS NULL
      AND (o.deleted_at IS NOT NULL
        OR (n.first_name, n.last_name, n.email, n.phone_number, n.company, n.job_title)
          IS DISTINCT FROM (o.first_name, o.last_name, o.email, o.phone_number, o.company, o.job_title))
    ON CONFLICT (lead_id) DO UPDATE SET document = excluded.document
  $sql$;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "pass_on_lead_company"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  orgs bigint[];
  lead_ids bigint[];
  company_ids bigint[];
  created timestamptz[];
BEGIN
  EXECUTE $sql$
    SELECT array_agg(n.organization_id), array_agg(n.id), array_agg(CASE WHEN n.deleted_at IS NULL THEN n.company_id END), array_agg(n.created_at)
    FROM new_rows n JOIN old_rows o ON o.id = n.id
    WHERE n.company_id IS DISTINCT FROM o.company_id OR (n.deleted_at IS NULL) <> (o.deleted_at IS NULL)
      OR n.created_at IS DISTINCT FROM o.created_at
  $sql$ INTO orgs, lead_ids, company_ids, created;
  IF lead_ids IS NOT NULL THEN
    UPDATE intent_signals s SET lead_company_id = c.company_id
    FROM unnest(orgs, lead_ids, company_ids) AS c(organization_id, lead_id, company_id)
    WHERE s.organization_id = c.organization_id AND s.lead_id = c.lead_id AND s.lead_company_id IS DISTINCT FROM c.company_id;
    UPDATE meetings m SET lead_company_id = c.company_id
    FROM unnest(orgs, lead_ids, company_ids) AS c(organization_id, lead_id, company_id)
    WHERE m.organization_id = c.organization_id AND m.lead_id = c.lead_id AND m.lead_company_id IS DISTINCT FROM c.company_id;
    UPDATE deals d SET lead_company_id = c.company_id, lead_created_at = c.created_at
    FROM unnest(orgs, lead_ids, company_ids, created) AS c(organization_id, lead_id, company_id, created_at)
    WHERE d.organization_id = c.organization_id AND d.lead_id = c.lead_id
      AND (d.lead_company_id IS DISTINCT FROM c.company_id OR d.lead_created_at IS DISTINCT FROM c.created_at);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "count_lead_deals"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  lead_ids bigint[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(DISTINCT lead_id) INTO lead_ids FROM new_rows WHERE outcome IN ('open', 'won');
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(DISTINCT lead_id) INTO lead_ids FROM old_rows WHERE outcome IN ('open', 'won');
  ELSE
    EXECUTE $sql$
      SELECT array_agg(DISTINCT lead_id) FROM (
        SELECT n.lead_id FROM new_rows n JOIN old_rows o ON o.id = n.id
        WHERE n.outcome IS DISTINCT FROM o.outcome OR n.lead_id IS DISTINCT FROM o.lead_id
        UNION
        SELECT o.lead_id FROM new_rows n JOIN old_rows o ON o.id = n.id
        WHERE n.outcome IS DISTINCT FROM o.outcome OR n.lead_id IS DISTINCT FROM o.lead_id
      ) AS touched
    $sql$ INTO lead_ids;
  END IF;
  IF lead_ids IS NOT NULL THEN
    UPDATE leads l SET open_deals = c.open_deals, won_deals = c.won_deals
    FROM (
      SELECT l2.id, d.open_deals, d.won_deals FROM leads l2
      CROSS JOIN LATERAL (SELECT count(*) FILTER (WHERE x.outcome = 'open')::integer AS open_deals,
          count(*) FILTER (WHERE x.outcome = 'won')::integer AS won_deals
        FROM deals x WHERE x.organization_id = l2.organization_id AND x.lead_id = l2.id) AS d
      WHERE l2.id = ANY (lead_ids)
    ) AS c
    WHERE l.id = c.id AND (l.open_deals <> c.open_deals OR l.won_deals <> c.won_deals);
  END IF;
  RETURN NULL;
END $$;
