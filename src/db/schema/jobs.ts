import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { storedFiles } from './files';
import { organizations, users } from './organizations';
import { jobRun, openJobsIndex } from './job-lease';
import { createdAt, id, organizationRef, tenantPolicy } from './tenancy';

/**
 * Spreadsheet imports run by the queue consumer. `checkpoint_row` (the file line of the batch's
 * last row) is committed with each batch, so a consumer retried after a crash resumes where the
 * last batch ended.
 * status: queued, running, completed, failed, cancelled (imports only).
 */
export const importJobs = pgTable(
  'import_jobs',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    type: text().notNull(),
    fileId: bigint({ mode: 'number' })
      .notNull()
      .references(() => storedFiles.id),
    fileName: text().notNull(),
    options: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    totalRows: integer().notNull().default(0),
    processedRows: integer().notNull().default(0),
    createdCount: integer().notNull().default(0),
    updatedCount: integer().notNull().default(0),
    skippedCount: integer().notNull().default(0),
    failedCount: integer().notNull().default(0),
    checkpointRow: integer().notNull().default(0),
    createdBy: bigint({ mode: 'number' }).references(() => users.id),
    ...jobRun(),
  },
  (table) => [
    // Parent deletes find this table's rows by it (the foreign key's check or cascade): migration 0066.
    index('import_jobs_file_idx').on(table.fileId).where(sql`${table.fileId} is not null`),
    index('import_jobs_organization_id_idx').on(table.organizationId, table.id),
    openJobsIndex('import_jobs_open_lease_idx', table),
    tenantPolicy('import_jobs'),
  ],
);

/** Per-row outcomes of an import that were not a plain create: errors and skipped duplicates. */
export const importJobRows = pgTable(
  'import_job_rows',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    importJobId: bigint({ mode: 'number' })
      .notNull()
      .references(() => importJobs.id, { onDelete: 'cascade' }),
    rowNumber: integer().notNull(),
    /** error, duplicate_skipped, duplicate_merged */
    outcome: text().notNull(),
    field: text(),
    message: text().notNull(),
    leadId: bigint({ mode: 'number' }),
    createdAt: createdAt(),
  },
  (table) => [
    index('import_job_rows_organization_job_idx').on(table.organizationId, table.importJobId, table.rowNumber),
    tenantPolicy('import_job_rows'),
  ],
);

/** Exports written to R2 by the queue consumer. status: queued, running, completed, failed. */
export const exportJobs = pgTable(
  'export_jobs',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    exportType: text().notNull(),
    format: text().notNull().default('csv'),
    filters: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    totalRows: integer().notNull().default(0),
    processedRows: integer().notNull().default(0),
    fileId: bigint({ mode: 'number' }).references(() => storedFiles.id),
    createdBy: bigint({ mode: 'number' }).references(() => users.id),
    ...jobRun(),
  },
  (table) => [
    // Parent deletes find this table's rows by it (the foreign key's check or cascade): migration 0066.
    index('export_jobs_file_idx').on(table.fileId).where(sql`${table.fileId} is not null`),
    index('export_jobs_organization_id_idx').on(table.organizationId, table.id),
    // The retention sweep's range: completed exports that still hold a file (modules/exports/retention.ts).
    index('export_jobs_file_expiry_idx')
      .on(table.finishedAt)
      .where(sql`${table.status} = 'completed' and ${table.fileId} is not null`),
    openJobsIndex('export_jobs_open_lease_idx', table),
    tenantPolicy('export_jobs'),
  ],
);
