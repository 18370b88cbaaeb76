/**
 * The lead follow-ups module's public surface: the minute cron's due-reminder sweep
 * (reminders.ts). The routes are mounted by src/app.ts directly.
 * Everything else in this folder is private to it (scripts/check-module-imports.mjs refuses deep imports).
 */
export { REMINDER_LOOKBACK_HOURS, runFollowUpReminders, sweepFollowUpReminders } from './reminders';
