-- The rollup writers (add_*_counts, add_live_rows) become PL/pgSQL with the same bodies. As
-- LANGUAGE sql functions that the planner cannot inline (they write), PostgreSQL parsed and
-- planned each body on every call: every statement-level trigger of a write to leads, deals or
-- intent signals paid it again. PL/pgSQL keeps each body's plan for the backend's life. Measured
-- on PostgreSQL 15, a one-row lead insert with its five triggers on a warm backend: 3.5 -> 1.7 ms
-- (docs/benchmarks.md, fourteenth round). `#variable_conflict use_column` keeps SQL functions'
-- rule that a column name wins over a parameter of the same name.
CREATE OR REPLACE FUNCTION public.add_company_deal_counts(orgs bigint[], company_ids bigint[], outcomes text[], deltas integer[], value_sums numeric[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
#variable_conflict use_column
BEGIN
  WITH changes AS (
    SELECT * FROM unnest(orgs, company_ids, outcomes, deltas, value_sums) AS c(organization_id, company_id, outcome, delta, value_sum)
  ), folded AS (
    DELETE FROM company_deal_counts WHERE id IN (
      SELECT r.id FROM company_deal_counts r
      JOIN changes c ON r.organization_id = c.organization_id AND r.company_id = c.company_id AND r.outcome = c.outcome
      FOR UPDATE OF r SKIP LOCKED)
    RETURNING organization_id, company_id, outcome, delta, value_sum
  )
  INSERT INTO company_deal_counts (organization_id, company_id, outcome, delta, value_sum)
  SELECT organization_id, company_id, outcome, sum(delta), sum(value_sum)
  FROM (SELECT * FROM changes UNION ALL SELECT * FROM folded) AS d
  GROUP BY organization_id, company_id, outcome HAVING sum(delta) <> 0 OR sum(value_sum) <> 0;
END
$function$;

--> statement-breakpoint
CREATE OR REPLACE FUNCTION public.add_company_lead_counts(orgs bigint[], company_ids bigint[], deltas integer[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
#variable_conflict use_column
BEGIN
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
END
$function$;

--> statement-breakpoint
CREATE OR REPLACE FUNCTION public.add_company_signal_counts(orgs bigint[], company_ids bigint[], buckets date[], deltas integer[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
#variable_conflict use_column
BEGIN
  WITH changes AS (
    SELECT * FROM unnest(orgs, company_ids, buckets, deltas) AS c(organization_id, company_id, bucket, delta)
  ), folded AS (
    DELETE FROM company_signal_counts WHERE id IN (
      SELECT r.id FROM company_signal_counts r
      JOIN changes c ON r.organization_id = c.organization_id AND r.company_id = c.company_id AND r.bucket = c.bucket
      FOR UPDATE OF r SKIP LOCKED)
    RETURNING organization_id, company_id, bucket, delta
  )
  INSERT INTO company_signal_counts (organization_id, company_id, bucket, delta)
  SELECT organization_id, company_id, bucket, sum(delta)
  FROM (SELECT * FROM changes UNION ALL SELECT * FROM folded) AS d
  GROUP BY organization_id, company_id, bucket HAVING sum(delta) <> 0;
END
$function$;

--> statement-breakpoint
CREATE OR REPLACE FUNCTION public.add_deal_close_month_counts(orgs bigint[], pipeline_ids bigint[], months date[], outcomes text[], deltas integer[], value_sums numeric[], weighted_sums numeric[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
#variable_conflict use_column
BEGIN
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
END
$function$;

--> statement-breakpoint
CREATE OR REPLACE FUNCTION public.add_deal_day_counts(orgs bigint[], days date[], events text[], deltas integer[], value_sums numeric[], convert_sums numeric[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
#variable_conflict use_column
BEGIN
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
END
$function$;

--> statement-breakpoint
CREATE OR REPLACE FUNCTION public.add_lead_activity_day_counts(orgs bigint[], days date[], statuses integer[], deltas integer[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
#variable_conflict use_column
BEGIN
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
END
$function$;

--> statement-breakpoint
CREATE OR REPLACE FUNCTION public.add_lead_day_counts(orgs bigint[], days date[], statuses integer[], sources smallint[], won boolean[], deltas integer[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
#variable_conflict use_column
BEGIN
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
END
$function$;

--> statement-breakpoint
CREATE OR REPLACE FUNCTION public.add_lead_owner_counts(orgs bigint[], owners bigint[], statuses integer[], sources smallint[], deltas integer[], scores bigint[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
#variable_conflict use_column
BEGIN
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
END
$function$;

--> statement-breakpoint
CREATE OR REPLACE FUNCTION public.add_live_rows(target text, orgs bigint[], deltas bigint[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
#variable_conflict use_column
BEGIN
  WITH changes AS (
    SELECT c.organization_id, c.delta FROM unnest(orgs, deltas) AS c(organization_id, delta) WHERE c.delta <> 0
  ), folded AS (
    DELETE FROM live_row_counts WHERE id IN (
      SELECT id FROM live_row_counts
      WHERE relation = target AND organization_id IN (SELECT organization_id FROM changes)
      FOR UPDATE SKIP LOCKED)
    RETURNING organization_id, delta
  )
  INSERT INTO live_row_counts (organization_id, relation, delta)
  SELECT organization_id, target, sum(delta) FROM (SELECT * FROM changes UNION ALL SELECT * FROM folded) AS d
  GROUP BY organization_id HAVING sum(delta) <> 0;
END
$function$;
