import {
  bigint,
  boolean,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { endedJobsIndex, jobRun, openJobsIndex } from './job-lease';
import { organizations, users } from './organizations';
import { createdAt, id, organizationRef, tenantPolicy } from './tenancy';

/**
 * Scoring runs (job kind 'lead-scoring', modules/lead-scoring): written by lead creation, by a
 * change to a scored field and by a new intent signal, in the same statement as the change, with
 * its outbox message. `lead_ids` names the leads to score; null means every live lead of the
 * organization (after a retraining), walked in batches: `checkpoint_id` is the last lead id a
 * committed batch scored, so a redelivery resumes after it. `retrain`: train the organization's
 * model first (the daily cron's jobs).
 */
export const leadScoringJobs = pgTable(
  'lead_scoring_jobs',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    leadIds: bigint({ mode: 'number' }).array(),
    retrain: boolean().notNull().default(false),
    checkpointId: bigint({ mode: 'number' }).notNull().default(0),
    scoredCount: integer().notNull().default(0),
    createdBy: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    ...jobRun(),
  },
  (table) => [
    index('lead_scoring_jobs_organization_id_idx').on(table.organizationId, table.id),
    openJobsIndex('lead_scoring_jobs_open_lease_idx', table),
    endedJobsIndex('lead_scoring_jobs_ended_idx', table),
    tenantPolicy('lead_scoring_jobs'),
  ],
);

/** One feature of a scoring model: its weight in log-odds per unit, and the mean and spread of its training sample. */
export interface ScoreFeatureWeight {
  name: string;
  weight: number;
  mean: number;
  std: number;
}

/** The values of an attribute the organization's won leads favour (modules/lead-scoring/ideal-profile.ts). */
export interface IdealProfile {
  industries: string[];
  countries: string[];
  size_bands: string[];
  sources: number[];
}

/**
 * Model versions of an organization's lead scoring: each retraining that changed something writes
 * the next version. `kind` is `learned` (logistic regression over the outcomes) or `default`
 * (too few outcomes: the documented default weights, with the ideal profile the outcomes suggest).
 */
export const leadScoreModels = pgTable(
  'lead_score_models',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    version: integer().notNull(),
    kind: text().notNull(),
    intercept: doublePrecision().notNull(),
    features: jsonb().$type<ScoreFeatureWeight[]>().notNull(),
    idealProfile: jsonb().$type<IdealProfile>().notNull(),
    sampleSize: integer().notNull(),
    wonCount: integer().notNull(),
    lostCount: integer().notNull(),
    trainedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex('lead_score_models_organization_version_key').on(table.organizationId, table.version),
    tenantPolicy('lead_score_models'),
  ],
);

/** Days the daily retraining has been scheduled (across organizations), so the minute cron schedules it once a day. */
export const leadScoreTrainingRuns = pgTable('lead_score_training_runs', {
  day: date({ mode: 'string' }).primaryKey(),
  startedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  organizations: integer(),
});
