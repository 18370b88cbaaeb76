-- refresh_table_statistics(tables): ANALYZE of the named tables of this schema, for the app's
-- role (lm_app), which does not own them and so may not run ANALYZE itself.
--
-- Why: every tenant table is shared, and the planner's estimate of one organization's rows comes
-- from the table's last ANALYZE. An organization the last ANALYZE did not see (a new customer
-- whose import or bulk action has just written 20 000 rows) is estimated at about one row, and
-- for one row the planner joins the bulk actions' CTEs by a nested loop that rescans the CTE for
-- every row: on PostgreSQL 15, replacing the tags of 20 000 just-tagged leads took 50 s and
-- changing the status of 20 000 just-imported leads 107 s, against 0.1 to 2 s with fresh
-- statistics. Autovacuum analyzes a table only after a tenth of it has changed, which on a large
-- shared table can take days, and PGlite has no autovacuum. So the code that writes many rows of
-- one organization at once (src/db/statistics.ts: the lead import's end, the bulk tag actions)
-- refreshes the written tables' statistics itself, in its own transaction: the statistics
-- include its uncommitted rows, become visible when it commits, and go when it rolls back.
--
-- Locks: ANALYZE waits for another session's ANALYZE of the table (held to that transaction's
-- end, a bulk action's last moment) and for autovacuum's work on it, which PostgreSQL cancels
-- once a session has waited deadlock_timeout (1 s) behind it. It never waits more than
-- lock_timeout (2 s, set for the function alone): a table still locked then (an anti-wraparound
-- vacuum, which is not cancelled) keeps its statistics, with a NOTICE, and the caller goes on.
-- A name that is not a table of this schema is an error, never something else analyzed.
CREATE FUNCTION "refresh_table_statistics"(tables text[]) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public SET lock_timeout = '2s' AS $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY tables LOOP
    IF NOT EXISTS (
      SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relname = t AND c.relkind IN ('r', 'p')
    ) THEN
      RAISE EXCEPTION 'refresh_table_statistics: % is not a table of this schema', t;
    END IF;
    BEGIN
      EXECUTE format('ANALYZE public.%I', t);
    EXCEPTION WHEN lock_not_available THEN
      RAISE NOTICE 'refresh_table_statistics: % stayed locked for lock_timeout; its statistics are left as they were', t;
    END;
  END LOOP;
END
$$;
--> statement-breakpoint
REVOKE EXECUTE ON FUNCTION "refresh_table_statistics"(text[]) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION "refresh_table_statistics"(text[]) TO lm_app;
