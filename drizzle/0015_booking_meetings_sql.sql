-- Booking slugs are unique across ALL organizations (strangers reach /book/:slug with no tenant),
-- but user writes run as lm_app under row-level security and cannot see other organizations'
-- users. free_booking_slug(base) picks `base`, else base-2, base-3 … (first free), looking past
-- RLS (SECURITY DEFINER, owner rights). It takes a transaction-scoped advisory lock on the base
-- first and each check reads a fresh snapshot (VOLATILE plpgsql), so two concurrent creations of
-- "ada-lovelace" serialise: the second sees the first's committed slug and takes ada-lovelace-2.
CREATE OR REPLACE FUNCTION free_booking_slug(base text) RETURNS text
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public AS $$
DECLARE
  candidate text := base;
  n integer := 1;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('booking-slug:' || base, 0));
  WHILE EXISTS (SELECT 1 FROM users WHERE booking_slug = candidate) LOOP
    n := n + 1;
    candidate := base || '-' || n;
  END LOOP;
  RETURN candidate;
END
$$;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION free_booking_slug(text) TO lm_app;
--> statement-breakpoint
-- Users created before booking existed get a slug from their name (lower-case letters, digits and
-- single dashes, at most 40 characters; "user" when nothing is left), one at a time in id order.
DO $$
DECLARE
  u record;
  base text;
BEGIN
  FOR u IN SELECT id, first_name, last_name FROM users WHERE booking_slug IS NULL ORDER BY id LOOP
    base := left(trim(both '-' from regexp_replace(lower(concat_ws(' ', u.first_name, u.last_name)), '[^a-z0-9]+', '-', 'g')), 40);
    base := trim(both '-' from base);
    IF base = '' THEN base := 'user'; END IF;
    UPDATE users SET booking_slug = free_booking_slug(base) WHERE id = u.id;
  END LOOP;
END
$$;
