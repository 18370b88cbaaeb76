ALTER TABLE "phone_numbers" DROP CONSTRAINT "phone_numbers_status_check";--> statement-breakpoint
DROP INDEX "voice_ledger_number_kind_key";--> statement-breakpoint
ALTER TABLE "voice_ledger" ADD COLUMN "billing_month" date;--> statement-breakpoint
CREATE INDEX "calls_dial_after_idx" ON "calls" USING btree ("organization_id","dial_after");--> statement-breakpoint
CREATE UNIQUE INDEX "voice_ledger_renewal_key" ON "voice_ledger" USING btree ("organization_id","phone_number_id","billing_month") WHERE "voice_ledger"."kind" = 'number_renewal';--> statement-breakpoint
CREATE UNIQUE INDEX "voice_ledger_number_kind_key" ON "voice_ledger" USING btree ("organization_id","phone_number_id","kind") WHERE "voice_ledger"."phone_number_id" is not null and "voice_ledger"."kind" <> 'number_renewal';--> statement-breakpoint
ALTER TABLE "phone_numbers" ADD CONSTRAINT "phone_numbers_status_check" CHECK ("phone_numbers"."status" in ('pending', 'active', 'failed', 'suspended'));