/**
 * dashboard v1: a dashboard definition from a plain-language request, built ONLY from the saved-query
 * grammar's allow-listed parts (modules, filters, metrics, group_by, buckets), which the prompt lists.
 * The answer is JSON, validated by the same schema and allow-list check as a saved query; it is
 * never run as code or SQL. The local provider picks the parts by keywords of the request.
 */
import type { Prompt } from '../../../providers/ai/interface';
import type { ModuleGrammar, QueryModuleName } from '../../saved-queries';

export interface DashboardVars {
  request: string;
  grammar: Record<QueryModuleName, ModuleGrammar>;
  bucketUnits: readonly string[];
}

const MODULE_WORDS: [QueryModuleName, RegExp][] = [
  ['deals', /\bdeals?\b|\bpipeline|\brevenue|\bwon\b|\blost\b/i],
  ['companies', /\bcompan(y|ies)\b|\baccounts?\b/i],
  ['contacts', /\bcontacts?\b/i],
  ['meetings', /\bmeetings?\b/i],
  ['leads', /\bleads?\b/i],
];

function words(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, ' ');
}

/** The module's allow-listed name the request mentions (`lead source` matches lead_source). */
function mentioned(request: string, names: string[]): string | undefined {
  const said = ` ${words(request)} `;
  return names.find((name) => said.includes(` ${name.replace(/_/g, ' ')} `) || said.includes(` ${name} `));
}

function localDashboard({ request, grammar, bucketUnits }: DashboardVars) {
  const module = MODULE_WORDS.find(([, pattern]) => pattern.test(request))?.[0] ?? 'leads';
  const parts = grammar[module];
  const numeric =
    mentioned(request, parts.numbers) ??
    (/\b(value|revenue|amount)\b/i.test(request) ? parts.numbers.find((name) => /value|amount/.test(name)) : undefined);
  const op = numeric ? (/\b(average|avg|mean)\b/i.test(request) ? 'avg' : 'sum') : 'count';
  const metric = numeric ? { op, field: numeric } : { op: 'count' };
  const groupBy =
    mentioned(
      request,
      parts.groups.filter((name) => name !== 'company'),
    ) ?? null;
  const unit = bucketUnits.find((candidate) =>
    new RegExp(`\\b(${candidate}|${candidate}ly|per ${candidate})\\b`, 'i').test(request),
  );
  const dateField = parts.dates.includes('created_at') ? 'created_at' : parts.dates[0];
  const label = `${module.charAt(0).toUpperCase()}${module.slice(1)}`;
  const measure = numeric ? `${op === 'avg' ? 'Average' : 'Total'} ${numeric.replace(/_/g, ' ')}` : `${label}`;
  const widgets = [{ title: `${measure}`, chart_type: 'number', query: { module, metric } }];
  if (groupBy) {
    widgets.push({
      title: `${measure} by ${groupBy.replace(/_/g, ' ')}`,
      chart_type: 'bar',
      query: { module, metric, group_by: groupBy } as never,
    });
  }
  if (unit && dateField) {
    widgets.push({
      title: `${measure} per ${unit}`,
      chart_type: 'line',
      query: { module, metric, bucket: { field: dateField, unit } } as never,
    });
  }
  return { name: `${label} dashboard`.slice(0, 100), widgets };
}

export const dashboardPrompt: Prompt<DashboardVars> = {
  id: 'dashboard',
  version: 1,
  system: [
    'You design sales dashboards. Answer with a JSON object only:',
    '{"name": string, "widgets": [{"title": string, "chart_type": "number"|"bar"|"line"|"pie"|"table",',
    ' "query": {"module": string, "metric": {"op": "count"|"sum"|"avg", "field"?: string}, "group_by"?: string, "bucket"?: {"field": string, "unit": string}}}]}',
    'Use at most 6 widgets. Use ONLY the modules and names listed: count takes no field; sum and avg take a numeric field;',
    'group_by is a groupable name; bucket.field is a date name. Never write SQL or code.',
  ].join('\n'),
  user: ({ request, grammar, bucketUnits }) =>
    [
      `Request: ${request}`,
      'Allowed parts:',
      ...Object.entries(grammar).map(
        ([module, parts]) =>
          `- ${module}: groupable ${parts.groups.join(', ') || 'none'}; numeric ${parts.numbers.join(', ') || 'none'}; dates ${parts.dates.join(', ') || 'none'}`,
      ),
      `Bucket units: ${bucketUnits.join(', ')}`,
    ].join('\n'),
  local: (vars) => JSON.stringify(localDashboard(vars)),
  json: true,
  maxTokens: 1200,
};
