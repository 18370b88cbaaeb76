import { bigint, index, integer, pgTable, smallint, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { companies, contacts } from './companies';
import { organizations, users } from './organizations';
import { createdAt, id, organizationRef, tenantPolicy, tenantReference, updatedAt } from './tenancy';

/**
 * Target accounts (ABM, spec "Target accounts"): a company of the organization worked as one
 * account. One per company per organization (unique index); deleting one removes its
 * stakeholders and outreach plans, never the company. tier 1..3; status: active, paused, archived.
 */
export const targetAccounts = pgTable(
  'target_accounts',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    companyId: bigint({ mode: 'number' }).notNull(),
    ownerId: bigint({ mode: 'number' }),
    tier: smallint().notNull().default(3),
    estimatedDecisionMakers: integer(),
    icpFitScore: smallint(),
    status: text().notNull().default('active'),
    createdBy: bigint({ mode: 'number' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('target_accounts_organization_company_key').on(table.organizationId, table.companyId),
    uniqueIndex('target_accounts_organization_id_idx').on(table.organizationId, table.id),
    index('target_accounts_organization_created_idx').on(table.organizationId, table.createdAt),
    tenantPolicy('target_accounts'),
    tenantReference('target_accounts', table, table.companyId, companies, 'cascade'),
    tenantReference('target_accounts', table, table.ownerId, users, 'set null'),
    tenantReference('target_accounts', table, table.createdBy, users, 'set null'),
  ],
);

/** Stakeholders of a target account: contacts of its company, each once, with a role in the buying group. */
export const targetAccountContacts = pgTable(
  'target_account_contacts',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    targetAccountId: bigint({ mode: 'number' }).notNull(),
    contactId: bigint({ mode: 'number' }).notNull(),
    stakeholderRole: text(),
    createdBy: bigint({ mode: 'number' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('target_account_contacts_account_contact_key').on(table.targetAccountId, table.contactId),
    index('target_account_contacts_organization_idx').on(table.organizationId, table.targetAccountId),
    tenantPolicy('target_account_contacts'),
    tenantReference('target_account_contacts', table, table.targetAccountId, targetAccounts, 'cascade'),
    tenantReference('target_account_contacts', table, table.contactId, contacts, 'cascade'),
    tenantReference('target_account_contacts', table, table.createdBy, users, 'set null'),
  ],
);

/** Planned outreach steps of a target account: who (a contact of its company), how (channel) and when. */
export const outreachPlans = pgTable(
  'outreach_plans',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    targetAccountId: bigint({ mode: 'number' }).notNull(),
    contactId: bigint({ mode: 'number' }).notNull(),
    channel: text().notNull(),
    scheduledAt: timestamp({ withTimezone: true }).notNull(),
    assignedTo: bigint({ mode: 'number' }),
    notes: text(),
    createdBy: bigint({ mode: 'number' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    // Parent deletes find this table's rows by it (the foreign key's check or cascade): migration 0066.
    index('outreach_plans_target_account_idx').on(table.targetAccountId),
    index('outreach_plans_organization_account_idx').on(table.organizationId, table.targetAccountId, table.id),
    tenantPolicy('outreach_plans'),
    tenantReference('outreach_plans', table, table.targetAccountId, targetAccounts, 'cascade'),
    tenantReference('outreach_plans', table, table.contactId, contacts, 'cascade'),
    tenantReference('outreach_plans', table, table.assignedTo, users, 'set null'),
    tenantReference('outreach_plans', table, table.createdBy, users, 'set null'),
  ],
);
