/**
 * The feed module's public surface: what other modules, the jobs and the app may import from it.
 * Everything else in this folder is private to it (scripts/check-module-imports.mjs refuses deep imports).
 */
export {
  changedFieldsSql,
  diffFields,
  changesSql,
  feedEntriesFrom,
  feedEntriesOf,
  fieldValuesSql,
  insertWithFeed,
  recordFeed,
  updateWithFeed,
} from './service';
export type { FeedActor, FeedEntryInput, FeedFields, FeedRecord } from './service';
