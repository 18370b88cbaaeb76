-- JIT off for this database's new sessions. The API runs short statements; an aggregate over an
-- organization's leads (a saved query grouped by month, 100 000 leads) is estimated at enough rows
-- to pass jit_above_cost, and PostgreSQL then spends ~380 ms compiling a statement that runs in
-- ~75 ms (measured with EXPLAIN ANALYZE, PostgreSQL 15). A role without the right to change the
-- database's settings keeps the server default and is told so; nothing else depends on it.
DO $$
BEGIN
  EXECUTE format('ALTER DATABASE %I SET jit = off', current_database());
EXCEPTION WHEN insufficient_privilege THEN
  RAISE NOTICE 'jit stays at the server default: % may not change the database settings', current_user;
END
$$;
