/**
 * The meetings module's public surface: what other modules, the jobs and the app may import from it.
 * Everything else in this folder is private to it (scripts/check-module-imports.mjs refuses deep imports).
 */
export { meetingFilterWhere, meetingFilters } from './filters';
export type { MeetingFilters } from './filters';
export { transcriptRoutes } from './transcript-routes';
export { sweepMeetingToolDeliveryIds } from './retention';
