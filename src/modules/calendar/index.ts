/**
 * The calendar module's public surface: what other modules, the jobs and the app may import from it.
 * Everything else in this folder is private to it (scripts/check-module-imports.mjs refuses deep imports).
 */
export { calendarSyncJobHandler, scheduleCalendarSyncs, SYNC_AHEAD_DAYS } from './busy-sync';
export { calendarEventJobHandler } from './event-job';
export {
  BOOKED_EVENT_IDS,
  bookedEventCtes,
  bookedEventQueued,
  enqueueMeetingEvent,
  requeueMeetingEvent,
} from './event-queue';
