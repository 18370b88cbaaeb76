DROP INDEX "companies_organization_industry_idx";--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "industry_key" text GENERATED ALWAYS AS (lower(industry_type)) STORED;--> statement-breakpoint
CREATE INDEX "companies_organization_industry_key_idx" ON "companies" USING btree ("organization_id","industry_key");