/**
 * The definition grammar's allow-lists as plain names, per module: what a generated definition
 * (modules/intelligence, the AI dashboards) may use, and what its prompt lists.
 */
import { BUCKET_UNITS, METRIC_OPS, queryModules, QUERY_MODULES, type QueryModuleName } from './modules';

export interface ModuleGrammar {
  groups: string[];
  numbers: string[];
  dates: string[];
}

export const QUERY_GRAMMAR = Object.fromEntries(
  QUERY_MODULES.map((name) => {
    const module = queryModules[name];
    return [
      name,
      { groups: Object.keys(module.groups), numbers: Object.keys(module.numbers), dates: Object.keys(module.dates) },
    ];
  }),
) as Record<QueryModuleName, ModuleGrammar>;

export { BUCKET_UNITS, METRIC_OPS, QUERY_MODULES, type QueryModuleName };
