-- The application role that every tenant transaction switches to (SET LOCAL ROLE via set_config).
-- It has no BYPASSRLS, so row-level security applies even when the connection is a superuser
-- (PGlite always is) or the tables' owner (Neon's owner role). Roles are cluster-wide, hence IF NOT EXISTS.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'lm_app') THEN
    CREATE ROLE lm_app NOLOGIN NOBYPASSRLS;
  END IF;
END
$$;
--> statement-breakpoint
DO $$
BEGIN
  -- The migrating user must be a member to SET ROLE (a no-op for superusers).
  EXECUTE format('GRANT lm_app TO %I', current_user);
EXCEPTION WHEN OTHERS THEN
  NULL;
END
$$;
--> statement-breakpoint
GRANT USAGE ON SCHEMA public TO lm_app;
--> statement-breakpoint
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO lm_app;
--> statement-breakpoint
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO lm_app;
