-- One active tag per name (compared without case) per organization, so that ingestion's
-- find-or-create of tag names (POST /api/v1/lead, web forms) settles concurrent first uses of a
-- new name on the index (INSERT … ON CONFLICT) instead of creating it once per request.
-- First the duplicates those races left: per (organization, module, lower(name)) the lowest id
-- stays; the leads tagged with another get the kept one (once: a lead holding both keeps one row)
-- and lose the other, which is deactivated, not deleted, so nothing that still names its id breaks
-- (saved views' and saved queries' tag filters keep it; it still resolves as a deactivated tag).
WITH active_tag AS (
	SELECT "id", min("id") OVER (PARTITION BY "organization_id", "module_name", lower("name")) AS "keep"
	FROM "lookups"
	WHERE "type" = 'tags' AND "is_active"
), retired AS (
	SELECT "id", "keep" FROM active_tag WHERE "id" <> "keep"
), repointed AS (
	INSERT INTO "lead_tags" ("organization_id", "lead_id", "tag_id")
	SELECT DISTINCT lt."organization_id", lt."lead_id", r."keep"
	FROM "lead_tags" lt JOIN retired r ON r."id" = lt."tag_id"
	ON CONFLICT ("lead_id", "tag_id") DO NOTHING
), unlinked AS (
	DELETE FROM "lead_tags" lt USING retired r WHERE lt."tag_id" = r."id"
)
UPDATE "lookups" SET "is_active" = false, "updated_at" = now()
FROM retired r WHERE "lookups"."id" = r."id";--> statement-breakpoint
CREATE UNIQUE INDEX "lookups_organization_active_tag_name_key" ON "lookups" USING btree ("organization_id","module_name","type",lower("name")) WHERE "lookups"."type" = 'tags' and "lookups"."is_active";
