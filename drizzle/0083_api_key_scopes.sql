-- What an API key may call: leads:write (POST /api/v1/lead, POST /api/v1/intent-signal) and
-- leads:read (GET /api/v1/lead/lead-list). Existing keys get both, so they keep working as before.
ALTER TABLE "api_keys" ADD COLUMN "scopes" text[] DEFAULT '{leads:read,leads:write}'::text[] NOT NULL;