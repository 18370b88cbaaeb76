/**
 * The dashboard's one field table and the schemas of its values: a definition is a list of
 * widgets, each showing a saved query or a built-in metric as a chart. The bodies, the Dashboard
 * component, the selection and the presenter derive from the table (core/field-table.ts).
 */
import { z } from '@hono/zod-openapi';
import { Overview } from '../analytics';
import { defineFields, storedAs } from '../../core/field-table';
import { isoTimestamp, positiveId, timestamp } from '../../core/schemas';
import { dashboards } from '../../db/schema';
import { scope, SCOPES, WIDGET_TYPES } from '../saved-queries';

export const MAX_WIDGETS = 24;

/**
 * The built-in metrics a widget may show: the analytics endpoints themselves (`overview`, `stats`,
 * `lead_aging`, `top_accounts` for GET /api/dashboard/overview, /stats, /lead-aging, /top-accounts),
 * the single figures of the overview (its field names, taken from the DashboardOverview schema so
 * the two cannot drift apart), and the stats breakdowns. The dashboard only names them; the client
 * reads them from those endpoints.
 */
const OVERVIEW_FIGURES = Object.keys(Overview.shape).filter((key) => !key.endsWith('period'));
export const BUILT_IN_METRICS = [
  'overview',
  'stats',
  'lead_aging',
  'top_accounts',
  ...OVERVIEW_FIGURES,
  'leads_by_status',
  'leads_by_source',
] as [string, ...string[]];

const layoutNumber = (description: string, min: number) =>
  z
    .number()
    .int('must be a whole number')
    .min(min, `must be at least ${min}`)
    .max(48, 'must be at most 48')
    .optional()
    .openapi({ description });

const Widget = z
  .object({
    title: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(100, 'must be at most 100 characters')
      .openapi({ description: 'Heading, 1 to 100 characters', example: 'Leads by status' }),
    chart_type: z
      .enum(WIDGET_TYPES)
      .openapi({ description: 'How it is drawn (and the execute widgetType)', example: 'bar' }),
    source: z
      .object({
        saved_query_id: positiveId.optional().openapi({
          type: 'integer',
          description: 'A saved query you can see (shared dashboards: a shared query)',
          example: 3,
        }),
        metric: z.enum(BUILT_IN_METRICS).optional().openapi({ description: 'A built-in metric', example: 'overview' }),
      })
      .strict()
      .refine(
        (source) => (source.saved_query_id === undefined) !== (source.metric === undefined),
        'give exactly one of saved_query_id or metric',
      )
      .openapi({
        description: 'What it shows: exactly one of saved_query_id and metric',
        example: { saved_query_id: 3 },
      }),
    layout: z
      .object({
        x: layoutNumber('Column, from 0', 0),
        y: layoutNumber('Row, from 0', 0),
        w: layoutNumber('Width in columns', 1),
        h: layoutNumber('Height in rows', 1),
      })
      .strict()
      .optional()
      .openapi({
        description: 'Grid placement hints (0 to 48; width and height at least 1)',
        example: { x: 0, y: 0, w: 6, h: 4 },
      }),
  })
  .strict()
  .openapi('DashboardWidget', {
    description: 'One widget',
    example: {
      title: 'Leads by status',
      chart_type: 'bar',
      source: { saved_query_id: 3 },
      layout: { x: 0, y: 0, w: 6, h: 4 },
    },
  });
export type WidgetValue = z.output<typeof Widget>;

const definition = z
  .array(Widget)
  .max(MAX_WIDGETS, `at most ${MAX_WIDGETS} widgets`)
  .openapi({ example: [{ title: 'Leads by status', chart_type: 'bar', source: { saved_query_id: 3 } }] });

const dashboardName = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(100, 'must be at most 100 characters')
  .nullish()
  .openapi({ example: 'Sales overview' });

const dashboardKey = z
  .string()
  .max(64, 'must be at most 64 characters')
  .regex(/^[a-z0-9_-]{1,64}$/, 'must be 1 to 64 characters of a-z, 0-9, _ and -')
  .openapi({ example: 'sales-overview' });

const iso = (value: Date) => isoTimestamp(value) as string;

export const dashboardFields = defineFields(
  dashboards,
  {
    id: {
      column: 'id',
      description: 'The dashboard’s id (the path id of GET, PUT and DELETE)',
      read: z.number().int(),
    },
    dashboard_id: {
      column: 'dashboardKey',
      description:
        'Your stable key for the dashboard: 1 to 64 of a-z, 0-9, _ and -, unique in the organization (409 on reuse); it cannot change',
      read: z.string(),
      create: dashboardKey,
    },
    name: {
      column: 'name',
      description: 'Display name, 1 to 100 characters; null: unnamed',
      read: z.string().nullable(),
      create: dashboardName,
      update: dashboardName,
    },
    scope: {
      column: 'scope',
      description: 'Who sees it: personal (its owner only; the default), team or workspace (the whole organization)',
      read: z.enum(SCOPES),
      present: storedAs<(typeof SCOPES)[number]>(),
      create: scope.optional(),
      update: scope.optional(),
    },
    definition: {
      column: 'definition',
      description: `The widgets, in order; at most ${MAX_WIDGETS}. An update replaces them whole`,
      read: z.array(Widget),
      present: storedAs<WidgetValue[]>(),
      create: definition.optional(),
      update: definition.optional(),
    },
    user_id: { column: 'userId', description: 'The owner (the user who saved it)', read: z.number().int() },
    created_at: { column: 'createdAt', description: 'When it was created', read: timestamp(), present: iso },
    updated_at: { column: 'updatedAt', description: 'When it last changed', read: timestamp(), present: iso },
  },
  {
    // Scope.
    internal: ['organizationId'],
  },
);
