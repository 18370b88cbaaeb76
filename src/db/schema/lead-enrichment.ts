import { bigint, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { jobRun, openJobsIndex } from './job-lease';
import { leads } from './leads';
import { organizations, users } from './organizations';
import { createdAt, id, organizationRef, tenantPolicy } from './tenancy';

/**
 * Bulk lead enrichments (job kind 'lead-enrichment', modules/lead-enrichment). `items` holds the
 * request's leads as sent; each item's outcome is a row of lead_enrichment_items, written once
 * (unique per job and item), so a redelivered message enriches nothing twice.
 */
export const leadEnrichmentJobs = pgTable(
  'lead_enrichment_jobs',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    groupId: bigint({ mode: 'number' }),
    items: jsonb().$type<Record<string, unknown>[]>().notNull(),
    total: integer().notNull().default(0),
    processed: integer().notNull().default(0),
    succeeded: integer().notNull().default(0),
    failed: integer().notNull().default(0),
    createdBy: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    ...jobRun(),
  },
  (table) => [
    index('lead_enrichment_jobs_organization_id_idx').on(table.organizationId, table.id),
    openJobsIndex('lead_enrichment_jobs_open_lease_idx', table),
    tenantPolicy('lead_enrichment_jobs'),
  ],
);

/**
 * An enriched profile ("profile lead"): what was asked (`input`), what the provider answered
 * (`profile`: each field with its value, source and time), by which provider, and the lead it
 * was merged into, if any. `job_id`/`job_item` tie a bulk item to its one profile.
 */
export const profileLeads = pgTable(
  'profile_leads',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    leadId: bigint({ mode: 'number' }).references(() => leads.id, { onDelete: 'set null' }),
    provider: text().notNull(),
    fullName: text(),
    email: text(),
    company: text(),
    domain: text(),
    profileUrl: text(),
    input: jsonb().$type<Record<string, unknown>>().notNull(),
    profile: jsonb().$type<Record<string, unknown>>().notNull(),
    jobId: bigint({ mode: 'number' }).references(() => leadEnrichmentJobs.id, { onDelete: 'cascade' }),
    jobItem: integer(),
    createdBy: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (table) => [
    index('profile_leads_organization_id_idx').on(table.organizationId, table.id),
    uniqueIndex('profile_leads_job_item_key').on(table.jobId, table.jobItem),
    tenantPolicy('profile_leads'),
  ],
);

/** A bulk item's outcome: completed with its profile lead, or failed with why. */
export const leadEnrichmentItems = pgTable(
  'lead_enrichment_items',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    jobId: bigint({ mode: 'number' })
      .notNull()
      .references(() => leadEnrichmentJobs.id, { onDelete: 'cascade' }),
    item: integer().notNull(),
    status: text().notNull(),
    profileLeadId: bigint({ mode: 'number' }).references(() => profileLeads.id, { onDelete: 'set null' }),
    error: text(),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex('lead_enrichment_items_job_item_key').on(table.jobId, table.item),
    index('lead_enrichment_items_organization_job_idx').on(table.organizationId, table.jobId, table.item),
    tenantPolicy('lead_enrichment_items'),
  ],
);
