-- The delivery log's retention (src/modules/webhooks/retention.ts): the minute cron deletes
-- finished deliveries older than 90 days, a few thousand a statement.
--
-- webhook_deliveries by creation time: the sweep's range, oldest first, without reading the rest.
--
-- webhook_attempts by delivery. A delivery's attempts go with it through the foreign key
-- (ON DELETE CASCADE), and the cascade looks them up by delivery_id once per deleted delivery:
-- without an index each lookup read the whole attempt log. Deliveries are deleted by the sweep
-- and by an endpoint's deletion, which cascades to all its deliveries.
CREATE INDEX "webhook_attempts_delivery_idx" ON "webhook_attempts" USING btree ("delivery_id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_created_idx" ON "webhook_deliveries" USING btree ("created_at");
