-- deals.forecast_weighted_value / forecast_snapshot_date: the deal's latest forecast snapshot
-- (the newest snapshot_date), kept by statement triggers on deal_forecasts for every path that
-- writes or removes snapshots (deal changes, the nightly run, deletes): the touched deals' latest
-- snapshot is read again (one index probe each) and written only where it changed.
CREATE FUNCTION "take_latest_forecast"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  orgs bigint[];
  deal_ids bigint[];
BEGIN
  IF TG_OP = 'DELETE' THEN
    SELECT array_agg(DISTINCT organization_id), array_agg(DISTINCT deal_id) INTO orgs, deal_ids FROM old_rows;
  ELSE
    SELECT array_agg(DISTINCT organization_id), array_agg(DISTINCT deal_id) INTO orgs, deal_ids FROM new_rows;
  END IF;
  IF deal_ids IS NOT NULL THEN
    UPDATE deals d SET forecast_weighted_value = f.weighted_value, forecast_snapshot_date = f.snapshot_date
    FROM (SELECT x.id, x.organization_id, latest.weighted_value, latest.snapshot_date FROM deals x
      LEFT JOIN LATERAL (SELECT s.weighted_value, s.snapshot_date FROM deal_forecasts s
        WHERE s.organization_id = x.organization_id AND s.deal_id = x.id ORDER BY s.snapshot_date DESC LIMIT 1) AS latest ON true
      WHERE x.organization_id = ANY (orgs) AND x.id = ANY (deal_ids)) AS f
    WHERE d.id = f.id AND d.organization_id = f.organization_id
      AND (d.forecast_weighted_value IS DISTINCT FROM f.weighted_value OR d.forecast_snapshot_date IS DISTINCT FROM f.snapshot_date);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "deal_forecasts_latest_insert" AFTER INSERT ON "deal_forecasts" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION take_latest_forecast();--> statement-breakpoint
CREATE TRIGGER "deal_forecasts_latest_update" AFTER UPDATE ON "deal_forecasts" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION take_latest_forecast();--> statement-breakpoint
CREATE TRIGGER "deal_forecasts_latest_delete" AFTER DELETE ON "deal_forecasts" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION take_latest_forecast();--> statement-breakpoint
UPDATE "deals" SET "forecast_weighted_value" = f.weighted_value, "forecast_snapshot_date" = f.snapshot_date
  FROM (SELECT DISTINCT ON (deal_id) deal_id, snapshot_date, weighted_value FROM deal_forecasts ORDER BY deal_id, snapshot_date DESC) AS f
  WHERE "deals"."id" = f.deal_id;--> statement-breakpoint
-- deal_close_month_counts: deals by pipeline, month of expected close and outcome, with count,
-- value and latest weighted value, kept like deal_day_counts (0033) by statement triggers with
-- transition tables, folding each key's unlocked rows (FOR UPDATE SKIP LOCKED).
CREATE FUNCTION "add_deal_close_month_counts"(orgs bigint[], pipeline_ids bigint[], months date[], outcomes text[], deltas integer[], value_sums numeric[], weighted_sums numeric[]) RETURNS void LANGUAGE sql AS $$
  WITH changes AS (
    SELECT * FROM unnest(orgs, pipeline_ids, months, outcomes, deltas, value_sums, weighted_sums)
      AS c(organization_id, pipeline_id, month, outcome, delta, value_sum, weighted_sum)
  ), folded AS (
    DELETE FROM deal_close_month_counts WHERE id IN (
      SELECT r.id FROM deal_close_month_counts r JOIN changes c ON r.organization_id = c.organization_id
        AND r.pipeline_id = c.pipeline_id AND r.month = c.month AND r.outcome = c.outcome
      FOR UPDATE OF r SKIP LOCKED)
    RETURNING organization_id, pipeline_id, month, outcome, delta, value_sum, weighted_sum
  )
  INSERT INTO deal_close_month_counts (organization_id, pipeline_id, month, outcome, delta, value_sum, weighted_sum)
  SELECT organization_id, pipeline_id, month, outcome, sum(delta), sum(value_sum), sum(weighted_sum)
  FROM (SELECT * FROM changes UNION ALL SELECT * FROM folded) AS d
  GROUP BY organization_id, pipeline_id, month, outcome HAVING sum(delta) <> 0 OR sum(value_sum) <> 0 OR sum(weighted_sum) <> 0;
