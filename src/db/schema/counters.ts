import { bigint, boolean, date, index, integer, numeric, pgTable, smallint, text } from 'drizzle-orm/pg-core';
import { id, organizationRef, tenantPolicy } from './tenancy';

/**
 * Live-row counters for unfiltered list totals: the organization's count of `relation` is the
 * SUM of its rows here. Statement-level triggers (drizzle/0007_live_row_counts.sql) append
 * each statement's net change and fold the organization's unlocked rows into it (SKIP LOCKED), so
 * concurrent writers never wait on one counter row and the rows stay few (about one per writer
 * in flight). No foreign key: a cascading organization delete fires the triggers after the
 * organization row is gone, and orphan counter rows are harmless.
 */
export const liveRowCounts = pgTable(
  'live_row_counts',
  {
    id: id(),
    organizationId: organizationRef(),
    relation: text().notNull(),
    delta: bigint({ mode: 'number' }).notNull(),
  },
  (table) => [
    index('live_row_counts_organization_relation_idx').on(table.organizationId, table.relation),
    tenantPolicy('live_row_counts'),
  ],
);

/**
 * Rollups of live leads maintained by the writes, so the dashboard aggregates over a period cost
 * the number of days and keys, not the number of leads. Same scheme as live_row_counts: a
 * statement-level trigger on leads (drizzle/0023_lead_rollups_sql.sql) appends each statement's
 * net change per key and folds the key's unlocked rows into it (SKIP LOCKED), so writers never
 * wait on each other and a key keeps about one row. A count is SUM(delta) over the key's rows.
 *
 * lead_day_counts: live leads by UTC day of creation, status, source and whether it has a won deal (GET
 * /api/dashboard/overview, saved lead counts by creation period, status and source).
 */
export const leadDayCounts = pgTable(
  'lead_day_counts',
  {
    id: id(),
    organizationId: organizationRef(),
    day: date({ mode: 'string' }).notNull(),
    status: integer().notNull(),
    leadSource: smallint(),
    /** leads.won_deals > 0: with status, whether the lead counts as converted. */
    wonDeal: boolean().notNull(),
    delta: integer().notNull(),
  },
  (table) => [
    // Covering: a period's sums read the index only.
    index('lead_day_counts_organization_day_idx').on(
      table.organizationId,
      table.day,
      table.status,
      table.leadSource,
      table.wonDeal,
      table.delta,
    ),
    tenantPolicy('lead_day_counts'),
  ],
);

/** Live leads per company (GET /api/company/stats). Same scheme as lead_day_counts. */
export const companyLeadCounts = pgTable(
  'company_lead_counts',
  {
    id: id(),
    organizationId: organizationRef(),
    companyId: bigint({ mode: 'number' }).notNull(),
    delta: integer().notNull(),
  },
  (table) => [
    index('company_lead_counts_organization_company_idx').on(table.organizationId, table.companyId, table.delta),
    tenantPolicy('company_lead_counts'),
  ],
);

/**
 * Live leads by UTC day of their last activity (`day` null: no activity yet) and status, for lead
 * aging (GET /api/dashboard/lead-aging). Same scheme as lead_day_counts. A lead moves between keys
 * on its first activity of a UTC day, a status change, deletion or restore.
 */
export const leadActivityDayCounts = pgTable(
  'lead_activity_day_counts',
  {
    id: id(),
    organizationId: organizationRef(),
    day: date({ mode: 'string' }),
    status: integer().notNull(),
    delta: integer().notNull(),
  },
  (table) => [
    index('lead_activity_day_counts_organization_day_idx').on(
      table.organizationId,
      table.day,
      table.status,
      table.delta,
    ),
    tenantPolicy('lead_activity_day_counts'),
  ],
);

/**
 * Live leads and the sum of their scores by assigned user (null: nobody), status and source, for
 * saved lead queries by owner, status or source with count, sum or average of the score and no
 * date (saved-queries/modules.ts). Same scheme as lead_day_counts; a score change writes it too.
 */
export const leadOwnerCounts = pgTable(
  'lead_owner_counts',
  {
    id: id(),
    organizationId: organizationRef(),
    assignedTo: bigint({ mode: 'number' }),
    status: integer().notNull(),
    leadSource: smallint(),
    delta: integer().notNull(),
    scoreSum: bigint({ mode: 'number' }).notNull(),
  },
  (table) => [
    // Covering: an organization's sums read the index only.
    index('lead_owner_counts_organization_owner_idx').on(
      table.organizationId,
      table.assignedTo,
      table.status,
      table.leadSource,
      table.delta,
      table.scoreSum,
    ),
    tenantPolicy('lead_owner_counts'),
  ],
);

