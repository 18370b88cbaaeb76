import { sql } from 'drizzle-orm';
import { bigint, index, integer, pgTable, smallint, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { organizations, users } from './organizations';
import { createdAt, id, organizationRef, tenantPolicy, updatedAt } from './tenancy';

/** Companies (spec "Company"); shared by leads (linked by name) and the contacts/companies module. */
export const companies = pgTable(
  'companies',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    companyName: text().notNull(),
    industryType: text(),
    companyLogo: text(),
    address: text(),
    city: text(),
    country: text(),
    employeeSize: text(),
    rating: smallint(),
    contactEmail: text(),
    phoneNumber: text(),
    website: text(),
    summary: text(),
    createdBy: bigint({ mode: 'number' }).references(() => users.id),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: timestamp({ withTimezone: true }),
  },
  (table) => [
    // One live company per name per organization, so "link or create by name" is race-free.
    uniqueIndex('companies_organization_name_key')
      .on(table.organizationId, sql`lower(${table.companyName})`)
      .where(sql`${table.deletedAt} is null`),
    index('companies_organization_id_idx').on(table.organizationId, table.id),
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
    createdBy: bigint({ mode: 'number' }).references(() => users.id),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: timestamp({ withTimezone: true }),
  },
  (table) => [index('contacts_organization_id_idx').on(table.organizationId, table.id), tenantPolicy('contacts')],
);
