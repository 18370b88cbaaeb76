/**
 * Query and response shapes of the forecasting endpoints.
 */
import { z } from '@hono/zod-openapi';
import { FIRST_DAY } from '../../core/calendar';
import { positiveId, timestamp } from '../../core/schemas';
import { FACTOR_NAMES } from './factors';

const optionalPipeline = positiveId
  .optional()
  .openapi({ type: 'integer', description: 'Only deals of this pipeline', example: 3 });
const money = (description: string) => z.number().openapi({ description, example: 12500 });

export const HistoryQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(30)
    .openapi({ description: 'Snapshots to return, newest first (1 to 100, default 30)' }),
});

export const PipelineForecastQuery = z.object({
  period: z
    .enum(['monthly', 'quarterly'])
    .default('monthly')
    .openapi({ description: 'Bucket by calendar month or quarter (default monthly)' }),
  months: z.coerce
    .number()
    .int()
    .min(1)
    .max(24)
    .default(6)
    .openapi({ description: 'How many months ahead, from the current one (1 to 24, default 6)' }),
  pipeline_id: optionalPipeline,
});

export const AtRiskQuery = z.object({
  status: positiveId.optional().openapi({ type: 'integer', description: 'Only deals in this stage (a stage id)' }),
  owner: z.enum(['me', 'all']).default('all').openapi({ description: '`me`: only the caller’s deals (default all)' }),
  pipeline_id: optionalPipeline,
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(10)
    .openapi({ description: 'At most this many (1 to 100, default 10)' }),
});

export const AccuracyQuery = z.object({
  months: z.coerce
    .number()
    .int()
    .min(1)
    .max(24)
    .default(6)
    .openapi({ description: 'How many past months, before the current one (1 to 24, default 6)' }),
  pipeline_id: optionalPipeline,
  format: z.enum(['json', 'csv']).default('json').openapi({ description: '`csv`: text/csv with a header row' }),
});

export const contributorFilters = {
  pipeline_id: optionalPipeline,
  period_month: z
    .string()
    // A month of the calendar (core/calendar.ts): 1900-01 to 9999-12.
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be a month YYYY-MM')
    .refine((month) => `${month}-01` >= FIRST_DAY, `must be a month YYYY-MM from ${FIRST_DAY.slice(0, 7)} on`)
    .optional()
    .openapi({ description: 'The month, YYYY-MM (default the current month)', example: '2026-06' }),
};

const Factor = z
  .object({
    factor: z.enum(FACTOR_NAMES as [string, ...string[]]).openapi({ description: 'The factor’s name' }),
    multiplier: z.number().openapi({ description: 'What it multiplies the probability by' }),
    description: z.string().openapi({ description: 'When it applies' }),
  })
  .openapi('ForecastFactor', {
    description: 'A factor applied to the stage’s probability',
    example: {
      factor: 'stalled',
      multiplier: 0.7,
      description: 'Longer in its stage than the stage’s max_days_in_stage',
    },
  });

const snapshotShape = {
  snapshot_date: z.string().openapi({ format: 'date', description: 'The UTC day of the snapshot' }),
  taken_at: timestamp('When it was computed'),
  stage_id: z.number().int().openapi({ description: 'The deal’s stage then' }),
  outcome: z.string().openapi({ description: 'open, won or lost then' }),
  value: money('The deal’s value then'),
  expected_close_date: z.string().openapi({ format: 'date', description: 'Its expected close date then' }),
  days_in_stage: z.number().int().openapi({ description: 'Whole days in its stage then' }),
  base_probability: z.number().openapi({ description: 'The stage’s probability (1 won, 0 lost)' }),
  probability: z.number().openapi({ description: 'The adjusted probability: min(1, base × multipliers)' }),
  weighted_value: money('value × probability'),
  factors: z.array(Factor).openapi({ description: 'The factors applied' }),
};

const exampleSnapshot = {
  snapshot_date: '2026-06-01',
  taken_at: '2026-06-01T00:01:00.000Z',
  stage_id: 12,
  outcome: 'open',
  value: 10000,
  expected_close_date: '2026-06-30',
  days_in_stage: 30,
  base_probability: 0.5,
  probability: 0.35,
  weighted_value: 3500,
  factors: [
    { factor: 'stalled', multiplier: 0.7, description: 'Longer in its stage than the stage’s max_days_in_stage' },
  ],
};

export const ForecastSnapshot = z.object(snapshotShape).openapi('DealForecastSnapshot', {
  description: 'A deal’s forecast on one day',
  example: exampleSnapshot,
});

export const DealForecast = z
  .object({
    deal_id: z.number().int().openapi({ description: 'The deal' }),
    ...snapshotShape,
    trend: z.enum(['up', 'down', 'flat']).openapi({ description: 'Weighted value against the previous snapshot' }),
    previous: ForecastSnapshot.nullable().openapi({
      description: 'The previous snapshot; null when this is the first',
    }),
    changes: z
      .object({
        probability: z.number().openapi({ description: 'Probability now minus before' }),
        weighted_value: z.number().openapi({ description: 'Weighted value now minus before' }),
        factors_added: z.array(z.string()).openapi({ description: 'Factors that apply now and did not before' }),
        factors_removed: z.array(z.string()).openapi({ description: 'Factors that applied before and no longer do' }),
        stage_changed: z.boolean().openapi({ description: 'Whether the stage changed' }),
        value_changed: z.boolean().openapi({ description: 'Whether the deal’s value changed' }),
      })
      .openapi({ description: 'What moved the forecast since the previous snapshot (zeros when none)' }),
  })
  .openapi('DealForecast', {
    description: 'A deal’s latest forecast, its trend and what moved it',
    example: {
      deal_id: 5,
      ...exampleSnapshot,
      trend: 'down',
      previous: {
        ...exampleSnapshot,
        snapshot_date: '2026-05-31',
        probability: 0.5,
        weighted_value: 5000,
        factors: [],
      },
      changes: {
        probability: -0.15,
        weighted_value: -1500,
        factors_added: ['stalled'],
        factors_removed: [],
        stage_changed: false,
        value_changed: false,
      },
    },
  });

