-- Meeting-tool webhook URLs: the token is kept as its SHA-256 (hex of the UTF-8 bytes, as sha256Hex computes it) and its last 4 characters, never in clear.
ALTER TABLE "meeting_tool_endpoints" ADD COLUMN "token_hash" text;--> statement-breakpoint
ALTER TABLE "meeting_tool_endpoints" ADD COLUMN "token_last4" text;--> statement-breakpoint
UPDATE "meeting_tool_endpoints" SET "token_hash" = encode(sha256(convert_to("token", 'UTF8')), 'hex'), "token_last4" = right("token", 4);--> statement-breakpoint
ALTER TABLE "meeting_tool_endpoints" ALTER COLUMN "token_hash" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "meeting_tool_endpoints" ALTER COLUMN "token_last4" SET NOT NULL;--> statement-breakpoint
DROP INDEX "meeting_tool_endpoints_token_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "meeting_tool_endpoints_token_hash_idx" ON "meeting_tool_endpoints" USING btree ("token_hash");--> statement-breakpoint
ALTER TABLE "meeting_tool_endpoints" DROP COLUMN "token";
