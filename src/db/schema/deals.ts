import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  smallint,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { leads } from './leads';
import { organizations, users } from './organizations';
import { createdAt, id, organizationRef, tenantPolicy, updatedAt } from './tenancy';

/** Sales pipelines (spec "Pipeline"). state_id: 1 active, 0 inactive. */
export const pipelines = pgTable(
  'pipelines',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    description: text(),
    maxDealLimit: numeric({ precision: 14, scale: 2, mode: 'number' }),
    region: text(),
    stateId: smallint().notNull().default(1),
    /** The pipeline signup seeds. */
    isDefault: boolean().notNull().default(false),
    createdBy: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [index('pipelines_organization_id_idx').on(table.organizationId, table.id), tenantPolicy('pipelines')],
);

/**
 * Stages of a pipeline (spec "Stage"), ordered by a dense 0-based `position` unique per pipeline.
 * At most one won and one lost stage per pipeline (partial unique indexes). A protected stage
 * (the default pipeline's Won and Lost) cannot be renamed, re-flagged or removed.
 */
export const stages = pgTable(
  'stages',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    pipelineId: bigint({ mode: 'number' })
      .notNull()
      .references(() => pipelines.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    color: text(),
    position: integer().notNull(),
    isWon: boolean().notNull().default(false),
    isLost: boolean().notNull().default(false),
    probability: doublePrecision().notNull(),
    maxDaysInStage: integer(),
    isProtected: boolean().notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('stages_pipeline_position_key').on(table.pipelineId, table.position),
    uniqueIndex('stages_pipeline_won_key').on(table.pipelineId).where(sql`${table.isWon}`),
    uniqueIndex('stages_pipeline_lost_key').on(table.pipelineId).where(sql`${table.isLost}`),
    index('stages_organization_pipeline_idx').on(table.organizationId, table.pipelineId),
    tenantPolicy('stages'),
  ],
);

/** Deals (spec "Deal"). outcome: open, won or lost, from the stage's flags; closed_at set on won/lost. */
export const deals = pgTable(
  'deals',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    leadId: bigint({ mode: 'number' })
      .notNull()
      .references(() => leads.id),
    pipelineId: bigint({ mode: 'number' })
      .notNull()
      .references(() => pipelines.id),
    stageId: bigint({ mode: 'number' })
      .notNull()
      .references(() => stages.id),
    title: text().notNull(),
    value: numeric({ precision: 14, scale: 2, mode: 'number' }).notNull(),
    expectedCloseDate: date({ mode: 'string' }).notNull(),
    priority: smallint(),
    description: text(),
    outcome: text().notNull().default('open'),
    closedAt: timestamp({ withTimezone: true }),
    stageEnteredAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    ownerId: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    /**
     * The company of the deal's lead while the lead is live (null otherwise), kept by triggers
     * (drizzle/0025 and 0031): a company's deals are one index range. Not on the wire.
     */
    leadCompanyId: bigint({ mode: 'number' }),
    /** The creation time of the deal's lead, kept by the same triggers: days to convert without reading the lead. */
    leadCreatedAt: timestamp({ withTimezone: true }),
    /**
     * The weighted value and day of the deal's latest forecast snapshot, kept by a trigger on
     * deal_forecasts (drizzle/0035), so the pipeline forecast sums them from a rollup. Not on the wire.
     */
    forecastWeightedValue: numeric({ precision: 14, scale: 2, mode: 'number' }),
    forecastSnapshotDate: date({ mode: 'string' }),
  },
  (table) => [
    // Lists in id order (`tenantIdOrder`, core/list.ts; migration 0078).
    index('deals_organization_id_idx').on(table.organizationId, table.id.desc().nullsLast()),
    // Company stats and top accounts: a company's open deals and their value, index-only.
    index('deals_organization_lead_company_idx').on(
      table.organizationId,
      table.outcome,
      table.leadCompanyId,
      table.value,
    ),
    index('deals_organization_lead_idx').on(table.organizationId, table.leadId),
    index('deals_organization_pipeline_stage_idx').on(table.organizationId, table.pipelineId, table.stageId),
    // Dashboard analytics: deals won and lost in a period.
    index('deals_organization_closed_idx')
      .on(table.organizationId, table.closedAt)
      .where(sql`${table.closedAt} is not null`),
    index('deals_organization_close_date_idx').on(table.organizationId, table.expectedCloseDate),
    tenantPolicy('deals'),
  ],
);

/** One row per stage change of a deal (the first, from_stage_id null, is its creation). */
export const dealStageHistory = pgTable(
  'deal_stage_history',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    dealId: bigint({ mode: 'number' })
      .notNull()
      .references(() => deals.id, { onDelete: 'cascade' }),
    fromStageId: bigint({ mode: 'number' }),
    toStageId: bigint({ mode: 'number' }).notNull(),
    changedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    changedBy: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    /** Seconds the deal spent in from_stage_id before this change (null for the creation row). */
    secondsInFromStage: bigint({ mode: 'number' }),
  },
  (table) => [
    // Parent deletes find this table's rows by it (the foreign key's check or cascade): migration 0066.
    index('deal_stage_history_deal_idx').on(table.dealId),
    index('deal_stage_history_organization_deal_idx').on(table.organizationId, table.dealId, table.id),
    tenantPolicy('deal_stage_history'),
  ],
);

/**
 * A deal's forecast, one snapshot per deal per day (the day's last change or the nightly run
 * wins): the stage's probability, the factors that adjusted it, and the weighted value.
 */
export const dealForecasts = pgTable(
  'deal_forecasts',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    dealId: bigint({ mode: 'number' })
      .notNull()
      .references(() => deals.id, { onDelete: 'cascade' }),
    pipelineId: bigint({ mode: 'number' }).notNull(),
    snapshotDate: date({ mode: 'string' }).notNull(),
    takenAt: timestamp({ withTimezone: true }).notNull(),
    stageId: bigint({ mode: 'number' }).notNull(),
    outcome: text().notNull(),
    value: numeric({ precision: 14, scale: 2, mode: 'number' }).notNull(),
    expectedCloseDate: date({ mode: 'string' }).notNull(),
    baseProbability: doublePrecision().notNull(),
    probability: doublePrecision().notNull(),
    weightedValue: numeric({ precision: 14, scale: 2, mode: 'number' }).notNull(),
    /** Names of the factors applied (see modules/forecast/factors.ts). */
    factors: jsonb().$type<string[]>().notNull().default([]),
    daysInStage: integer().notNull(),
  },
  (table) => [
    // Parent deletes find this table's rows by it (the foreign key's check or cascade): migration 0066.
    index('deal_forecasts_deal_idx').on(table.dealId),
    uniqueIndex('deal_forecasts_deal_day_key').on(table.organizationId, table.dealId, table.snapshotDate),
    index('deal_forecasts_organization_day_idx').on(table.organizationId, table.snapshotDate),
    tenantPolicy('deal_forecasts'),
  ],
);

/** Days the nightly forecast snapshot has run (across organizations), so the minute cron runs it once a day. */
export const forecastSnapshotRuns = pgTable('forecast_snapshot_runs', {
  day: date({ mode: 'string' }).primaryKey(),
  startedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  snapshots: integer(),
});
