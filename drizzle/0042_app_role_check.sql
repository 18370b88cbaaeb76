-- Fails the migration, loudly, when the migrating role cannot switch to lm_app.
-- 0000_app_role.sql grants lm_app to the migrating role but swallows a refusal: on PostgreSQL 16
-- and later a CREATEROLE role (Neon's owner) may grant only roles it holds with ADMIN OPTION, so
-- when lm_app already existed, created by another role, the grant failed silently and every
-- tenant request then failed with `permission denied to set role "lm_app"`. SET ROLE needs the
-- SET option of the membership on 16 and later, plain membership on 15. Superusers pass.
DO $$
DECLARE
  needed text := CASE WHEN current_setting('server_version_num')::int >= 160000 THEN 'SET' ELSE 'MEMBER' END;
BEGIN
  IF NOT pg_has_role(current_user, 'lm_app', needed) THEN
    RAISE EXCEPTION 'role "%" cannot SET ROLE lm_app, so every tenant request would fail. As a role with ADMIN OPTION on lm_app (the role that created it, or a superuser), run: GRANT lm_app TO "%"; then run the migrations again.', current_user, current_user
      USING ERRCODE = 'insufficient_privilege';
  END IF;
END
$$;
