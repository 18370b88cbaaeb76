-- Live-row counters, so an unfiltered list's total costs the same at 100 leads and at 1 000 000.
-- An organization's count of a relation is SUM(delta) over its rows in live_row_counts.
-- Statement-level AFTER triggers with transition tables keep it: one set-based statement per
-- writing statement, whatever code path wrote (single insert, bulk CTE, import, cascade), so no
-- path can forget it. Each trigger appends the statement's net change per organization AND folds
-- the organization's other counter rows into that one row, taking only rows it can lock at once
-- (FOR UPDATE SKIP LOCKED): concurrent writers of one organization never wait for each other
-- (no single hot counter row held until commit), nothing is counted twice (a row is deleted by
-- exactly one folder), and an organization keeps about one row per writer in flight, so the
-- read is a short index scan. Triggers run as the invoking role, so RLS backs the counter too.
CREATE TABLE "live_row_counts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "live_row_counts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"relation" text NOT NULL,
	"delta" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "live_row_counts" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE INDEX "live_row_counts_organization_relation_idx" ON "live_row_counts" USING btree ("organization_id","relation");--> statement-breakpoint
CREATE POLICY "live_row_counts_tenant_isolation" ON "live_row_counts" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);--> statement-breakpoint
CREATE FUNCTION "add_live_rows"(target text, orgs bigint[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
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
$$;
--> statement-breakpoint
-- Tables with a soft delete: a row is live while deleted_at is null.
CREATE FUNCTION "count_live_rows_soft"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  orgs bigint[];
  deltas bigint[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(organization_id), array_agg(n) INTO orgs, deltas
    FROM (SELECT organization_id, count(*) AS n FROM new_rows WHERE deleted_at IS NULL GROUP BY organization_id) AS c;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(organization_id), array_agg(n) INTO orgs, deltas
    FROM (SELECT organization_id, -count(*) AS n FROM old_rows WHERE deleted_at IS NULL GROUP BY organization_id) AS c;
  ELSE
    SELECT array_agg(organization_id), array_agg(n) INTO orgs, deltas
    FROM (
      SELECT organization_id, sum(d) AS n FROM (
        SELECT organization_id, 1 AS d FROM new_rows WHERE deleted_at IS NULL
        UNION ALL SELECT organization_id, -1 FROM old_rows WHERE deleted_at IS NULL
      ) AS moved GROUP BY organization_id HAVING sum(d) <> 0
    ) AS c;
  END IF;
  IF orgs IS NOT NULL THEN PERFORM add_live_rows(TG_TABLE_NAME::text, orgs, deltas); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Tables without a soft delete: every row is live.
CREATE FUNCTION "count_live_rows"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  orgs bigint[];
  deltas bigint[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(organization_id), array_agg(n) INTO orgs, deltas
    FROM (SELECT organization_id, count(*) AS n FROM new_rows GROUP BY organization_id) AS c;
  ELSE
    SELECT array_agg(organization_id), array_agg(n) INTO orgs, deltas
    FROM (SELECT organization_id, -count(*) AS n FROM old_rows GROUP BY organization_id) AS c;
  END IF;
  IF orgs IS NOT NULL THEN PERFORM add_live_rows(TG_TABLE_NAME::text, orgs, deltas); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "forget_live_rows"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM live_row_counts WHERE relation = TG_TABLE_NAME::text;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "leads_live_rows_insert" AFTER INSERT ON "leads" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_live_rows_soft();--> statement-breakpoint
CREATE TRIGGER "leads_live_rows_update" AFTER UPDATE ON "leads" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_live_rows_soft();--> statement-breakpoint
CREATE TRIGGER "leads_live_rows_delete" AFTER DELETE ON "leads" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION count_live_rows_soft();--> statement-breakpoint
CREATE TRIGGER "leads_live_rows_truncate" AFTER TRUNCATE ON "leads" FOR EACH STATEMENT EXECUTE FUNCTION forget_live_rows();--> statement-breakpoint
CREATE TRIGGER "feed_entries_live_rows_insert" AFTER INSERT ON "feed_entries" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_live_rows();--> statement-breakpoint
CREATE TRIGGER "feed_entries_live_rows_delete" AFTER DELETE ON "feed_entries" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION count_live_rows();--> statement-breakpoint
CREATE TRIGGER "feed_entries_live_rows_truncate" AFTER TRUNCATE ON "feed_entries" FOR EACH STATEMENT EXECUTE FUNCTION forget_live_rows();--> statement-breakpoint
INSERT INTO "live_row_counts" ("organization_id", "relation", "delta")
  SELECT organization_id, 'leads', count(*) FROM leads WHERE deleted_at IS NULL GROUP BY organization_id
  UNION ALL SELECT organization_id, 'feed_entries', count(*) FROM feed_entries GROUP BY organization_id;
