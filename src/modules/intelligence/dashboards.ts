/**
 * AI dashboards (spec: `POST /api/ai-dashboards/generate`): a dashboard definition from a request
 * in plain words, built only from the saved-query grammar's allow-listed parts. The model's answer
 * is JSON, validated by the saved query's own schema (QueryDefinition) and allow-list check
 * (checkQuery) per widget, and never run as code or SQL; an answer that does not fit is the
 * provider's failure (refunded). With `save`, each widget's query becomes a saved query and the
 * dashboard a saved dashboard over them, in one transaction with the charge.
 */
import { z } from '@hono/zod-openapi';
import { ValidationFailed } from '../../core/errors';
import { ProviderFailure } from '../../providers/failures';
import { structuredOutput } from '../../providers/ai/structured';
import { addDashboard } from '../dashboards';
import {
  addQuery,
  BUCKET_UNITS,
  checkQuery,
  checkScopeAllowed,
  QUERY_GRAMMAR,
  QUERY_WIDGET_TYPES,
  QueryDefinition,
  type Scope,
} from '../saved-queries';
import { paidGeneration, type PaidCall } from './generation';
import { dashboardPrompt } from './prompts/dashboard.v1';

export const MAX_GENERATED_WIDGETS = 6;

export const GeneratedWidget = z
  .object({
    title: z.string().trim().min(1).max(100).openapi({ description: 'Heading', example: 'Leads by status' }),
    chart_type: z.enum(QUERY_WIDGET_TYPES).openapi({ description: 'How it is drawn', example: 'bar' }),
    query: QueryDefinition,
  })
  .openapi('GeneratedDashboardWidget', {
    description: 'One widget: a saved-query definition and how to draw it',
    example: {
      title: 'Leads by status',
      chart_type: 'bar',
      query: { module: 'leads', metric: { op: 'count' }, group_by: 'status' },
    },
  });

/** What the model must answer; anything else is refused (and refunded). */
const DashboardAnswer = z.object({
  name: z.string().trim().min(1).max(100),
  widgets: z.array(GeneratedWidget).min(1).max(MAX_GENERATED_WIDGETS),
});

export interface GenerateDashboardInput {
  prompt: string;
  save?: boolean;
  scope?: Scope;
  dashboard_id?: string;
}

function checkedAnswer(text: Parameters<typeof structuredOutput>[0]) {
  const answer = structuredOutput(text, DashboardAnswer);
  answer.widgets.forEach((widget, index) => {
    try {
      checkQuery(widget.query, `widgets.${index}.query`);
    } catch (error) {
      if (!(error instanceof ValidationFailed)) throw error;
      throw new ProviderFailure(
        'rejected',
        text.provider,
        null,
        `the generated dashboard used a name outside the allow-lists (${error.message})`,
      );
    }
  });
  return answer;
}

export async function generateDashboard(call: PaidCall, input: GenerateDashboardInput) {
  if (input.save) checkScopeAllowed(call.ctx, input.scope ?? 'personal');
  return paidGeneration(
    call,
    'dashboard_generate',
    dashboardPrompt,
    { request: input.prompt, grammar: QUERY_GRAMMAR, bucketUnits: BUCKET_UNITS },
    async (tx, generation, charge) => {
      const answer = checkedAnswer(generation);
      let saved: { dashboard_id: number; dashboard_key: string; saved_query_ids: number[] } | null = null;
      if (input.save) {
        const ctx = { ...call.ctx, db: tx };
        const scope = input.scope ?? 'personal';
        const queryIds: number[] = [];
        for (const widget of answer.widgets) {
          queryIds.push((await addQuery(ctx, { name: widget.title, scope, definition: widget.query })).id);
        }
        const key = input.dashboard_id ?? `ai-${crypto.randomUUID().slice(0, 8)}`;
        const dashboard = await addDashboard(ctx, {
          dashboard_id: key,
          name: answer.name,
          scope,
          definition: answer.widgets.map((widget, index) => ({
            title: widget.title,
            chart_type: widget.chart_type,
            source: { saved_query_id: queryIds[index] },
          })),
        });
        saved = { dashboard_id: dashboard.id, dashboard_key: key, saved_query_ids: queryIds };
      }
      return {
        name: answer.name,
        widgets: answer.widgets,
        provider: generation.provider,
        model: generation.model,
        prompt_version: generation.prompt_version,
        credits_charged: charge.credits_charged,
        balance: charge.balance,
        saved,
      };
    },
  );
}
