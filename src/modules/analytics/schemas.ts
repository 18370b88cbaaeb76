/**
 * Query and response shapes of the dashboard analytics endpoints (GET /api/dashboard/*).
 */
import { z } from '@hono/zod-openapi';
import { dateInput } from '../../core/schemas';
import { AGING_BUCKETS, MAX_PERIOD_DAYS } from './period';

const day = (description: string, example: string) => dateInput().optional().openapi({ description, example });

export const PeriodQuery = z.object({
  start_date: day('First day of the period (UTC, YYYY-MM-DD); default end_date − 29 days', '2026-06-01'),
  end_date: day(
    `Last day of the period, inclusive (UTC, YYYY-MM-DD); default today. At most ${MAX_PERIOD_DAYS} days from start_date`,
    '2026-06-30',
  ),
});

export const TopAccountsQuery = z.object({
  rank_by: z
    .enum(['pipeline_value', 'engagement'])
    .default('pipeline_value')
    .openapi({ description: 'Rank by open pipeline value (default) or by engagement score' }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(10)
    .openapi({ description: 'At most this many companies (1 to 100, default 10)' }),
});

const PeriodBounds = z
  .object({
    start_date: z.string().openapi({ format: 'date', description: 'First day (UTC)', example: '2026-06-01' }),
    end_date: z.string().openapi({ format: 'date', description: 'Last day, inclusive (UTC)', example: '2026-06-30' }),
    days: z.number().int().openapi({ description: 'Length in days', example: 30 }),
  })
  .openapi('AnalyticsPeriod', {
    description: 'A period of whole UTC days',
    example: { start_date: '2026-06-01', end_date: '2026-06-30', days: 30 },
  });

const comparison = {
  value: z
    .number()
    .nullable()
    .openapi({ description: 'In the period (null when undefined, e.g. an average of nothing)' }),
  previous: z.number().nullable().openapi({ description: 'In the previous period of equal length' }),
  change: z.number().nullable().openapi({ description: 'value − previous (null when either is null)' }),
  change_percent: z
    .number()
    .nullable()
    .openapi({ description: '100 × change / previous, 2 decimals (null when previous is 0 or null)' }),
};
const metricExample = { value: 120, previous: 100, change: 20, change_percent: 20 };

export const Metric = z
  .object(comparison)
  .openapi('AnalyticsMetric', { description: 'A number with its previous-period comparison', example: metricExample });

const metric = (description: string) => Metric.openapi({ description });

export const Overview = z
  .object({
    period: PeriodBounds,
    previous_period: PeriodBounds,
    leads_created: metric('Live leads created in the period'),
    converted_leads: metric('Of those, the ones converted (Converted status or a won deal)'),
    conversion_rate: metric('converted_leads / leads_created × 100, 2 decimals (null with no leads)'),
    deals_won: metric('Deals closed won in the period (by closed_at)'),
    deals_won_value: metric('Their total value'),
    deals_lost: metric('Deals closed lost in the period (by closed_at)'),
    deals_lost_value: metric('Their total value'),
    pipeline_value: metric(
      'Value of the deals open at the end of the period (created before it ends, not closed by then)',
    ),
    open_deals: metric('How many deals were open at the end of the period'),
    meetings_held: metric('Meetings with status Held starting in the period'),
    avg_days_to_convert: metric(
      'Average days from a lead’s creation to the close of its won deal, over deals won in the period, 1 decimal',
    ),
  })
  .openapi('DashboardOverview', {
    description: 'Headline numbers of a period against the previous period of equal length',
    example: {
      period: { start_date: '2026-06-01', end_date: '2026-06-30', days: 30 },
      previous_period: { start_date: '2026-05-02', end_date: '2026-05-31', days: 30 },
      leads_created: metricExample,
      converted_leads: { value: 12, previous: 8, change: 4, change_percent: 50 },
      conversion_rate: { value: 10, previous: 8, change: 2, change_percent: 25 },
      deals_won: { value: 4, previous: 2, change: 2, change_percent: 100 },
      deals_won_value: { value: 40000, previous: 25000, change: 15000, change_percent: 60 },
      deals_lost: { value: 1, previous: 2, change: -1, change_percent: -50 },
      deals_lost_value: { value: 3000, previous: 9000, change: -6000, change_percent: -66.67 },
      pipeline_value: { value: 250000, previous: 200000, change: 50000, change_percent: 25 },
      open_deals: { value: 25, previous: 20, change: 5, change_percent: 25 },
      meetings_held: { value: 18, previous: 12, change: 6, change_percent: 50 },
      avg_days_to_convert: { value: 21.5, previous: 30, change: -8.5, change_percent: -28.33 },
    },
  });

const StatusCount = z
  .object({
    status: z.number().int().openapi({ description: 'The status value (Lead.status)', example: 2 }),
    name: z.string().nullable().openapi({ description: 'The status lookup’s name (null if no lookup has this value)' }),
    ...comparison,
  })
  .openapi('DashboardStatusCount', {
    description: 'Leads created in the period with this (current) status, against the previous period',
    example: { status: 2, name: 'Contacted', ...metricExample },
  });

const SourceCount = z
  .object({
    source: z.number().int().nullable().openapi({ description: 'The source value (Lead.lead_source); null: none' }),
    name: z
      .string()
      .nullable()
      .openapi({ description: 'The source lookup’s name (null for none or an unknown value)' }),
    ...comparison,
  })
  .openapi('DashboardSourceCount', {
    description: 'Leads created in the period from this source, against the previous period',
    example: { source: 1, name: 'Website', ...metricExample },
  });

const PipelineOutcome = z
  .object({
    pipeline_id: z.number().int().openapi({ description: 'The pipeline', example: 3 }),
    name: z.string().openapi({ description: 'Its name', example: 'Sales' }),
    won: metric('Deals of the pipeline closed won in the period'),
    won_value: metric('Their value'),
    lost: metric('Deals of the pipeline closed lost in the period'),
    lost_value: metric('Their value'),
  })
  .openapi('DashboardPipelineOutcome', {
    description: 'Won and lost deals of one pipeline, against the previous period',
    example: {
      pipeline_id: 3,
      name: 'Sales',
      won: metricExample,
      won_value: metricExample,
      lost: metricExample,
      lost_value: metricExample,
    },
  });

export const Stats = z
  .object({
    period: PeriodBounds,
    previous_period: PeriodBounds,
    by_status: z
      .array(StatusCount)
      .openapi({ description: 'Most leads first; statuses with none in both periods left out' }),
    by_source: z
      .array(SourceCount)
      .openapi({ description: 'Most leads first; sources with none in both periods left out' }),
    by_pipeline: z
      .array(PipelineOutcome)
      .openapi({ description: 'Pipelines with a deal closed in either period, by won value, largest first' }),
  })
  .openapi('DashboardStats', {
    description: 'Breakdowns of a period against the previous period of equal length',
    example: {
      period: { start_date: '2026-06-01', end_date: '2026-06-30', days: 30 },
      previous_period: { start_date: '2026-05-02', end_date: '2026-05-31', days: 30 },
      by_status: [{ status: 1, name: 'New', ...metricExample }],
      by_source: [{ source: 1, name: 'Website', ...metricExample }],
      by_pipeline: [],
    },
  });

const Bucket = z
  .object({
    bucket: z.string().openapi({ description: `The bucket: ${AGING_BUCKETS.map((b) => b.name).join(', ')} or never` }),
    min_days: z.number().int().nullable().openapi({ description: 'Fewest whole days in it (null for never)' }),
    max_days: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Most whole days in it (null: no upper bound / never)' }),
    count: z.number().int().openapi({ description: 'Open leads in it' }),
  })
  .openapi('LeadAgingBucket', {
    description: 'Open leads whose age falls in a range of whole days',
    example: { bucket: '8-30', min_days: 8, max_days: 30, count: 42 },
  });

export const LeadAging = z
  .object({
    as_of: z.string().openapi({ format: 'date-time', description: 'The instant ages are counted to' }),
    open_leads: z.number().int().openapi({ description: 'Open leads: live, status neither Converted nor Lost' }),
    by_created: z.array(Bucket).openapi({ description: 'By whole days since the lead was created' }),
    by_last_activity: z
      .array(Bucket)
      .openapi({ description: 'By whole days since last_activity_at; `never` for leads with no activity' }),
  })
  .openapi('LeadAging', {
    description: 'Open leads bucketed by age',
    example: {
      as_of: '2026-06-15T12:00:00.000Z',
      open_leads: 3,
      by_created: [{ bucket: '0-7', min_days: 0, max_days: 7, count: 3 }],
      by_last_activity: [{ bucket: 'never', min_days: null, max_days: null, count: 3 }],
    },
  });

export const TopAccount = z
  .object({
    id: z.number().int().openapi({ description: 'The company', example: 7 }),
    company_name: z.string().openapi({ description: 'Its name', example: 'Acme' }),
    open_deals: z.number().int().openapi({ description: 'Open deals of its live leads', example: 2 }),
    open_pipeline_value: z.number().openapi({ description: 'Their total value', example: 30000 }),
    intent_signals: z
      .number()
      .int()
      .openapi({ description: 'Intent signals of its live leads in the last 30 days', example: 5 }),
    meetings: z.number().int().openapi({
      description: 'Meetings (not cancelled nor no-show) of the company or its live leads starting in the last 30 days',
      example: 1,
    }),
    engagement_score: z.number().int().openapi({ description: 'intent_signals + 3 × meetings', example: 8 }),
  })
  .openapi('TopAccount', {
    description: 'A company ranked by open pipeline and engagement',
    example: {
      id: 7,
      company_name: 'Acme',
      open_deals: 2,
      open_pipeline_value: 30000,
      intent_signals: 5,
      meetings: 1,
      engagement_score: 8,
    },
  });
