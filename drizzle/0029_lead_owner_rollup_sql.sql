-- lead_owner_counts: live leads and the sum of their scores by assigned user, status and source,
-- kept like lead_day_counts (0023): one statement-level trigger per write with transition tables,
-- each statement appending its net change per key (leads and score) and folding the key's unlocked
-- rows (FOR UPDATE SKIP LOCKED). An update that changes none of owner, status, source, score or
-- liveness writes nothing.
CREATE FUNCTION "add_lead_owner_counts"(orgs bigint[], owners bigint[], statuses integer[], sources smallint[], deltas integer[], scores bigint[]) RETURNS void LANGUAGE sql AS $$
  WITH changes AS (
    SELECT * FROM unnest(orgs, owners, statuses, sources, deltas, scores) AS c(organization_id, assigned_to, status, lead_source, delta, score_sum)
  ), folded AS (
    DELETE FROM lead_owner_counts WHERE id IN (
      SELECT r.id FROM lead_owner_counts r JOIN changes c ON r.organization_id = c.organization_id
        AND r.assigned_to IS NOT DISTINCT FROM c.assigned_to AND r.status = c.status AND r.lead_source IS NOT DISTINCT FROM c.lead_source
      FOR UPDATE OF r SKIP LOCKED)
    RETURNING organization_id, assigned_to, status, lead_source, delta, score_sum
  )
  INSERT INTO lead_owner_counts (organization_id, assigned_to, status, lead_source, delta, score_sum)
  SELECT organization_id, assigned_to, status, lead_source, sum(delta), sum(score_sum)
  FROM (SELECT * FROM changes UNION ALL SELECT * FROM folded) AS d
  GROUP BY organization_id, assigned_to, status, lead_source HAVING sum(delta) <> 0 OR sum(score_sum) <> 0;
$$;
--> statement-breakpoint
CREATE FUNCTION "roll_up_lead_owners"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  orgs bigint[];
  owners bigint[];
  statuses integer[];
  sources smallint[];
  deltas integer[];
  scores bigint[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(organization_id), array_agg(assigned_to), array_agg(status), array_agg(lead_source), array_agg(n), array_agg(s)
      INTO orgs, owners, statuses, sources, deltas, scores
    FROM (SELECT organization_id, assigned_to, status, lead_source, count(*)::integer AS n, sum(score)::bigint AS s
      FROM new_rows WHERE deleted_at IS NULL GROUP BY 1, 2, 3, 4) AS c;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(organization_id), array_agg(assigned_to), array_agg(status), array_agg(lead_source), array_agg(n), array_agg(s)
      INTO orgs, owners, statuses, sources, deltas, scores
    FROM (SELECT organization_id, assigned_to, status, lead_source, -count(*)::integer AS n, -sum(score)::bigint AS s
      FROM old_rows WHERE deleted_at IS NULL GROUP BY 1, 2, 3, 4) AS c;
  ELSE
    SELECT array_agg(organization_id), array_agg(assigned_to), array_agg(status), array_agg(lead_source), array_agg(n), array_agg(s)
      INTO orgs, owners, statuses, sources, deltas, scores
    FROM (SELECT organization_id, assigned_to, status, lead_source, sum(d)::integer AS n, sum(score)::bigint AS s FROM (
        SELECT organization_id, assigned_to, status, lead_source, 1 AS d, score::bigint AS score
        FROM new_rows WHERE deleted_at IS NULL
        UNION ALL
        SELECT organization_id, assigned_to, status, lead_source, -1, -score::bigint
        FROM old_rows WHERE deleted_at IS NULL
      ) AS moved GROUP BY 1, 2, 3, 4 HAVING sum(d) <> 0 OR sum(score) <> 0) AS c;
  END IF;
  IF orgs IS NOT NULL THEN PERFORM add_lead_owner_counts(orgs, owners, statuses, sources, deltas, scores); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "forget_lead_rollups"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM lead_day_counts;
  DELETE FROM company_lead_counts;
  DELETE FROM lead_activity_day_counts;
  DELETE FROM lead_owner_counts;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "leads_owner_rollup_insert" AFTER INSERT ON "leads" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION roll_up_lead_owners();--> statement-breakpoint
CREATE TRIGGER "leads_owner_rollup_update" AFTER UPDATE ON "leads" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION roll_up_lead_owners();--> statement-breakpoint
CREATE TRIGGER "leads_owner_rollup_delete" AFTER DELETE ON "leads" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION roll_up_lead_owners();--> statement-breakpoint
INSERT INTO "lead_owner_counts" ("organization_id", "assigned_to", "status", "lead_source", "delta", "score_sum")
  SELECT organization_id, assigned_to, status, lead_source, count(*), sum(score) FROM leads
  WHERE deleted_at IS NULL GROUP BY 1, 2, 3, 4;