$$;
--> statement-breakpoint
CREATE FUNCTION "roll_up_deal_close_months"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  orgs bigint[];
  pipeline_ids bigint[];
  months date[];
  outcomes text[];
  deltas integer[];
  value_sums numeric[];
  weighted_sums numeric[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(organization_id), array_agg(pipeline_id), array_agg(month), array_agg(outcome), array_agg(n), array_agg(v), array_agg(w)
      INTO orgs, pipeline_ids, months, outcomes, deltas, value_sums, weighted_sums
    FROM (SELECT organization_id, pipeline_id, date_trunc('month', expected_close_date::timestamp)::date AS month, outcome,
        count(*)::integer AS n, sum(value)::numeric AS v, coalesce(sum(forecast_weighted_value), 0)::numeric AS w
      FROM new_rows GROUP BY 1, 2, 3, 4) AS c;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(organization_id), array_agg(pipeline_id), array_agg(month), array_agg(outcome), array_agg(n), array_agg(v), array_agg(w)
      INTO orgs, pipeline_ids, months, outcomes, deltas, value_sums, weighted_sums
    FROM (SELECT organization_id, pipeline_id, date_trunc('month', expected_close_date::timestamp)::date AS month, outcome,
        -count(*)::integer AS n, -sum(value)::numeric AS v, -coalesce(sum(forecast_weighted_value), 0)::numeric AS w
      FROM old_rows GROUP BY 1, 2, 3, 4) AS c;
  ELSE
    SELECT array_agg(organization_id), array_agg(pipeline_id), array_agg(month), array_agg(outcome), array_agg(n), array_agg(v), array_agg(w)
      INTO orgs, pipeline_ids, months, outcomes, deltas, value_sums, weighted_sums
    FROM (SELECT organization_id, pipeline_id, month, outcome, sum(n)::integer AS n, sum(v) AS v, sum(w) AS w FROM (
        SELECT organization_id, pipeline_id, date_trunc('month', expected_close_date::timestamp)::date AS month, outcome,
          1 AS n, value::numeric AS v, coalesce(forecast_weighted_value, 0)::numeric AS w FROM new_rows
        UNION ALL
        SELECT organization_id, pipeline_id, date_trunc('month', expected_close_date::timestamp)::date, outcome,
          -1, -value::numeric, -coalesce(forecast_weighted_value, 0)::numeric FROM old_rows
      ) AS moved GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0 OR sum(v) <> 0 OR sum(w) <> 0) AS c;
  END IF;
  IF orgs IS NOT NULL THEN
    PERFORM add_deal_close_month_counts(orgs, pipeline_ids, months, outcomes, deltas, value_sums, weighted_sums);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "forget_deal_rollups"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM deal_day_counts;
  DELETE FROM deal_close_month_counts;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "deals_close_month_rollup_insert" AFTER INSERT ON "deals" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION roll_up_deal_close_months();--> statement-breakpoint
CREATE TRIGGER "deals_close_month_rollup_update" AFTER UPDATE ON "deals" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION roll_up_deal_close_months();--> statement-breakpoint
CREATE TRIGGER "deals_close_month_rollup_delete" AFTER DELETE ON "deals" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION roll_up_deal_close_months();--> statement-breakpoint
INSERT INTO "deal_close_month_counts" ("organization_id", "pipeline_id", "month", "outcome", "delta", "value_sum", "weighted_sum")
  SELECT organization_id, pipeline_id, date_trunc('month', expected_close_date::timestamp)::date, outcome,
    count(*), sum(value), coalesce(sum(forecast_weighted_value), 0)
  FROM deals GROUP BY 1, 2, 3, 4;
