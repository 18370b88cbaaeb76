-- Rollups of live leads (a lead is live while deleted_at is null), kept by the writes so the
-- dashboard aggregates over a period cost the days and keys they cover, not the leads:
--   lead_day_counts      live leads by UTC day of creation, status, source and won deal (won_deals > 0);
--   company_lead_counts  live leads per company.
-- The scheme is live_row_counts' (0007): one statement-level AFTER trigger with transition tables,
-- so every writing path (single insert, bulk CTE, import, merge, restore, cascade) keeps them;
-- each statement appends its net change per key and folds the key's other rows into that one row,
-- taking only rows it can lock at once (FOR UPDATE SKIP LOCKED): concurrent writers never wait on
-- each other, nothing is counted twice, and a key keeps about one row. A count is SUM(delta).
-- An update that moves no lead between keys (most: activity, score, notes) writes nothing.
CREATE FUNCTION "add_lead_day_counts"(orgs bigint[], days date[], statuses integer[], sources smallint[], won boolean[], deltas integer[]) RETURNS void LANGUAGE sql AS $$
  WITH changes AS (
    SELECT * FROM unnest(orgs, days, statuses, sources, won, deltas) AS c(organization_id, day, status, lead_source, won_deal, delta)
  ), folded AS (
    DELETE FROM lead_day_counts WHERE id IN (
      SELECT r.id FROM lead_day_counts r JOIN changes c ON r.organization_id = c.organization_id AND r.day = c.day
        AND r.status = c.status AND r.lead_source IS NOT DISTINCT FROM c.lead_source AND r.won_deal = c.won_deal
      FOR UPDATE OF r SKIP LOCKED)
    RETURNING organization_id, day, status, lead_source, won_deal, delta
  )
  INSERT INTO lead_day_counts (organization_id, day, status, lead_source, won_deal, delta)
  SELECT organization_id, day, status, lead_source, won_deal, sum(delta) FROM (SELECT * FROM changes UNION ALL SELECT * FROM folded) AS d
  GROUP BY organization_id, day, status, lead_source, won_deal HAVING sum(delta) <> 0;
$$;
--> statement-breakpoint
CREATE FUNCTION "add_company_lead_counts"(orgs bigint[], company_ids bigint[], deltas integer[]) RETURNS void LANGUAGE sql AS $$
  WITH changes AS (
    SELECT * FROM unnest(orgs, company_ids, deltas) AS c(organization_id, company_id, delta)
  ), folded AS (
    DELETE FROM company_lead_counts WHERE id IN (
      SELECT r.id FROM company_lead_counts r JOIN changes c ON r.organization_id = c.organization_id AND r.company_id = c.company_id
      FOR UPDATE OF r SKIP LOCKED)
    RETURNING organization_id, company_id, delta
  )
  INSERT INTO company_lead_counts (organization_id, company_id, delta)
  SELECT organization_id, company_id, sum(delta) FROM (SELECT * FROM changes UNION ALL SELECT * FROM folded) AS d
  GROUP BY organization_id, company_id HAVING sum(delta) <> 0;
