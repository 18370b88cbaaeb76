/**
 * The saved-queries module's public surface: what other modules, the jobs and the app may import from it.
 * Everything else in this folder is private to it (scripts/check-module-imports.mjs refuses deep imports).
 */
export { SCOPES, WIDGET_TYPES, scope } from './schemas';
export { changeableBy, checkScopeAllowed, visibleTo } from './visibility';
export type { Scope } from './visibility';
export { QueryDefinition, type QueryDefinitionValue } from './schemas';
export { checkQuery } from './compile';
export { addQuery } from './service';
export {
  BUCKET_UNITS,
  METRIC_OPS,
  QUERY_GRAMMAR,
  QUERY_MODULES,
  type ModuleGrammar,
  type QueryModuleName,
} from './grammar';
export { WIDGET_TYPES as QUERY_WIDGET_TYPES } from './definition';
