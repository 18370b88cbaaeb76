-- company_signal_counts: intent signals by the company they carry (lead_company_id, 0024/0025) and
-- 5-day bucket of their UTC day, kept like deal_day_counts (0033) by statement triggers with
-- transition tables, folding each key's unlocked rows (FOR UPDATE SKIP LOCKED). A lead whose
-- company or liveness changes passes it on to its signals (pass_on_lead_company), and that update
-- moves their counts here. Top accounts by engagement reads a window's whole buckets from it and
-- only the signals of the window's two partial ends from intent_signals.
-- The bucket of an instant: the first day of its 5-day bucket, counted in UTC days from 1970-01-01.
-- The reader (src/modules/analytics/top-accounts.ts, ENGAGEMENT_BUCKET_DAYS) computes the same bounds.
CREATE FUNCTION "engagement_bucket"(at timestamptz) RETURNS date LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT date '1970-01-01' + (floor(((at AT TIME ZONE 'UTC')::date - date '1970-01-01') / 5.0) * 5)::integer
$$;
--> statement-breakpoint
CREATE FUNCTION "add_company_signal_counts"(orgs bigint[], company_ids bigint[], buckets date[], deltas integer[]) RETURNS void LANGUAGE sql AS $$
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
$$;
--> statement-breakpoint
CREATE FUNCTION "roll_up_company_signals"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  orgs bigint[];
  company_ids bigint[];
  buckets date[];
  deltas integer[];
BEGIN
  -- Each signal of a company as (company, bucket), signed +1 (new) or -1 (old).
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(organization_id), array_agg(company_id), array_agg(bucket), array_agg(n)
      INTO orgs, company_ids, buckets, deltas
    FROM (SELECT organization_id, lead_company_id AS company_id, engagement_bucket(occurred_at) AS bucket, count(*)::integer AS n
      FROM new_rows WHERE lead_company_id IS NOT NULL GROUP BY 1, 2, 3) AS c;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(organization_id), array_agg(company_id), array_agg(bucket), array_agg(n)
      INTO orgs, company_ids, buckets, deltas
    FROM (SELECT organization_id, lead_company_id AS company_id, engagement_bucket(occurred_at) AS bucket, -count(*)::integer AS n
      FROM old_rows WHERE lead_company_id IS NOT NULL GROUP BY 1, 2, 3) AS c;
  ELSE
    SELECT array_agg(organization_id), array_agg(company_id), array_agg(bucket), array_agg(n)
      INTO orgs, company_ids, buckets, deltas
    FROM (SELECT organization_id, company_id, bucket, sum(n)::integer AS n FROM (
        SELECT organization_id, lead_company_id AS company_id, engagement_bucket(occurred_at) AS bucket, 1 AS n
        FROM new_rows WHERE lead_company_id IS NOT NULL
        UNION ALL
        SELECT organization_id, lead_company_id, engagement_bucket(occurred_at), -1
        FROM old_rows WHERE lead_company_id IS NOT NULL
      ) AS e GROUP BY 1, 2, 3 HAVING sum(n) <> 0) AS c;
  END IF;
  IF orgs IS NOT NULL THEN PERFORM add_company_signal_counts(orgs, company_ids, buckets, deltas); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "forget_company_signal_counts"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM company_signal_counts;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "intent_signals_company_rollup_insert" AFTER INSERT ON "intent_signals" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION roll_up_company_signals();--> statement-breakpoint
CREATE TRIGGER "intent_signals_company_rollup_update" AFTER UPDATE ON "intent_signals" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION roll_up_company_signals();--> statement-breakpoint
CREATE TRIGGER "intent_signals_company_rollup_delete" AFTER DELETE ON "intent_signals" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION roll_up_company_signals();--> statement-breakpoint
CREATE TRIGGER "intent_signals_company_rollup_truncate" AFTER TRUNCATE ON "intent_signals" FOR EACH STATEMENT EXECUTE FUNCTION forget_company_signal_counts();--> statement-breakpoint
INSERT INTO "company_signal_counts" ("organization_id", "company_id", "bucket", "delta")
  SELECT organization_id, lead_company_id, engagement_bucket(occurred_at), count(*) FROM intent_signals
  WHERE lead_company_id IS NOT NULL GROUP BY 1, 2, 3;
