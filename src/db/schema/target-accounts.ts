import { bigint, index, integer, pgTable, smallint, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { companies, contacts } from './companies';
import { organizations, users } from './organizations';
import { createdAt, id, organizationRef, tenantPolicy, updatedAt } from './tenancy';

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
    companyId: bigint({ mode: 'number' })
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    ownerId: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    tier: smallint().notNull().default(3),
    estimatedDecisionMakers: integer(),
    icpFitScore: smallint(),
    status: text().notNull().default('active'),
    createdBy: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('target_accounts_organization_company_key').on(table.organizationId, table.companyId),
    index('target_accounts_organization_id_idx').on(table.organizationId, table.id),
    index('target_accounts_organization_created_idx').on(table.organizationId, table.createdAt),
    tenantPolicy('target_accounts'),
  ],
);

/** Stakeholders of a target account: contacts of its company, each once, with a role in the buying group. */
export const targetAccountContacts = pgTable(
  'target_account_contacts',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    targetAccountId: bigint({ mode: 'number' })
      .notNull()
      .references(() => targetAccounts.id, { onDelete: 'cascade' }),
    contactId: bigint({ mode: 'number' })
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    stakeholderRole: text(),
    createdBy: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('target_account_contacts_account_contact_key').on(table.targetAccountId, table.contactId),
    index('target_account_contacts_organization_idx').on(table.organizationId, table.targetAccountId),
    tenantPolicy('target_account_contacts'),
  ],
);

/** Planned outreach steps of a target account: who (a contact of its company), how (channel) and when. */
export const outreachPlans = pgTable(
  'outreach_plans',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    targetAccountId: bigint({ mode: 'number' })
      .notNull()
      .references(() => targetAccounts.id, { onDelete: 'cascade' }),
    contactId: bigint({ mode: 'number' })
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    channel: text().notNull(),
    scheduledAt: timestamp({ withTimezone: true }).notNull(),
    assignedTo: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    notes: text(),
    createdBy: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    // Parent deletes find this table's rows by it (the foreign key's check or cascade): migration 0066.
    index('outreach_plans_target_account_idx').on(table.targetAccountId),
    index('outreach_plans_organization_account_idx').on(table.organizationId, table.targetAccountId, table.id),
    tenantPolicy('outreach_plans'),
  ],
);
