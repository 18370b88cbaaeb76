/**
 * Forecasting: a deal's latest forecast and its history, the pipeline forecast by period and the
 * deals behind a month, deals at risk, and forecast accuracy (JSON or CSV).
 */
import { z } from '@hono/zod-openapi';
import { list, ok, wholeList } from '../../core/http';
import { createRouter, defineRoute, envelope, idParam, listEnvelope } from '../../core/routes';
import { dealForecast, dealForecastHistory } from './deal-forecast';
import { ContributorListQuery, forecastContributors, pipelineForecast } from './pipeline-forecast';
import { accuracyCsv, dealsAtRisk, forecastAccuracy } from './risk';
import {
  AccuracyMonth,
  AccuracyQuery,
  AtRiskDeal,
  AtRiskQuery,
  Contributor,
  DealForecast,
  ForecastSnapshot,
  HistoryQuery,
  PipelineForecastQuery,
  PipelinePeriod,
} from './schemas';

export const forecastRoutes = createRouter();
const tags = ['Forecasting'];
const FACTORS_NOTE =
  'probability = min(1, stage probability × multipliers): stalled ×0.7 (days in stage > max_days_in_stage), close_date_passed ×0.5, recent_activity ×1.1 (lead activity in 14 days), no_recent_activity ×0.8 (none on the lead nor the deal’s creation in 30 days); won 1, lost 0; weighted value = value × probability.';

forecastRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/forecast/deal/{id}',
    operationId: 'getDealForecast',
    tags,
    summary: 'A deal’s latest forecast, its trend and the factors that moved it',
    description: `The deal's latest daily snapshot (every deal change and the nightly run record one), its trend against the previous snapshot (up, down or flat by weighted value) and what changed: factors added and removed, stage, value. ${FACTORS_NOTE}`,
    auth: 'bearer',
    request: { params: idParam() },
    responses: { 200: envelope(DealForecast, 'Deal forecast') },
  }),
  async (c) => ok(c, await dealForecast(c.var.tenant, c.req.valid('param').id), 'Deal forecast'),
);

forecastRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/forecast/deal/{id}/history',
    operationId: 'getDealForecastHistory',
    tags,
    summary: 'A deal’s forecast snapshots, newest first',
    description: 'The deal’s daily forecast snapshots, newest first, at most `limit` (default 30, at most 100).',
    auth: 'bearer',
    request: { params: idParam(), query: HistoryQuery },
    responses: {
      200: listEnvelope(ForecastSnapshot, 'Forecast history', {
        whole: true,
        rows: 'Snapshots, newest first (at most `limit`)',
      }),
    },
  }),
  async (c) => {
    const { limit } = c.req.valid('query');
    const snapshots = await dealForecastHistory(c.var.tenant, c.req.valid('param').id, limit);
    return list(c, wholeList(snapshots, limit), 'Forecast history');
  },
);

forecastRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/forecast/pipeline',
    operationId: 'getPipelineForecast',
    tags,
    summary: 'Committed, best case, weighted pipeline and deal count per month or quarter',
    description:
      'For each period from the current one (`months` months ahead, in months or quarters), by expected close date (a won deal by the month it was won): committed (the value of the deals won in the period), best case (every deal not lost), weighted pipeline (open deals’ latest weighted value), expected total (committed + weighted) and deal count (not lost). Open deals whose close date has passed fall before the first period and are listed by GET /api/forecast/at-risk.',
    auth: 'bearer',
    request: { query: PipelineForecastQuery },
    responses: {
      200: listEnvelope(PipelinePeriod, 'Pipeline forecast', { whole: true, rows: 'The periods in order' }),
    },
  }),
  async (c) =>
    list(c, wholeList(await pipelineForecast(c.var.tenant, c.req.valid('query'), new Date())), 'Pipeline forecast'),
);

forecastRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/forecast/pipeline/contributors',
    operationId: 'listForecastContributors',
    tags,
    summary: 'The deals and owners behind a month’s forecast',
    description:
      'The deals not lost expected to close in `period_month` (YYYY-MM, default the current month), with their owner, stage, value and latest probability and weighted value; largest weighted value first by default.',
    auth: 'bearer',
    request: { query: ContributorListQuery },
    responses: { 200: listEnvelope(Contributor) },
  }),
  async (c) => list(c, await forecastContributors(c.var.tenant, c.req.valid('query'), new Date())),
);

forecastRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/forecast/at-risk',
    operationId: 'listDealsAtRisk',
    tags,
    summary: 'Open deals at risk, with their reasons, by value at risk',
    description:
      'Open deals with at least one reason: stalled (days in stage > the stage’s max_days_in_stage), close_date_passed, no_activity (nothing on the lead nor the deal’s creation in 30 days), value_dropped (value below its highest snapshot of the last 30 days). Ordered by value at risk (value × stage probability), largest first. `owner=me` keeps the caller’s deals, `status` a stage.',
    auth: 'bearer',
    request: { query: AtRiskQuery },
    responses: {
      200: listEnvelope(AtRiskDeal, 'Deals at risk', {
        whole: true,
        rows: 'Deals at risk, largest value at risk first (at most `limit`)',
      }),
    },
  }),
  async (c) => {
    const query = c.req.valid('query');
    return list(c, wholeList(await dealsAtRisk(c.var.tenant, query, new Date()), query.limit), 'Deals at risk');
  },
);

forecastRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/forecast/accuracy',
    operationId: 'getForecastAccuracy',
    tags,
    summary: 'Per past month: the forecast at its start against what closed won',
    description:
      'For each of the `months` months before the current one: forecast = the weighted values of each deal’s latest snapshot on or before the month’s first day, for deals it expected to close that month; actual = the value of deals closed won in the month; error = forecast − actual; error_percent = 100 × error / actual (null when actual is 0). `format=csv` answers text/csv with the header row month,forecast,actual,error,error_percent.',
    auth: 'bearer',
    request: { query: AccuracyQuery },
    responses: {
      200: {
        description: 'The months, oldest first (JSON envelope, or CSV with format=csv)',
        content: {
          ...listEnvelope(AccuracyMonth, 'Forecast accuracy', { whole: true, rows: 'The months, oldest first' })
            .content,
          'text/csv': { schema: z.string().openapi({ description: 'month,forecast,actual,error,error_percent rows' }) },
        },
      },
    },
  }),
  async (c) => {
    const query = c.req.valid('query');
    const rows = await forecastAccuracy(c.var.tenant, query, new Date());
    if (query.format === 'csv') return c.body(accuracyCsv(rows), 200, { 'content-type': 'text/csv; charset=utf-8' });
    return list(c, wholeList(rows), 'Forecast accuracy');
  },
);
