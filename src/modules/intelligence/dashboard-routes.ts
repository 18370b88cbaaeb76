/**
 * AI dashboards (spec "Dashboards and analytics": `POST /api/ai-dashboards/generate`).
 */
import { z } from '@hono/zod-openapi';
import { created, ok } from '../../core/http';
import { text } from '../../core/schemas';
import { conflictResponse, createRouter, defineRoute, envelope, jsonBody } from '../../core/routes';
import { insufficientCreditsResponse } from '../credits';
import { SCOPES } from '../saved-queries';
import { GeneratedWidget, generateDashboard, MAX_GENERATED_WIDGETS } from './dashboards';
import { chargeFields, provenance } from './tool-schemas';

export const aiDashboardRoutes = createRouter();

const GenerateDashboardBody = z
  .object({
    prompt: text(1, 2000).openapi({
      description: 'What the dashboard should show, 1 to 2 000 characters',
      example: 'Leads by status and new leads per month',
    }),
    save: z.boolean().optional().openapi({
      description: 'true: save it (its queries as saved queries, and the dashboard); default false',
      example: false,
    }),
    scope: z.enum(SCOPES).optional().openapi({
      description: 'Scope of what is saved (default personal; workspace needs admin or manager)',
      example: 'personal',
    }),
    dashboard_id: z
      .string()
      .max(64, 'must be at most 64 characters')
      .regex(/^[a-z0-9_-]{1,64}$/, 'must be 1 to 64 characters of a-z, 0-9, _ and -')
      .optional()
      .openapi({ description: 'The saved dashboard’s key (default ai-<random>)', example: 'pipeline-health' }),
  })
  .openapi('GenerateDashboardRequest', {
    description: 'A dashboard to generate',
    example: { prompt: 'Leads by status and new leads per month' },
  });

const GeneratedDashboard = z
  .object({
    name: z.string().openapi({ description: 'The dashboard’s name', example: 'Leads dashboard' }),
    widgets: z.array(GeneratedWidget).openapi({ description: `Its widgets, 1 to ${MAX_GENERATED_WIDGETS}` }),
    ...provenance,
    ...chargeFields,
    saved: z
      .object({
        dashboard_id: z
          .number()
          .int()
          .openapi({ description: 'The saved dashboard (GET /api/dashboards)', example: 4 }),
        dashboard_key: z.string().openapi({ description: 'Its key', example: 'ai-1a2b3c4d' }),
        saved_query_ids: z
          .array(z.number().int())
          .openapi({ description: 'The saved query of each widget, in order', example: [9, 10] }),
      })
      .nullable()
      .openapi({ description: 'What was saved; null unless `save` was true' }),
  })
  .openapi('GeneratedDashboard', {
    description: 'A generated dashboard definition, where it came from, what it cost, and what was saved',
    example: {
      name: 'Leads dashboard',
      widgets: [
        {
          title: 'Leads by status',
          chart_type: 'bar',
          query: { module: 'leads', metric: { op: 'count' }, group_by: 'status' },
        },
      ],
      provider: 'local',
      model: 'local-template',
      prompt_version: 'dashboard@v1',
      credits_charged: 5,
      balance: 995,
      saved: null,
    },
  });

aiDashboardRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/ai-dashboards/generate',
    operationId: 'generateAiDashboard',
    tags: ['AI'],
    summary: 'Generate a dashboard from a request in plain words (AI)',
    description:
      'Asks the AI provider for a dashboard built only from the saved-query grammar’s allow-listed parts (modules, filters, metrics, group_by, date buckets; see docs/domains/saved-queries.md). Every widget’s query is validated by the same schema and allow-list check as a saved query and is never run as code or SQL; an answer that does not fit is a 503 `provider_unavailable` and refunded. Answers 200 with the definition; with `save: true`, 201 after saving each query as a saved query and the dashboard over them. Costs 5 credits (`dashboard_generate`), reserved first, refunded on failure.',
    auth: 'bearer',
    transaction: false,
    request: { body: jsonBody(GenerateDashboardBody) },
    responses: {
      200: envelope(GeneratedDashboard, 'Dashboard generated'),
      201: envelope(GeneratedDashboard, 'Dashboard generated and saved'),
      402: insufficientCreditsResponse,
      409: conflictResponse(
        'GeneratedDashboardConflict',
        'A dashboard with this dashboard_id already exists (error.code dashboard_id_taken); nothing was saved or charged',
        [{ code: 'dashboard_id_taken' }],
      ),
    },
  }),
  async (c) => {
    const input = c.req.valid('json');
    const result = await generateDashboard({ ctx: c.var.tenant, env: c.env }, input);
    return input.save ? created(c, result, 'Dashboard generated and saved') : ok(c, result, 'Dashboard generated');
  },
);
