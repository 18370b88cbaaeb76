-- The sign-in records' retention (src/modules/auth/retention.ts): the minute cron deletes failed
-- logins past the login limits' window, trusted addresses past their 30 days and revoked tokens
-- an hour past their expiry. Each index is the sweep's range across organizations, so a sweep
-- with nothing to delete reads nothing.
CREATE INDEX "login_failures_failed_idx" ON "login_failures" USING btree ("failed_at");--> statement-breakpoint
CREATE INDEX "login_successes_succeeded_idx" ON "login_successes" USING btree ("succeeded_at");--> statement-breakpoint
CREATE INDEX "revoked_tokens_expires_idx" ON "revoked_tokens" USING btree ("expires_at");
