-- A webhook secret rotation keeps the replaced secret signing beside the new one until
-- previous_secret_expires_at (24 hours by default), so receivers switch without rejecting deliveries.
ALTER TABLE "webhook_endpoints" ADD COLUMN "previous_secret_sealed" text;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "previous_secret_key_id" text;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "previous_secret_expires_at" timestamp with time zone;