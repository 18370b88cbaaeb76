-- Link domains count for direct click redirects only once verified by a DNS TXT record
-- (src/modules/tracking/link-domain-verification.ts). Domains already listed are NOT grandfathered:
-- each gets a row with a fresh token (122 random bits of a v4 UUID, as 32 hex characters, like
-- the tokens the API makes) and stays unverified until its organization publishes the record and
-- runs POST /api/organization/link-domains/verify. Links minted before keep their signed decision.
CREATE TABLE "link_domain_verifications" (
	"organization_id" bigint NOT NULL,
	"domain" text NOT NULL,
	"token" text NOT NULL,
	"verified_at" timestamp with time zone,
	"checked_at" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "link_domain_verifications_organization_id_domain_pk" PRIMARY KEY("organization_id","domain")
);
--> statement-breakpoint
ALTER TABLE "link_domain_verifications" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "link_domain_verifications" ADD CONSTRAINT "link_domain_verifications_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE POLICY "link_domain_verifications_tenant_isolation" ON "link_domain_verifications" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);--> statement-breakpoint
INSERT INTO "link_domain_verifications" ("organization_id", "domain", "token")
SELECT "organizations"."id", listed."domain", replace(gen_random_uuid()::text, '-', '')
FROM "organizations", unnest("organizations"."link_domains") AS listed("domain")
ON CONFLICT DO NOTHING;