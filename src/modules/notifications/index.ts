/**
 * The notifications module's public surface: what other modules, the jobs and the app may import from it.
 * Everything else in this folder is private to it (scripts/check-module-imports.mjs refuses deep imports).
 */
export {
  NOTIFICATION_TYPES,
  adminNoticesSql,
  leadAssignmentNotices,
  notifyJobEnded,
  notifyJobsEnded,
  notifyLeadAssignments,
} from './service';
export type { JobNotice, LeadAssignment } from './service';
