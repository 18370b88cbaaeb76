/**
 * The intelligence module's public surface: what other modules, the jobs and the app may import
 * from it (AI tools, email drafts, AI dashboards; the paid call and the prompt the meetings module's
 * summaries use; docs/domains/intelligence.md).
 * Everything else in this folder is private to it (scripts/check-module-imports.mjs refuses deep imports).
 */
export { aiEmailBulkJobHandler } from './bulk-job';
export { paidGeneration, paidGenerations, aiRouteError } from './generation';
export type { PaidCall, Charge } from './generation';
export { meetingSummaryPrompt } from './prompts/meeting-summary.v2';
export { meetingSummaryPartPrompt } from './prompts/meeting-summary-part.v1';