export const PipelinePeriod = z
  .object({
    period: z.string().openapi({ description: 'YYYY-MM, or YYYY-Qn for quarters' }),
    start_date: z.string().openapi({ format: 'date', description: 'First day of the period' }),
    end_date: z.string().openapi({ format: 'date', description: 'Last day of the period' }),
    committed: money('The value of the deals won in the period (by closed_at)'),
    best_case: money('Value of every deal not lost (open and won)'),
    weighted_pipeline: money('Open deals’ weighted value (their latest forecast)'),
    expected_total: money('committed + weighted_pipeline'),
    deal_count: z.number().int().openapi({ description: 'Deals not lost (open and won)' }),
  })
  .openapi('PipelineForecastPeriod', {
    description: 'One period of the pipeline forecast, by expected close date (won deals by the month they were won)',
    example: {
      period: '2026-06',
      start_date: '2026-06-01',
      end_date: '2026-06-30',
      committed: 20000,
      best_case: 60000,
      weighted_pipeline: 15000,
      expected_total: 35000,
      deal_count: 5,
    },
  });

export const Contributor = z
  .object({
    id: z.number().int().openapi({ description: 'The deal' }),
    title: z.string().openapi({ description: 'Its title' }),
    owner_id: z.number().int().nullable().openapi({ description: 'Its owner' }),
    owner_name: z.string().nullable().openapi({ description: 'The owner’s name' }),
    stage_id: z.number().int().openapi({ description: 'Its stage' }),
    stage_name: z.string().openapi({ description: 'The stage’s name' }),
    outcome: z.string().openapi({ description: 'open or won' }),
    expected_close_date: z.string().openapi({ format: 'date', description: 'Its expected close date' }),
    value: money('Its value'),
    probability: z.number().openapi({ description: 'Its latest forecast probability' }),
    weighted_value: money('Its latest weighted value'),
  })
  .openapi('ForecastContributor', {
    description: 'A deal counted in a month’s forecast',
    example: {
      id: 5,
      title: 'Annual licence',
      owner_id: 1,
      owner_name: 'Ada Admin',
      stage_id: 12,
      stage_name: 'Proposal',
      outcome: 'open',
      expected_close_date: '2026-06-30',
      value: 10000,
      probability: 0.5,
      weighted_value: 5000,
    },
  });

export const AtRiskDeal = z
  .object({
    deal_id: z.number().int().openapi({ description: 'The deal' }),
    title: z.string().openapi({ description: 'Its title' }),
    lead_id: z.number().int().openapi({ description: 'Its lead' }),
    owner_id: z.number().int().nullable().openapi({ description: 'Its owner' }),
    pipeline_id: z.number().int().openapi({ description: 'Its pipeline' }),
    stage_id: z.number().int().openapi({ description: 'Its stage' }),
    stage_name: z.string().openapi({ description: 'The stage’s name' }),
    value: money('Its value'),
    value_at_risk: money('value × the stage’s probability: what the pipeline counts on from it'),
    days_in_stage: z.number().int().openapi({ description: 'Whole days in its stage' }),
    expected_close_date: z.string().openapi({ format: 'date', description: 'Its expected close date' }),
    last_activity_at: timestamp('The lead’s last activity').nullable(),
    reasons: z
      .array(
        z
          .object({
            reason: z
              .enum(['stalled', 'close_date_passed', 'no_activity', 'value_dropped'])
              .openapi({ description: 'Why it is at risk' }),
            detail: z.string().openapi({ description: 'The numbers behind it' }),
          })
          .openapi({ description: 'One reason' }),
      )
      .openapi({ description: 'Every reason that applies' }),
  })
  .openapi('AtRiskDeal', {
    description: 'An open deal at risk',
    example: {
      deal_id: 5,
      title: 'Annual licence',
      lead_id: 7,
      owner_id: 1,
      pipeline_id: 3,
      stage_id: 12,
      stage_name: 'Proposal',
      value: 10000,
      value_at_risk: 5000,
      days_in_stage: 30,
      expected_close_date: '2026-05-31',
      last_activity_at: null,
      reasons: [{ reason: 'stalled', detail: '30 days in Proposal (max 21)' }],
    },
  });

export const AccuracyMonth = z
  .object({
    month: z.string().openapi({ description: 'YYYY-MM' }),
    forecast: money('Weighted value forecast at the start of the month for deals expected to close in it'),
    actual: money('Value of deals closed won in the month'),
    error: money('forecast − actual (positive: over-forecast)'),
    error_percent: z
      .number()
      .nullable()
      .openapi({ description: '100 × error / actual, 2 decimals; null when actual is 0' }),
  })
  .openapi('ForecastAccuracyMonth', {
    description: 'One past month: the forecast at its start against what closed won',
    example: { month: '2026-05', forecast: 40000, actual: 32000, error: 8000, error_percent: 25 },
  });
