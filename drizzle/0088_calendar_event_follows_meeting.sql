-- A booked meeting's calendar event follows the meeting: the write row outlives a deleted meeting
-- (meeting_id set null) so the calendar-event job can still delete the event, and 'deleted' is the
-- state of an event removed because its meeting was cancelled or deleted.
ALTER TABLE "calendar_event_writes" DROP CONSTRAINT "calendar_event_writes_state_check";--> statement-breakpoint
ALTER TABLE "calendar_event_writes" DROP CONSTRAINT "calendar_event_writes_meeting_id_meetings_id_fk";
--> statement-breakpoint
ALTER TABLE "calendar_event_writes" ALTER COLUMN "meeting_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "calendar_event_writes" ADD CONSTRAINT "calendar_event_writes_meeting_id_meetings_id_fk" FOREIGN KEY ("meeting_id") REFERENCES "public"."meetings"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_event_writes" ADD CONSTRAINT "calendar_event_writes_state_check" CHECK ("calendar_event_writes"."state" in ('pending', 'created', 'skipped', 'failed', 'deleted'));