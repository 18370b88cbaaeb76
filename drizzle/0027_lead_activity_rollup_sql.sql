-- lead_activity_day_counts: live leads by UTC day of last activity (null: none yet) and status, for
-- lead aging, kept like lead_day_counts (0023): one statement-level trigger per write with
-- transition tables, each statement appending its net change per key and folding the key's
-- unlocked rows (FOR UPDATE SKIP LOCKED). A lead moves between keys on its first activity of a UTC
-- day, a status change, deletion or restore; later activity the same day writes nothing here.
CREATE FUNCTION "add_lead_activity_day_counts"(orgs bigint[], days date[], statuses integer[], deltas integer[]) RETURNS void LANGUAGE sql AS $$
  WITH changes AS (
    SELECT * FROM unnest(orgs, days, statuses, deltas) AS c(organization_id, day, status, delta)
  ), folded AS (
    DELETE FROM lead_activity_day_counts WHERE id IN (
      SELECT r.id FROM lead_activity_day_counts r JOIN changes c ON r.organization_id = c.organization_id
        AND r.day IS NOT DISTINCT FROM c.day AND r.status = c.status
      FOR UPDATE OF r SKIP LOCKED)
    RETURNING organization_id, day, status, delta
  )
  INSERT INTO lead_activity_day_counts (organization_id, day, status, delta)
  SELECT organization_id, day, status, sum(delta) FROM (SELECT * FROM changes UNION ALL SELECT * FROM folded) AS d
  GROUP BY organization_id, day, status HAVING sum(delta) <> 0;
$$;
--> statement-breakpoint
CREATE FUNCTION "roll_up_lead_activity"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  orgs bigint[];
  days date[];
  statuses integer[];
  deltas integer[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(organization_id), array_agg(day), array_agg(status), array_agg(n) INTO orgs, days, statuses, deltas
    FROM (SELECT organization_id, (last_activity_at AT TIME ZONE 'UTC')::date AS day, status, count(*)::integer AS n
      FROM new_rows WHERE deleted_at IS NULL GROUP BY 1, 2, 3) AS c;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(organization_id), array_agg(day), array_agg(status), array_agg(n) INTO orgs, days, statuses, deltas
    FROM (SELECT organization_id, (last_activity_at AT TIME ZONE 'UTC')::date AS day, status, -count(*)::integer AS n
      FROM old_rows WHERE deleted_at IS NULL GROUP BY 1, 2, 3) AS c;
  ELSE
    SELECT array_agg(organization_id), array_agg(day), array_agg(status), array_agg(n) INTO orgs, days, statuses, deltas
    FROM (SELECT organization_id, day, status, sum(d)::integer AS n FROM (
        SELECT organization_id, (last_activity_at AT TIME ZONE 'UTC')::date AS day, status, 1 AS d
        FROM new_rows WHERE deleted_at IS NULL
        UNION ALL
        SELECT organization_id, (last_activity_at AT TIME ZONE 'UTC')::date, status, -1
        FROM old_rows WHERE deleted_at IS NULL
      ) AS moved GROUP BY 1, 2, 3 HAVING sum(d) <> 0) AS c;
  END IF;
  IF orgs IS NOT NULL THEN PERFORM add_lead_activity_day_counts(orgs, days, statuses, deltas); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "forget_lead_rollups"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM lead_day_counts;
  DELETE FROM company_lead_counts;
  DELETE FROM lead_activity_day_counts;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "leads_activity_rollup_insert" AFTER INSERT ON "leads" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION roll_up_lead_activity();--> statement-breakpoint
CREATE TRIGGER "leads_activity_rollup_update" AFTER UPDATE ON "leads" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION roll_up_lead_activity();--> statement-breakpoint
CREATE TRIGGER "leads_activity_rollup_delete" AFTER DELETE ON "leads" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION roll_up_lead_activity();--> statement-breakpoint
INSERT INTO "lead_activity_day_counts" ("organization_id", "day", "status", "delta")
  SELECT organization_id, (last_activity_at AT TIME ZONE 'UTC')::date, status, count(*) FROM leads
  WHERE deleted_at IS NULL GROUP BY 1, 2, 3;
