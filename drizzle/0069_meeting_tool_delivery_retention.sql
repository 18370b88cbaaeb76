-- Meeting tools' delivery ids (src/modules/meetings/retention.ts): the minute cron deletes those
-- received more than 7 days ago, past the tools' retry schedules. The index is the sweep's range.
CREATE INDEX "meeting_tool_deliveries_received_idx" ON "meeting_tool_deliveries" USING btree ("received_at");