$$;
--> statement-breakpoint
CREATE FUNCTION "roll_up_leads"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  orgs bigint[];
  days date[];
  statuses integer[];
  sources smallint[];
  won boolean[];
  deltas integer[];
  company_orgs bigint[];
  company_ids bigint[];
  company_deltas integer[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(organization_id), array_agg(day), array_agg(status), array_agg(lead_source), array_agg(won_deal), array_agg(n)
      INTO orgs, days, statuses, sources, won, deltas
    FROM (SELECT organization_id, (created_at AT TIME ZONE 'UTC')::date AS day, status, lead_source, won_deals > 0 AS won_deal, count(*)::integer AS n
      FROM new_rows WHERE deleted_at IS NULL GROUP BY 1, 2, 3, 4, 5) AS c;
    SELECT array_agg(organization_id), array_agg(company_id), array_agg(n) INTO company_orgs, company_ids, company_deltas
    FROM (SELECT organization_id, company_id, count(*)::integer AS n
      FROM new_rows WHERE deleted_at IS NULL AND company_id IS NOT NULL GROUP BY 1, 2) AS c;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(organization_id), array_agg(day), array_agg(status), array_agg(lead_source), array_agg(won_deal), array_agg(n)
      INTO orgs, days, statuses, sources, won, deltas
    FROM (SELECT organization_id, (created_at AT TIME ZONE 'UTC')::date AS day, status, lead_source, won_deals > 0 AS won_deal, -count(*)::integer AS n
      FROM old_rows WHERE deleted_at IS NULL GROUP BY 1, 2, 3, 4, 5) AS c;
    SELECT array_agg(organization_id), array_agg(company_id), array_agg(n) INTO company_orgs, company_ids, company_deltas
    FROM (SELECT organization_id, company_id, -count(*)::integer AS n
      FROM old_rows WHERE deleted_at IS NULL AND company_id IS NOT NULL GROUP BY 1, 2) AS c;
  ELSE
    SELECT array_agg(organization_id), array_agg(day), array_agg(status), array_agg(lead_source), array_agg(won_deal), array_agg(n)
      INTO orgs, days, statuses, sources, won, deltas
    FROM (SELECT organization_id, day, status, lead_source, won_deal, sum(d)::integer AS n FROM (
        SELECT organization_id, (created_at AT TIME ZONE 'UTC')::date AS day, status, lead_source, won_deals > 0 AS won_deal, 1 AS d
        FROM new_rows WHERE deleted_at IS NULL
        UNION ALL
        SELECT organization_id, (created_at AT TIME ZONE 'UTC')::date, status, lead_source, won_deals > 0, -1
        FROM old_rows WHERE deleted_at IS NULL
      ) AS moved GROUP BY 1, 2, 3, 4, 5 HAVING sum(d) <> 0) AS c;
    SELECT array_agg(organization_id), array_agg(company_id), array_agg(n) INTO company_orgs, company_ids, company_deltas
    FROM (SELECT organization_id, company_id, sum(d)::integer AS n FROM (
        SELECT organization_id, company_id, 1 AS d FROM new_rows WHERE deleted_at IS NULL AND company_id IS NOT NULL
        UNION ALL
        SELECT organization_id, company_id, -1 FROM old_rows WHERE deleted_at IS NULL AND company_id IS NOT NULL
      ) AS moved GROUP BY 1, 2 HAVING sum(d) <> 0) AS c;
  END IF;
  IF orgs IS NOT NULL THEN PERFORM add_lead_day_counts(orgs, days, statuses, sources, won, deltas); END IF;
  IF company_orgs IS NOT NULL THEN PERFORM add_company_lead_counts(company_orgs, company_ids, company_deltas); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "forget_lead_rollups"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM lead_day_counts;
  DELETE FROM company_lead_counts;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- leads.open_deals and leads.won_deals: the lead's deals by outcome, kept by the writes of deals
-- (any path), so the rollup can count converted leads (status Converted or a won deal) and account
-- health can sum an account's deals from the leads' company index, without reading deals. Only
-- deals whose outcome or lead changes touch a lead, and only leads whose counts change are written
-- (that write moves them between rollup keys).
CREATE FUNCTION "count_lead_deals"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  lead_ids bigint[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(DISTINCT lead_id) INTO lead_ids FROM new_rows WHERE outcome IN ('open', 'won');
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(DISTINCT lead_id) INTO lead_ids FROM old_rows WHERE outcome IN ('open', 'won');
  ELSE
    SELECT array_agg(DISTINCT lead_id) INTO lead_ids FROM (
      SELECT n.lead_id FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE n.outcome IS DISTINCT FROM o.outcome OR n.lead_id IS DISTINCT FROM o.lead_id
      UNION
      SELECT o.lead_id FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE n.outcome IS DISTINCT FROM o.outcome OR n.lead_id IS DISTINCT FROM o.lead_id
    ) AS touched;
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
--> statement-breakpoint
CREATE TRIGGER "deals_lead_counts_insert" AFTER INSERT ON "deals" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_lead_deals();--> statement-breakpoint
CREATE TRIGGER "deals_lead_counts_update" AFTER UPDATE ON "deals" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_lead_deals();--> statement-breakpoint
CREATE TRIGGER "deals_lead_counts_delete" AFTER DELETE ON "deals" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION count_lead_deals();--> statement-breakpoint
UPDATE "leads" SET "open_deals" = c.open_deals, "won_deals" = c.won_deals
  FROM (SELECT lead_id, count(*) FILTER (WHERE outcome = 'open')::integer AS open_deals,
      count(*) FILTER (WHERE outcome = 'won')::integer AS won_deals
    FROM deals GROUP BY lead_id) AS c
  WHERE "leads"."id" = c.lead_id AND (c.open_deals > 0 OR c.won_deals > 0);--> statement-breakpoint
CREATE TRIGGER "leads_rollups_insert" AFTER INSERT ON "leads" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION roll_up_leads();--> statement-breakpoint
CREATE TRIGGER "leads_rollups_update" AFTER UPDATE ON "leads" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION roll_up_leads();--> statement-breakpoint
CREATE TRIGGER "leads_rollups_delete" AFTER DELETE ON "leads" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION roll_up_leads();--> statement-breakpoint
CREATE TRIGGER "leads_rollups_truncate" AFTER TRUNCATE ON "leads" FOR EACH STATEMENT EXECUTE FUNCTION forget_lead_rollups();--> statement-breakpoint
INSERT INTO "lead_day_counts" ("organization_id", "day", "status", "lead_source", "won_deal", "delta")
  SELECT organization_id, (created_at AT TIME ZONE 'UTC')::date, status, lead_source, won_deals > 0, count(*) FROM leads
  WHERE deleted_at IS NULL GROUP BY 1, 2, 3, 4, 5;--> statement-breakpoint
INSERT INTO "company_lead_counts" ("organization_id", "company_id", "delta")
  SELECT organization_id, company_id, count(*) FROM leads
  WHERE deleted_at IS NULL AND company_id IS NOT NULL GROUP BY 1, 2;
