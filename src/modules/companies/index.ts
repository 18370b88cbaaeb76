/**
 * The companies module's public surface: what other modules, the jobs and the app may import from it.
 * Everything else in this folder is private to it (scripts/check-module-imports.mjs refuses deep imports).
 */
export { DeletedCount, bulkTargetBody } from './bulk-target';
export { companyEnrichmentJobHandler } from './enrichment-job';
export { companyFields } from './fields';
export { companyFilterWhere, companyFiltersObject } from './filters';
export type { CompanyFilters } from './filters';
export { COMPANY_IMPORT_FIELDS, importCompaniesBatch } from './import-batch';
export type { CompanyImportField, CompanyImportResult, CompanyImportRow } from './import-batch';
