import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { connections } from './connections';
import { jobRun, openJobsIndex } from './job-lease';
import { organizations, users } from './organizations';
import { createdAt, id, organizationRef, tenantPolicy } from './tenancy';

/** Where a CRM import is: companies first (so contacts can link to them), then contacts. */
export const CRM_IMPORT_PHASES = ['companies', 'contacts', 'done'] as const;
export type CrmImportPhase = (typeof CRM_IMPORT_PHASES)[number];

/**
 * Imports from a third-party CRM (POST /api/connected-apps/crm/import), run by the jobs queue
 * consumer (modules/integrations/crm-import-job.ts). Not `import_jobs`: those are bound to an
 * uploaded file and a row-number checkpoint, and one job table per kind is what the lease sweep
 * needs to re-send the right kind. The checkpoint is (`phase`, `cursor`: the CRM's paging cursor
 * of the next page, `records_read`: records taken so far, which numbers the next ones); each page
 * commits its records, outcomes, counters and checkpoint together.
 */
export const crmImportJobs = pgTable(
  'crm_import_jobs',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    connectionId: bigint({ mode: 'number' }).references(() => connections.id, { onDelete: 'set null' }),
    provider: text().notNull(),
    /** { leads: {crm property: lead field}, companies: {crm property: company field} }, validated at the start. */
    mapping: jsonb().$type<{ leads: Record<string, string>; companies: Record<string, string> }>().notNull(),
    /** { from, to, limit } as given (ISO timestamps; limit: records per object type). */
    options: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    phase: text().$type<CrmImportPhase>().notNull().default('companies'),
    cursor: text(),
    recordsRead: integer().notNull().default(0),
    /** Records taken in the current phase (the limit applies per object type). */
    phaseRead: integer().notNull().default(0),
    processedCount: integer().notNull().default(0),
    createdCount: integer().notNull().default(0),
    updatedCount: integer().notNull().default(0),
    skippedCount: integer().notNull().default(0),
    failedCount: integer().notNull().default(0),
    /** The CRM's own count when it gives one (the local data set does; HubSpot's list does not): the progress. */
    totalEstimate: integer(),
    createdBy: bigint({ mode: 'number' }).references(() => users.id),
    ...jobRun(),
  },
  (table) => [
    index('crm_import_jobs_organization_id_idx').on(table.organizationId, table.id),
    openJobsIndex('crm_import_jobs_open_lease_idx', table),
    check('crm_import_jobs_phase_check', sql`${table.phase} in ('companies', 'contacts', 'done')`),
    tenantPolicy('crm_import_jobs'),
  ],
);

/** Per-record outcomes of a CRM import that were not a plain create or update: errors, skips and merges, with the CRM's record id. */
export const crmImportRecords = pgTable(
  'crm_import_records',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    jobId: bigint({ mode: 'number' })
      .notNull()
      .references(() => crmImportJobs.id, { onDelete: 'cascade' }),
    /** `contact` or `company`. */
    objectType: text().notNull(),
    externalId: text().notNull(),
    /** error, skipped, merged */
    outcome: text().notNull(),
    field: text(),
    message: text().notNull(),
    /** The lead or company the record became or merged into. */
    recordId: bigint({ mode: 'number' }),
    createdAt: createdAt(),
  },
  (table) => [
    index('crm_import_records_organization_job_idx').on(table.organizationId, table.jobId, table.id),
    tenantPolicy('crm_import_records'),
  ],
);
