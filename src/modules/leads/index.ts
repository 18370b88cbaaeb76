/**
 * The leads module's public surface: what other modules, the jobs and the app may import from it.
 * Everything else in this folder is private to it (scripts/check-module-imports.mjs refuses deep imports).
 */
export { leadActivityAfter, requireLead, touchLeadActivity, touchLeadActivityCte } from './access';
export { duplicateLead, emailKey, liveLeadsHoldingSql } from './dedupe';
export {
  customFieldsInput,
  customValue,
  duplicateModeFields,
  duplicateModeOf,
  integerInput,
  leadEmail,
  personName,
  refuseBothDuplicateModes,
} from './field-inputs';
export { leadFields } from './fields';
export type { LeadFieldName } from './fields';
export { leadFilterWhere, leadFiltersObject, leadKeyFilters } from './filters';
export type { LeadFilters } from './filters';
export { LEAD_ORDER_BY, LeadListQuery, listLeads, searchLeads } from './listing';
export { readLead } from './present';
export { refreshSearchWords, runSearchWordsRefresh } from './search-words';
export { leadWriteContextFrom, leadWriteContextSql } from './references';
export type { LeadWriteContext, LeadWriteContextRow } from './references';
export { duplicateLeadConflict } from './routes';
export { AddLeadBody, LeadSchema } from './schemas';
export type { AddLeadInput, LeadView } from './schemas';
export { createLeadsBatch, createOneLead, planOneLead } from './create-leads';
export type { BatchOptions, BatchResult, BatchRow, CreatedLeadRecord, MergedRow, SkippedRow } from './create-leads';
export { leadRowLockClause, leadRowsLocked, lockLeadRows } from './row-locks';
export type { LeadRowLock } from './row-locks';
