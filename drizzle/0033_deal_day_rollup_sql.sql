-- deals.lead_created_at: the creation time of the deal's lead, carried like lead_company_id (0025,
-- 0031) so days to convert need no lead. A deal takes both when inserted or moved to another lead;
-- a lead whose company, liveness or creation time changes passes them on.
CREATE FUNCTION "take_deal_lead_facts"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT CASE WHEN l.deleted_at IS NULL THEN l.company_id END, l.created_at INTO NEW.lead_company_id, NEW.lead_created_at
  FROM leads l WHERE l.id = NEW.lead_id AND l.organization_id = NEW.organization_id;
  RETURN NEW;
END $$;
--> statement-breakpoint
DROP TRIGGER "deals_lead_company" ON "deals";--> statement-breakpoint
CREATE TRIGGER "deals_lead_facts" BEFORE INSERT OR UPDATE OF "lead_id" ON "deals" FOR EACH ROW EXECUTE FUNCTION take_deal_lead_facts();--> statement-breakpoint
CREATE OR REPLACE FUNCTION "pass_on_lead_company"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  orgs bigint[];
  lead_ids bigint[];
  company_ids bigint[];
  created timestamptz[];
BEGIN
  SELECT array_agg(n.organization_id), array_agg(n.id), array_agg(CASE WHEN n.deleted_at IS NULL THEN n.company_id END), array_agg(n.created_at)
    INTO orgs, lead_ids, company_ids, created
  FROM new_rows n JOIN old_rows o ON o.id = n.id
  WHERE n.company_id IS DISTINCT FROM o.company_id OR (n.deleted_at IS NULL) <> (o.deleted_at IS NULL)
    OR n.created_at IS DISTINCT FROM o.created_at;
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
UPDATE "deals" SET "lead_created_at" = l.created_at FROM leads l WHERE l.id = "deals"."lead_id";--> statement-breakpoint
-- deal_day_counts: every deal under `created` on its UTC day of creation, and under its outcome on
-- its UTC day of closing when closed_at is set, with count, value and (won) days from the lead's
-- creation; kept like lead_day_counts (0023) by statement triggers with transition tables, folding
-- each key's unlocked rows (FOR UPDATE SKIP LOCKED). A change of title, stage within the open ones,
-- owner or dates other than these writes nothing.
CREATE FUNCTION "add_deal_day_counts"(orgs bigint[], days date[], events text[], deltas integer[], value_sums numeric[], convert_sums numeric[]) RETURNS void LANGUAGE sql AS $$
  WITH changes AS (
    SELECT * FROM unnest(orgs, days, events, deltas, value_sums, convert_sums) AS c(organization_id, day, event, delta, value_sum, convert_days_sum)
  ), folded AS (
    DELETE FROM deal_day_counts WHERE id IN (
      SELECT r.id FROM deal_day_counts r JOIN changes c ON r.organization_id = c.organization_id AND r.day = c.day AND r.event = c.event
      FOR UPDATE OF r SKIP LOCKED)
    RETURNING organization_id, day, event, delta, value_sum, convert_days_sum
  )
  INSERT INTO deal_day_counts (organization_id, day, event, delta, value_sum, convert_days_sum)
  SELECT organization_id, day, event, sum(delta), sum(value_sum), sum(convert_days_sum)
  FROM (SELECT * FROM changes UNION ALL SELECT * FROM folded) AS d
  GROUP BY organization_id, day, event HAVING sum(delta) <> 0 OR sum(value_sum) <> 0 OR sum(convert_days_sum) <> 0;
$$;
--> statement-breakpoint
CREATE FUNCTION "roll_up_deals"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  orgs bigint[];
  days date[];
  events text[];
  deltas integer[];
  value_sums numeric[];
  convert_sums numeric[];
