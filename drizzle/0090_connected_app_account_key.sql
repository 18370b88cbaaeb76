-- One live row per connected account (crm, chat, enrichment, voice): concurrent connects of one
-- account (a double click) each inserted a row. Duplicates left so far are disconnected, keeping
-- the newest (the one the CRM and chat routes already used), credentials wiped as a disconnect does.
UPDATE "connections" AS c SET "deleted_at" = now(), "state" = 'disabled', "secret" = NULL, "secret_key_id" = NULL,
  "token_expires_at" = NULL, "updated_at" = now()
WHERE c."deleted_at" IS NULL AND c."kind" IN ('crm', 'chat', 'enrichment', 'voice') AND EXISTS (
  SELECT 1 FROM "connections" AS n
  WHERE n."organization_id" = c."organization_id" AND n."kind" = c."kind" AND n."provider" = c."provider"
    AND n."identity" = c."identity" AND n."deleted_at" IS NULL AND n."id" > c."id"
);--> statement-breakpoint
CREATE UNIQUE INDEX "connections_live_account_key" ON "connections" USING btree ("organization_id","kind","provider","identity") WHERE "connections"."deleted_at" is null and "connections"."kind" in ('crm', 'chat', 'enrichment', 'voice');