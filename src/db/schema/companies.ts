import { sql } from 'drizzle-orm';
import {
  bigint,
  index,
  integer,
  jsonb,
  pgTable,
  pgView,
  smallint,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { storedFiles } from './files';
import { organizations, users } from './organizations';
import { jobRun, openJobsIndex } from './job-lease';
import { createdAt, id, organizationRef, tenantPolicy, updatedAt } from './tenancy';

/** Companies (spec "Company"); shared by leads (linked by name) and the contacts/companies module. */
export const companies = pgTable(
  'companies',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    companyName: text().notNull(),
    industryType: text(),
    // lower(industry_type), stored: the industry filter compares it with texteq, which is leakproof,
    // so row-level security lets the index below serve it (an expression index on lower() it would
    // not: the function is not leakproof and stays a filter over every company of the organization).
    industryKey: text().generatedAlwaysAs(sql`lower(industry_type)`),
    companyLogo: text(),
    address: text(),
    city: text(),
    country: text(),
    employeeSize: text(),
    rating: smallint(),
    contactEmail: text(),
    phoneNumber: text(),
    website: text(),
    /** `website` reduced to its host (lower case, no www., no port): what leads and contacts are matched on. */
    websiteDomain: text(),
    summary: text(),
    technologies: text().array().notNull().default(sql`'{}'::text[]`),
    assignedTo: bigint({ mode: 'number' }).references(() => users.id),
    /** The stored file behind `company_logo` when the logo was uploaded (POST /api/company/add). */
    logoFileId: bigint({ mode: 'number' }).references(() => storedFiles.id),
    /** Values the enrichment job filled: {field: {source, value, at}}. A field a person set never appears here. */
    enrichment: jsonb().$type<Record<string, { source: string; value: unknown; at: string }>>().notNull().default({}),
    /** Provenance of a company imported from a third-party CRM: the CRM and its record id there, so a re-run updates it. */
    externalSource: text(),
    externalId: text(),
    createdBy: bigint({ mode: 'number' }).references(() => users.id),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: timestamp({ withTimezone: true }),
  },
  (table) => [
    // Parent deletes find this table's rows by it (the foreign key's check or cascade): migration 0066.
    index('companies_logo_file_idx').on(table.logoFileId).where(sql`${table.logoFileId} is not null`),
    // One live company per CRM record: a re-run of a CRM import finds it and updates it.
    uniqueIndex('companies_organization_external_key')
      .on(table.organizationId, table.externalSource, table.externalId)
      .where(sql`${table.deletedAt} is null and ${table.externalId} is not null`),
    // One live company per name per organization, so "link or create by name" is race-free.
    uniqueIndex('companies_organization_name_key')
      .on(table.organizationId, sql`lower(${table.companyName})`)
      .where(sql`${table.deletedAt} is null`),
    // Lists in id order (`tenantIdOrder`, core/list.ts): `id desc nulls last`, which the primary key
    // cannot give, so a page is read in the organization's own ids (migration 0078).
    index('companies_organization_id_idx').on(table.organizationId, table.id.desc().nullsLast()),
    index('companies_organization_created_idx').on(table.organizationId, table.createdAt),
    // The organization's deleted companies (GET /api/company/deleted, modules/companies/trash.ts),
    // read at a cost that follows them, not the live companies (migration 0100).
    index('companies_organization_deleted_idx')
      .on(table.organizationId, table.id)
      .where(sql`${table.deletedAt} is not null`),
    index('companies_organization_domain_idx').on(table.organizationId, table.websiteDomain),
    index('companies_organization_industry_key_idx').on(table.organizationId, table.industryKey),
    tenantPolicy('companies'),
  ],
);

