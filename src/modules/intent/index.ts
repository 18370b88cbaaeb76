/**
 * The intent module's public surface: what other modules, the jobs and the app may import from it.
 * Everything else in this folder is private to it (scripts/check-module-imports.mjs refuses deep imports).
 */
export { engagingSignal, intentScoresLocked, lockIntentScores, rescoreLeads } from './scoring';
/** The half-life of an intent signal's weight, which lead scoring's engagement shares. */
export { HALF_LIFE_DAYS as ENGAGEMENT_HALF_LIFE_DAYS } from './scoring';
