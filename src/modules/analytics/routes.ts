/**
 * Dashboard analytics: headline numbers and breakdowns of a period against the previous one,
 * open-lead aging and the top accounts. Each answers from one SQL statement.
 */
import { list, ok, wholeList } from '../../core/http';
import { createRouter, defineRoute, envelope, listEnvelope } from '../../core/routes';
import { leadAging } from './lead-aging';
import { dashboardOverview } from './overview';
import { AGING_BUCKETS, DEFAULT_PERIOD_DAYS, ENGAGEMENT_DAYS, MAX_PERIOD_DAYS, MEETING_WEIGHT } from './period';
import { LeadAging, Overview, PeriodQuery, Stats, TopAccount, TopAccountsQuery } from './schemas';
import { dashboardStats } from './stats';
import { topAccounts } from './top-accounts';

export const analyticsRoutes = createRouter();
const tags = ['Analytics'];
const PERIOD_NOTE = `The period is start_date to end_date, whole UTC days, inclusive (default the last ${DEFAULT_PERIOD_DAYS} days to today; at most ${MAX_PERIOD_DAYS} days); the previous period is as long and ends the day before start_date. A date that is not a real YYYY-MM-DD day from 1900-01-01, an end_date not before 9999-12-31, start_date after end_date or a longer range answers 400 naming the field.`;

analyticsRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/dashboard/overview',
    operationId: 'getDashboardOverview',
    tags,
    summary: 'Headline numbers of a period, each against the previous period',
    description: `Leads created and converted (Converted status or a won deal) and the conversion rate, deals won and lost with their value (by closed_at), the pipeline value and count of deals open at the end of the period, meetings held, and the average days from a lead's creation to its won deal. Each as value, previous, change and change_percent. ${PERIOD_NOTE}`,
    auth: 'bearer',
    request: { query: PeriodQuery },
    responses: { 200: envelope(Overview, 'Dashboard overview') },
  }),
  async (c) => ok(c, await dashboardOverview(c.var.tenant, c.req.valid('query'), new Date()), 'Dashboard overview'),
);

analyticsRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/dashboard/stats',
    operationId: 'getDashboardStats',
    tags,
    summary: 'Breakdowns of a period: leads by status and source, won and lost deals by pipeline',
    description: `The leads created in the period by their current status and by source, and the deals closed won and lost in the period per pipeline with their value, each against the previous period. ${PERIOD_NOTE}`,
    auth: 'bearer',
    request: { query: PeriodQuery },
    responses: { 200: envelope(Stats, 'Dashboard stats') },
  }),
  async (c) => ok(c, await dashboardStats(c.var.tenant, c.req.valid('query'), new Date()), 'Dashboard stats'),
);

analyticsRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/dashboard/lead-aging',
    operationId: 'getLeadAging',
    tags,
    summary: 'Open leads bucketed by age since creation and since last activity',
    description: `Open leads (not deleted; status neither the Converted nor the Lost status lookup) counted by whole days since creation and since last_activity_at, in the buckets ${AGING_BUCKETS.map((bucket) => bucket.name).join(', ')} days; leads with no activity count under never.`,
    auth: 'bearer',
    responses: { 200: envelope(LeadAging, 'Lead aging') },
  }),
  async (c) => ok(c, await leadAging(c.var.tenant, new Date()), 'Lead aging'),
);

analyticsRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/dashboard/top-accounts',
    operationId: 'listTopAccounts',
    tags,
    summary: 'Companies by open pipeline value and engagement',
    description: `Live companies with an open deal or engagement, ranked by open pipeline value (open deals of the company's live leads) or, with rank_by=engagement, by engagement score: intent signals of its live leads plus ${MEETING_WEIGHT} × its meetings (of the company or its live leads, not cancelled nor no-show), both over the last ${ENGAGEMENT_DAYS} days.`,
    auth: 'bearer',
    request: { query: TopAccountsQuery },
    responses: {
      200: listEnvelope(TopAccount, 'Top accounts', {
        whole: true,
        rows: 'The companies, best first (at most `limit`)',
      }),
    },
  }),
  async (c) => {
    const query = c.req.valid('query');
    return list(c, wholeList(await topAccounts(c.var.tenant, query, new Date()), query.limit), 'Top accounts');
  },
);
