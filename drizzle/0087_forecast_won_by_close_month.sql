-- deal_close_month_counts files a won deal under the month it was won (closed_at, UTC), and every
-- other deal under the month of its expected close date. GET /api/forecast/pipeline's `committed`
-- (won value) read won deals by expected close date: a deal expected in July and won on June 5
-- was committed in July and missing from June, and one won in May but expected in June was
-- committed in June. Sales teams read committed as what was won in the period (HubSpot sets a
-- deal's close date when it is won). The trigger keys won deals by their close month and the
-- rollup is counted again.
CREATE OR REPLACE FUNCTION "roll_up_deal_close_months"() RETURNS trigger LANGUAGE plpgsql AS $$
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
    FROM (SELECT organization_id, pipeline_id,
        CASE WHEN outcome = 'won' AND closed_at IS NOT NULL THEN date_trunc('month', closed_at AT TIME ZONE 'UTC')::date
          ELSE date_trunc('month', expected_close_date::timestamp)::date END AS month, outcome,
        count(*)::integer AS n, sum(value)::numeric AS v, coalesce(sum(forecast_weighted_value), 0)::numeric AS w
      FROM new_rows GROUP BY 1, 2, 3, 4) AS c;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(organization_id), array_agg(pipeline_id), array_agg(month), array_agg(outcome), array_agg(n), array_agg(v), array_agg(w)
      INTO orgs, pipeline_ids, months, outcomes, deltas, value_sums, weighted_sums
    FROM (SELECT organization_id, pipeline_id,
        CASE WHEN outcome = 'won' AND closed_at IS NOT NULL THEN date_trunc('month', closed_at AT TIME ZONE 'UTC')::date
          ELSE date_trunc('month', expected_close_date::timestamp)::date END AS month, outcome,
        -count(*)::integer AS n, -sum(value)::numeric AS v, -coalesce(sum(forecast_weighted_value), 0)::numeric AS w
      FROM old_rows GROUP BY 1, 2, 3, 4) AS c;
  ELSE
    SELECT array_agg(organization_id), array_agg(pipeline_id), array_agg(month), array_agg(outcome), array_agg(n), array_agg(v), array_agg(w)
      INTO orgs, pipeline_ids, months, outcomes, deltas, value_sums, weighted_sums
    FROM (SELECT organization_id, pipeline_id, month, outcome, sum(n)::integer AS n, sum(v) AS v, sum(w) AS w FROM (
        SELECT organization_id, pipeline_id,
          CASE WHEN outcome = 'won' AND closed_at IS NOT NULL THEN date_trunc('month', closed_at AT TIME ZONE 'UTC')::date
            ELSE date_trunc('month', expected_close_date::timestamp)::date END AS month, outcome,
          1 AS n, value::numeric AS v, coalesce(forecast_weighted_value, 0)::numeric AS w FROM new_rows
        UNION ALL
        SELECT organization_id, pipeline_id,
          CASE WHEN outcome = 'won' AND closed_at IS NOT NULL THEN date_trunc('month', closed_at AT TIME ZONE 'UTC')::date
            ELSE date_trunc('month', expected_close_date::timestamp)::date END, outcome,
          -1, -value::numeric, -coalesce(forecast_weighted_value, 0)::numeric FROM old_rows
      ) AS moved GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0 OR sum(v) <> 0 OR sum(w) <> 0) AS c;
  END IF;
  IF orgs IS NOT NULL THEN
    PERFORM add_deal_close_month_counts(orgs, pipeline_ids, months, outcomes, deltas, value_sums, weighted_sums);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
DELETE FROM "deal_close_month_counts";--> statement-breakpoint
INSERT INTO "deal_close_month_counts" ("organization_id", "pipeline_id", "month", "outcome", "delta", "value_sum", "weighted_sum")
  SELECT organization_id, pipeline_id,
    CASE WHEN outcome = 'won' AND closed_at IS NOT NULL THEN date_trunc('month', closed_at AT TIME ZONE 'UTC')::date
      ELSE date_trunc('month', expected_close_date::timestamp)::date END,
    outcome, count(*), sum(value), coalesce(sum(forecast_weighted_value), 0)
  FROM deals GROUP BY 1, 2, 3, 4;