BEGIN
  -- Each deal row as its events: (day, event, count, value, days to convert), signed +1 (new) or -1 (old).
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(organization_id), array_agg(day), array_agg(event), array_agg(n), array_agg(v), array_agg(c)
      INTO orgs, days, events, deltas, value_sums, convert_sums
    FROM (SELECT organization_id, day, event, sum(n)::integer AS n, sum(v) AS v, sum(c) AS c FROM (
        SELECT organization_id, (created_at AT TIME ZONE 'UTC')::date AS day, 'created' AS event, 1 AS n, value::numeric AS v, 0::numeric AS c FROM new_rows
        UNION ALL
        SELECT organization_id, (closed_at AT TIME ZONE 'UTC')::date, outcome, 1, value,
          CASE WHEN outcome = 'won' THEN coalesce(extract(epoch FROM closed_at - lead_created_at) / 86400, 0) ELSE 0 END
        FROM new_rows WHERE closed_at IS NOT NULL
      ) AS e GROUP BY 1, 2, 3) AS c;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(organization_id), array_agg(day), array_agg(event), array_agg(n), array_agg(v), array_agg(c)
      INTO orgs, days, events, deltas, value_sums, convert_sums
    FROM (SELECT organization_id, day, event, sum(n)::integer AS n, sum(v) AS v, sum(c) AS c FROM (
        SELECT organization_id, (created_at AT TIME ZONE 'UTC')::date AS day, 'created' AS event, -1 AS n, -value::numeric AS v, 0::numeric AS c FROM old_rows
        UNION ALL
        SELECT organization_id, (closed_at AT TIME ZONE 'UTC')::date, outcome, -1, -value,
          CASE WHEN outcome = 'won' THEN -coalesce(extract(epoch FROM closed_at - lead_created_at) / 86400, 0) ELSE 0 END
        FROM old_rows WHERE closed_at IS NOT NULL
      ) AS e GROUP BY 1, 2, 3) AS c;
  ELSE
    SELECT array_agg(organization_id), array_agg(day), array_agg(event), array_agg(n), array_agg(v), array_agg(c)
      INTO orgs, days, events, deltas, value_sums, convert_sums
    FROM (SELECT organization_id, day, event, sum(n)::integer AS n, sum(v) AS v, sum(c) AS c FROM (
        SELECT organization_id, (created_at AT TIME ZONE 'UTC')::date AS day, 'created' AS event, 1 AS n, value::numeric AS v, 0::numeric AS c FROM new_rows
        UNION ALL
        SELECT organization_id, (closed_at AT TIME ZONE 'UTC')::date, outcome, 1, value,
          CASE WHEN outcome = 'won' THEN coalesce(extract(epoch FROM closed_at - lead_created_at) / 86400, 0) ELSE 0 END
        FROM new_rows WHERE closed_at IS NOT NULL
        UNION ALL
        SELECT organization_id, (created_at AT TIME ZONE 'UTC')::date, 'created', -1, -value::numeric, 0::numeric FROM old_rows
        UNION ALL
        SELECT organization_id, (closed_at AT TIME ZONE 'UTC')::date, outcome, -1, -value,
          CASE WHEN outcome = 'won' THEN -coalesce(extract(epoch FROM closed_at - lead_created_at) / 86400, 0) ELSE 0 END
        FROM old_rows WHERE closed_at IS NOT NULL
      ) AS e GROUP BY 1, 2, 3 HAVING sum(n) <> 0 OR sum(v) <> 0 OR sum(c) <> 0) AS c;
  END IF;
  IF orgs IS NOT NULL THEN PERFORM add_deal_day_counts(orgs, days, events, deltas, value_sums, convert_sums); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "forget_deal_rollups"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM deal_day_counts;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "deals_rollup_insert" AFTER INSERT ON "deals" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION roll_up_deals();--> statement-breakpoint
CREATE TRIGGER "deals_rollup_update" AFTER UPDATE ON "deals" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION roll_up_deals();--> statement-breakpoint
CREATE TRIGGER "deals_rollup_delete" AFTER DELETE ON "deals" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION roll_up_deals();--> statement-breakpoint
CREATE TRIGGER "deals_rollup_truncate" AFTER TRUNCATE ON "deals" FOR EACH STATEMENT EXECUTE FUNCTION forget_deal_rollups();--> statement-breakpoint
INSERT INTO "deal_day_counts" ("organization_id", "day", "event", "delta", "value_sum", "convert_days_sum")
  SELECT organization_id, day, event, sum(n), sum(v), sum(c) FROM (
    SELECT organization_id, (created_at AT TIME ZONE 'UTC')::date AS day, 'created' AS event, 1 AS n, value::numeric AS v, 0::numeric AS c FROM deals
    UNION ALL
    SELECT organization_id, (closed_at AT TIME ZONE 'UTC')::date, outcome, 1, value,
      CASE WHEN outcome = 'won' THEN coalesce(extract(epoch FROM closed_at - lead_created_at) / 86400, 0) ELSE 0 END
    FROM deals WHERE closed_at IS NOT NULL
  ) AS e GROUP BY 1, 2, 3;