/**
 * Deals by UTC day and event, for the overview's deal numbers (GET /api/dashboard/overview): every
 * deal counts once under `created` on its day of creation, and once more under its outcome on its
 * day of closing when `closed_at` is set. Each row carries the deals' count (`delta`), their summed
 * value and, for won deals, their summed days from the lead's creation to closing. Same scheme as
 * lead_day_counts, kept by statement triggers on deals.
 */
export const dealDayCounts = pgTable(
  'deal_day_counts',
  {
    id: id(),
    organizationId: organizationRef(),
    day: date({ mode: 'string' }).notNull(),
    /** created, or the outcome (won, lost) of a deal closed that day. */
    event: text().notNull(),
    delta: integer().notNull(),
    valueSum: numeric().notNull(),
    /** Won deals: the sum of (closed_at − the lead's created_at) in days. */
    convertDaysSum: numeric().notNull(),
  },
  (table) => [
    // Covering: a period's sums read the index only.
    index('deal_day_counts_organization_day_idx').on(
      table.organizationId,
      table.day,
      table.event,
      table.delta,
      table.valueSum,
      table.convertDaysSum,
    ),
    tenantPolicy('deal_day_counts'),
  ],
);

/**
 * Deals by pipeline, month of expected close and outcome, with their count, summed value and
 * summed weighted value of their latest forecast snapshot, for GET /api/forecast/pipeline. Same
 * scheme as lead_day_counts, kept by statement triggers on deals.
 */
export const dealCloseMonthCounts = pgTable(
  'deal_close_month_counts',
  {
    id: id(),
    organizationId: organizationRef(),
    pipelineId: bigint({ mode: 'number' }).notNull(),
    /** The first day of the month of expected_close_date. */
    month: date({ mode: 'string' }).notNull(),
    outcome: text().notNull(),
    delta: integer().notNull(),
    valueSum: numeric().notNull(),
    weightedSum: numeric().notNull(),
  },
  (table) => [
    // Covering: a horizon's sums read the index only.
    index('deal_close_month_counts_organization_month_idx').on(
      table.organizationId,
      table.month,
      table.pipelineId,
      table.outcome,
      table.delta,
      table.valueSum,
      table.weightedSum,
    ),
    tenantPolicy('deal_close_month_counts'),
  ],
);

/**
 * Deals by the company they carry (`deals.lead_company_id`: their live lead's company) and
 * outcome, with their count and summed value, for top accounts and company stats (open pipeline
 * by company). Same scheme as lead_day_counts, kept by statement triggers on deals; deals of no
 * live lead's company are not held.
 */
export const companyDealCounts = pgTable(
  'company_deal_counts',
  {
    id: id(),
    organizationId: organizationRef(),
    companyId: bigint({ mode: 'number' }).notNull(),
    outcome: text().notNull(),
    delta: integer().notNull(),
    valueSum: numeric().notNull(),
  },
  (table) => [
    // Covering: an outcome's sums by company read the index only.
    index('company_deal_counts_organization_outcome_idx').on(
      table.organizationId,
      table.outcome,
      table.companyId,
      table.delta,
      table.valueSum,
    ),
    tenantPolicy('company_deal_counts'),
  ],
);

/**
 * Intent signals by the company they carry (`intent_signals.lead_company_id`) and 5-day bucket of
 * their UTC occurrence day (`engagement_bucket`, drizzle/0041), for top accounts ranked by
 * engagement: a 30-day window is its whole buckets from here plus the signals of its two partial
 * ends, a third of the signals to read. Same scheme as lead_day_counts, kept by statement
 * triggers on intent_signals.
 */
export const companySignalCounts = pgTable(
  'company_signal_counts',
  {
    id: id(),
    organizationId: organizationRef(),
    companyId: bigint({ mode: 'number' }).notNull(),
    /** The first UTC day of the bucket (buckets of ENGAGEMENT_BUCKET_DAYS from 1970-01-01). */
    bucket: date({ mode: 'string' }).notNull(),
    delta: integer().notNull(),
  },
  (table) => [
    // Covering: a range of buckets by company reads the index only.
    index('company_signal_counts_organization_bucket_idx').on(
      table.organizationId,
      table.bucket,
      table.companyId,
      table.delta,
    ),
    tenantPolicy('company_signal_counts'),
  ],
);
