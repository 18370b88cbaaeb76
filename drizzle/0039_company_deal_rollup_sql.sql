-- company_deal_counts: deals by the company they carry (lead_company_id, their live lead's company,
-- 0030/0031) and outcome, with count and value; kept like deal_day_counts (0033) by statement
-- triggers with transition tables, folding each key's unlocked rows (FOR UPDATE SKIP LOCKED).
-- A lead whose company or liveness changes passes it on to its deals (pass_on_lead_company), and
-- that update of deals moves their counts here. A change of anything but the company, outcome or
-- value writes nothing. Top accounts and company stats read open pipeline by company from it.
CREATE FUNCTION "add_company_deal_counts"(orgs bigint[], company_ids bigint[], outcomes text[], deltas integer[], value_sums numeric[]) RETURNS void LANGUAGE sql AS $$
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
$$;
--> statement-breakpoint
CREATE FUNCTION "roll_up_company_deals"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  orgs bigint[];
  company_ids bigint[];
  outcomes text[];
  deltas integer[];
  value_sums numeric[];
BEGIN
  -- Each deal of a company as (company, outcome, count, value), signed +1 (new) or -1 (old).
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(organization_id), array_agg(company_id), array_agg(outcome), array_agg(n), array_agg(v)
      INTO orgs, company_ids, outcomes, deltas, value_sums
    FROM (SELECT organization_id, lead_company_id AS company_id, outcome, count(*)::integer AS n, sum(value)::numeric AS v
      FROM new_rows WHERE lead_company_id IS NOT NULL GROUP BY 1, 2, 3) AS c;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(organization_id), array_agg(company_id), array_agg(outcome), array_agg(n), array_agg(v)
      INTO orgs, company_ids, outcomes, deltas, value_sums
    FROM (SELECT organization_id, lead_company_id AS company_id, outcome, -count(*)::integer AS n, -sum(value)::numeric AS v
      FROM old_rows WHERE lead_company_id IS NOT NULL GROUP BY 1, 2, 3) AS c;
  ELSE
    SELECT array_agg(organization_id), array_agg(company_id), array_agg(outcome), array_agg(n), array_agg(v)
      INTO orgs, company_ids, outcomes, deltas, value_sums
    FROM (SELECT organization_id, company_id, outcome, sum(n)::integer AS n, sum(v) AS v FROM (
        SELECT organization_id, lead_company_id AS company_id, outcome, 1 AS n, value::numeric AS v
        FROM new_rows WHERE lead_company_id IS NOT NULL
        UNION ALL
        SELECT organization_id, lead_company_id, outcome, -1, -value::numeric
        FROM old_rows WHERE lead_company_id IS NOT NULL
      ) AS e GROUP BY 1, 2, 3 HAVING sum(n) <> 0 OR sum(v) <> 0) AS c;
  END IF;
  IF orgs IS NOT NULL THEN PERFORM add_company_deal_counts(orgs, company_ids, outcomes, deltas, value_sums); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "forget_company_deal_counts"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM company_deal_counts;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "deals_company_rollup_insert" AFTER INSERT ON "deals" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION roll_up_company_deals();--> statement-breakpoint
CREATE TRIGGER "deals_company_rollup_update" AFTER UPDATE ON "deals" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION roll_up_company_deals();--> statement-breakpoint
CREATE TRIGGER "deals_company_rollup_delete" AFTER DELETE ON "deals" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION roll_up_company_deals();--> statement-breakpoint
CREATE TRIGGER "deals_company_rollup_truncate" AFTER TRUNCATE ON "deals" FOR EACH STATEMENT EXECUTE FUNCTION forget_company_deal_counts();--> statement-breakpoint
INSERT INTO "company_deal_counts" ("organization_id", "company_id", "outcome", "delta", "value_sum")
  SELECT organization_id, lead_company_id, outcome, count(*), sum(value) FROM deals
  WHERE lead_company_id IS NOT NULL GROUP BY 1, 2, 3;
