-- Verified link domains are looked up again every day (src/modules/tracking/link-domain-recheck.ts):
-- failing_since is when a verified domain's record was first found missing; after three days of
-- it the domain loses its verification. The partial index serves the re-check's pick of the least
-- recently checked verified domains across organizations.
ALTER TABLE "link_domain_verifications" ADD COLUMN "failing_since" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "link_domain_verifications_recheck_idx" ON "link_domain_verifications" USING btree ("checked_at") WHERE "link_domain_verifications"."verified_at" is not null;