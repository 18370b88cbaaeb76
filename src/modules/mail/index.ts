/**
 * The mail module's public surface: what other modules, the jobs and the app may import from it.
 * Everything else in this folder is private to it (scripts/check-module-imports.mjs refuses deep imports).
 */
export { recordSends } from './compose';
export { checkMergeFields, MERGE_FIELDS, mergeForEach, splitName } from './merge-fields';
export type { ComposeContext } from './compose';
export { inboxRoutes } from './inbox-routes';
export { mailSendJobHandler } from './send-job';
export { isUnsubscribeRequest, recordUnsubscribes } from './suppressions';
export { unsubscribeRoutes } from './unsubscribe-routes';
export { sendMessage } from './inbox';
export { accountConflict } from './responses';
export { OUTGOING_EXAMPLE, OutgoingSchema } from './schemas';