/** Contacts (spec "Contact"); the contacts/companies issue builds its endpoints on this table. */
export const contacts = pgTable(
  'contacts',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    email: text(),
    phoneNumber: text(),
    companyId: bigint({ mode: 'number' }).references(() => companies.id),
    leadId: bigint({ mode: 'number' }),
    designation: text(),
    seniority: text(),
    decisionMaker: text(),
    profileUrl: text(),
    leadScore: integer(),
    status: integer(),
    tags: text().array().notNull().default(sql`'{}'::text[]`),
    createdBy: bigint({ mode: 'number' }).references(() => users.id),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: timestamp({ withTimezone: true }),
  },
  (table) => [
    // Lists in id order (`tenantIdOrder`, core/list.ts; migration 0078).
    index('contacts_organization_id_idx').on(table.organizationId, table.id.desc().nullsLast()),
    // The organization's deleted contacts: the call list's total leaves out their calls
    // (voice/calls.ts hiddenCalls), at a cost that follows them, not the live contacts (migration 0095).
    index('contacts_organization_deleted_idx')
      .on(table.organizationId, table.id)
      .where(sql`${table.deletedAt} is not null`),
    index('contacts_organization_company_idx').on(table.organizationId, table.companyId),
    index('contacts_organization_created_idx').on(table.organizationId, table.createdAt),
    // One live contact per email per organization (compared case-insensitively).
    uniqueIndex('contacts_organization_email_key')
      .on(table.organizationId, sql`lower(${table.email})`)
      .where(sql`${table.deletedAt} is null and ${table.email} is not null`),
    index('contacts_tags_idx').using('gin', table.tags),
    // A call with a number nobody placed from here (voice/observed-calls.ts), as for leads.
    index('contacts_organization_live_phone_digits_idx')
      .on(table.organizationId, sql`regexp_replace(${table.phoneNumber}, '\\D', '', 'g')`)
      .where(sql`${table.deletedAt} is null and ${table.phoneNumber} is not null`),
    tenantPolicy('contacts'),
  ],
);

/**
 * Company enrichment jobs (POST /api/company/enrich), run by the jobs queue consumer.
 * status: queued, running, completed, failed. `result` holds what was filled, kept and left empty.
 */
export const companyEnrichmentJobs = pgTable(
  'company_enrichment_jobs',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    companyId: bigint({ mode: 'number' })
      .notNull()
      .references(() => companies.id),
    totalSteps: integer().notNull().default(0),
    processedSteps: integer().notNull().default(0),
    result: jsonb().$type<Record<string, unknown>>(),
    createdBy: bigint({ mode: 'number' }).references(() => users.id),
    ...jobRun(),
  },
  (table) => [
    index('company_enrichment_jobs_organization_id_idx').on(table.organizationId, table.id),
    openJobsIndex('company_enrichment_jobs_open_lease_idx', table),
    tenantPolicy('company_enrichment_jobs'),
  ],
);

/** The organization's live contacts with the digits of their phone: leadPhoneScope's twin (0062). */
export const contactPhoneScope = pgView('contact_phone_scope', {
  id: bigint({ mode: 'number' }).notNull(),
  organizationId: bigint({ mode: 'number' }).notNull(),
  companyId: bigint({ mode: 'number' }),
  phoneNumber: text(),
  phoneDigits: text(),
}).existing();

/**
 * The organization's live companies with their name key (`name_key` = lower(company_name), the
 * unique index's expression): a view (0074, not managed by drizzle-kit) owned by the tables'
 * owner, so the name, domain and CRM-record indexes serve lookups inside tenant transactions (row-
 * level security would demote lower(), not leakproof, to a filter over every company); it filters
 * itself to app.organization_id, as lead_key_scope does.
 */
export const companyKeyScope = pgView('company_key_scope', {
  id: bigint({ mode: 'number' }).notNull(),
  organizationId: bigint({ mode: 'number' }).notNull(),
  companyName: text().notNull(),
  nameKey: text().notNull(),
  websiteDomain: text(),
  externalSource: text(),
  externalId: text(),
}).existing();

/** The organization's live contacts with an email and its key (`email_key` = lower(email)): companyKeyScope's twin (0074). */
export const contactKeyScope = pgView('contact_key_scope', {
  id: bigint({ mode: 'number' }).notNull(),
  organizationId: bigint({ mode: 'number' }).notNull(),
  emailKey: text().notNull(),
}).existing();
