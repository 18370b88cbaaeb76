CREATE TABLE "lead_search_words" (
	"organization_id" bigint NOT NULL,
	"word" text NOT NULL,
	"share" real NOT NULL,
	CONSTRAINT "lead_search_words_organization_id_word_pk" PRIMARY KEY("organization_id","word")
);
--> statement-breakpoint
ALTER TABLE "lead_search_words" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE POLICY "lead_search_words_tenant_isolation" ON "lead_search_words" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);