DROP INDEX "leads_organization_email_idx";--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "session_generation" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "leads_organization_live_email_key" ON "leads" USING btree ("organization_id",lower("email")) WHERE "leads"."deleted_at" is null;