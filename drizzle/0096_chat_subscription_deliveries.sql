-- A chat subscription's deliveries by subscription: GET /api/chat/subscriptions reads each one's latest
-- finished delivery (last_delivery, src/modules/chat/service.ts), and deleting a subscription cascades to
-- its deliveries, which read the whole table without it. Partial: webhook endpoints' deliveries have none.
CREATE INDEX "webhook_deliveries_chat_subscription_idx" ON "webhook_deliveries" USING btree ("chat_subscription_id","id") WHERE "webhook_deliveries"."chat_subscription_id" is not null;