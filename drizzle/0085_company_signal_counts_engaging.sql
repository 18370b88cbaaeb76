-- company_signal_counts holds only the signals a person made: an open a mail client's proxy
-- prefetched (signal_type email_opened with signal_detail {"adjusted": true}, tracking/prefetch.ts:
-- Apple Mail Privacy Protection fetches every image on delivery) is kept as a record and is worth
-- nothing to the intent score; top accounts' engagement counted it, so every contact that merely
-- received an email made its company engaged. The trigger leaves such signals out, as the readers
-- of intent_signals do (intent's engagingSignal), and the rollup is counted again.
CREATE OR REPLACE FUNCTION "roll_up_company_signals"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  orgs bigint[];
  company_ids bigint[];
  buckets date[];
  deltas integer[];
BEGIN
  -- Each engaging signal of a company as (company, bucket), signed +1 (new) or -1 (old).
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(organization_id), array_agg(company_id), array_agg(bucket), array_agg(n)
      INTO orgs, company_ids, buckets, deltas
    FROM (SELECT organization_id, lead_company_id AS company_id, engagement_bucket(occurred_at) AS bucket, count(*)::integer AS n
      FROM new_rows WHERE lead_company_id IS NOT NULL
        AND NOT (signal_type = 'email_opened' AND signal_detail @> '{"adjusted": true}'::jsonb)
      GROUP BY 1, 2, 3) AS c;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(organization_id), array_agg(company_id), array_agg(bucket), array_agg(n)
      INTO orgs, company_ids, buckets, deltas
    FROM (SELECT organization_id, lead_company_id AS company_id, engagement_bucket(occurred_at) AS bucket, -count(*)::integer AS n
      FROM old_rows WHERE lead_company_id IS NOT NULL
        AND NOT (signal_type = 'email_opened' AND signal_detail @> '{"adjusted": true}'::jsonb)
      GROUP BY 1, 2, 3) AS c;
  ELSE
    SELECT array_agg(organization_id), array_agg(company_id), array_agg(bucket), array_agg(n)
      INTO orgs, company_ids, buckets, deltas
    FROM (SELECT organization_id, company_id, bucket, sum(n)::integer AS n FROM (
        SELECT organization_id, lead_company_id AS company_id, engagement_bucket(occurred_at) AS bucket, 1 AS n
        FROM new_rows WHERE lead_company_id IS NOT NULL
          AND NOT (signal_type = 'email_opened' AND signal_detail @> '{"adjusted": true}'::jsonb)
        UNION ALL
        SELECT organization_id, lead_company_id, engagement_bucket(occurred_at), -1
        FROM old_rows WHERE lead_company_id IS NOT NULL
          AND NOT (signal_type = 'email_opened' AND signal_detail @> '{"adjusted": true}'::jsonb)
      ) AS e GROUP BY 1, 2, 3 HAVING sum(n) <> 0) AS c;
  END IF;
  IF orgs IS NOT NULL THEN PERFORM add_company_signal_counts(orgs, company_ids, buckets, deltas); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
DELETE FROM "company_signal_counts";--> statement-breakpoint
INSERT INTO "company_signal_counts" ("organization_id", "company_id", "bucket", "delta")
  SELECT organization_id, lead_company_id, engagement_bucket(occurred_at), count(*) FROM intent_signals
  WHERE lead_company_id IS NOT NULL
    AND NOT (signal_type = 'email_opened' AND signal_detail @> '{"adjusted": true}'::jsonb)
  GROUP BY 1, 2, 3;
