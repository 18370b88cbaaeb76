/**
 * The imports module's public surface: what other modules, the jobs and the app may import from it.
 * Everything else in this folder is private to it (scripts/check-module-imports.mjs refuses deep imports).
 */
export { leadImportJobHandler } from './import-job';
export { MAX_IMPORT_BYTES } from './service';
export { createIsolatingRejects } from './import-job';
export { LEAD_IMPORT_FIELDS } from './header-mapping';
export type { ColumnPlan, LeadImportField } from './header-mapping';
export { loadLookupLabels, rowToLeadInput } from './row-input';
export type { LookupLabels } from './row-input';
