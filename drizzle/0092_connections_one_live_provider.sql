-- One live connection per organization of the kinds whose provider is the organization's own:
-- lead enrichment (apollo or local) and the voice account (one Twilio account). Connects of two
-- different providers or accounts at once each disconnected only what was committed before them,
-- so both stayed live. Duplicates left so far are disconnected, keeping the newest (the one
-- connected last, which lead enrichment and calls already used), credentials wiped as a
-- disconnect does.
UPDATE "connections" AS c SET "deleted_at" = now(), "state" = 'disabled', "secret" = NULL, "secret_key_id" = NULL,
  "token_expires_at" = NULL, "updated_at" = now()
WHERE c."deleted_at" IS NULL AND c."kind" IN ('enrichment', 'voice') AND EXISTS (
  SELECT 1 FROM "connections" AS n
  WHERE n."organization_id" = c."organization_id" AND n."kind" = c."kind" AND n."deleted_at" IS NULL AND n."id" > c."id"
);--> statement-breakpoint
CREATE UNIQUE INDEX "connections_live_kind_key" ON "connections" USING btree ("organization_id","kind") WHERE "connections"."deleted_at" is null and "connections"."kind" in ('enrichment', 'voice');