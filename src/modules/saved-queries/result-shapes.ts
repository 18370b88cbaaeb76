/**
 * What POST /api/queries/{queryId}/execute answers, per widget type, and how the grouped rows
 * become it: number → {value}; bar, line, pie → {series:[{name, points:[{x, y}]}]};
 * table → {columns, rows}.
 */
import { z } from '@hono/zod-openapi';
import { dateInput } from '../../core/schemas';
import { MAX_RESULT_ROWS, type ResultRow } from './compile';
import { WIDGET_TYPES } from './schemas';

const dayParameter = (description: string) => dateInput().optional().openapi({ description, example: '2026-01-01' });

export const ExecuteQueryBody = z
  .object({
    parameters: z
      .object({
        start_date: dayParameter('On or after this day: the bucketed date when the query has a bucket, else creation'),
        end_date: dayParameter('On or before this day (inclusive), on the same date as start_date'),
        filters: z
          .record(z.string().max(50, 'keys must be at most 50 characters'), z.unknown())
          .optional()
          .openapi({
            description:
              "Filter overrides merged over the query's saved filters, checked the same way (422 naming the key)",
            example: { assigned_to: 'true' },
          }),
      })
      .strict()
      // An inverted range matches nothing: refused, as the analytics refuse it.
      .refine((range) => !(range.start_date && range.end_date && range.start_date > range.end_date), {
        message: 'must not be after end_date',
        path: ['start_date'],
      })
      .optional()
      .openapi({ description: 'Run-time parameters (start_date not after end_date)' }),
    widgetType: z
      .enum(WIDGET_TYPES)
      .optional()
      .openapi({ description: 'The shape of the result; table when omitted', example: 'bar' }),
  })
  .openapi('ExecuteSavedQueryRequest', {
    description: 'How to run the query',
    example: { parameters: { start_date: '2026-01-01', end_date: '2026-03-31' }, widgetType: 'bar' },
  });
export type ExecuteQueryInput = z.output<typeof ExecuteQueryBody>;

const common = {
  query_id: z.number().int().openapi({ description: 'The query run' }),
  metric: z.string().openapi({ description: 'The metric: count, or sum_<field> / avg_<field>', example: 'count' }),
};

const NumberResult = z
  .object({
    ...common,
    widget_type: z.literal('number').openapi({ description: 'number' }),
    value: z.number().nullable().openapi({ description: 'The metric over every matching row (avg: null when none)' }),
  })
  .openapi('NumberWidgetResult', {
    description: 'One number: groups and buckets are ignored',
    example: { query_id: 3, metric: 'count', widget_type: 'number', value: 42 },
  });

const Point = z
  .object({
    x: z.string().nullable().openapi({ description: 'The group label, or the bucket’s first day; null: no value' }),
    y: z.number().nullable().openapi({ description: 'The metric' }),
  })
  .openapi('WidgetPoint', { description: 'One point', example: { x: '2026-01-01', y: 12 } });

const SeriesResult = z
  .object({
    ...common,
    widget_type: z.enum(['bar', 'line', 'pie']).openapi({ description: 'bar, line or pie' }),
    series: z
      .array(
        z
          .object({
            name: z
              .string()
              .nullable()
              .openapi({ description: 'The group label (bucket + group_by), else the metric' }),
            points: z.array(Point).openapi({ description: 'Points in order: buckets ascending, else largest first' }),
          })
          .openapi({ description: 'One series' }),
      )
      .openapi({ description: 'One series per group when the query has both group_by and a bucket, else one' }),
    truncated: z.boolean().openapi({ description: `More than ${MAX_RESULT_ROWS} result rows: the rest were left off` }),
  })
  .openapi('SeriesWidgetResult', {
    description: 'Chart series',
    example: {
      query_id: 3,
      metric: 'count',
      widget_type: 'bar',
      series: [{ name: 'count', points: [{ x: 'New', y: 12 }] }],
      truncated: false,
    },
  });

const TableResult = z
  .object({
    ...common,
    widget_type: z.literal('table').openapi({ description: 'table' }),
    columns: z
      .array(z.string())
      .openapi({ description: 'The group_by column, the bucket (<field>_<unit>), the metric' }),
    rows: z
      .array(z.array(z.union([z.string(), z.number(), z.null()])))
      .openapi({ description: 'One array per result row, in column order' }),
    truncated: z.boolean().openapi({ description: `More than ${MAX_RESULT_ROWS} result rows: the rest were left off` }),
  })
  .openapi('TableWidgetResult', {
    description: 'Rows and columns',
    example: {
      query_id: 3,
      metric: 'count',
      widget_type: 'table',
      columns: ['status', 'count'],
      rows: [['New', 12]],
      truncated: false,
    },
  });

export const QueryResult = z.union([NumberResult, SeriesResult, TableResult]).openapi('SavedQueryResult', {
  description: 'The result, shaped for the widget type',
  example: { query_id: 3, metric: 'count', widget_type: 'number', value: 42 },
});
export type QueryResultValue = z.output<typeof QueryResult>;

interface Shape {
  queryId: number;
  metric: string;
  groupBy: string | null;
  bucket: { field: string; unit: string } | null;
}

export function numberResult(shape: Shape, value: number | null): QueryResultValue {
  return { query_id: shape.queryId, metric: shape.metric, widget_type: 'number', value };
}

export function shapeRows(
  shape: Shape,
  widgetType: 'bar' | 'line' | 'pie' | 'table',
  fetched: ResultRow[],
): QueryResultValue {
  const truncated = fetched.length > MAX_RESULT_ROWS;
  const rows = fetched.slice(0, MAX_RESULT_ROWS);
  const base = { query_id: shape.queryId, metric: shape.metric, truncated };
  if (widgetType === 'table') {
    const columns = [
      ...(shape.groupBy ? [shape.groupBy] : []),
      ...(shape.bucket ? [`${shape.bucket.field}_${shape.bucket.unit}`] : []),
      shape.metric,
    ];
    const cells = rows.map((row) => [
      ...(shape.groupBy ? [row.label] : []),
      ...(shape.bucket ? [row.bucket] : []),
      row.value,
    ]);
    return { ...base, widget_type: 'table', columns, rows: cells };
  }
  if (shape.groupBy && shape.bucket) {
    const series = new Map<string | null, { x: string | null; y: number | null }[]>();
    for (const row of rows) {
      const points = series.get(row.label) ?? [];
      points.push({ x: row.bucket, y: row.value });
      series.set(row.label, points);
    }
    return { ...base, widget_type: widgetType, series: [...series].map(([name, points]) => ({ name, points })) };
  }
  const points = rows.map((row) => ({ x: shape.bucket ? row.bucket : shape.groupBy ? row.label : null, y: row.value }));
  return { ...base, widget_type: widgetType, series: [{ name: shape.metric, points }] };
}
