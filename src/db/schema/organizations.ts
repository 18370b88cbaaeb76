import { bigint, index, integer, pgTable, smallint, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { createdAt, id, organizationRef, tenantPolicy, updatedAt } from './tenancy';

export const organizations = pgTable(
  'organizations',
  {
    id: id(),
    name: text().notNull(),
    stateId: smallint().notNull().default(1),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  () => [tenantPolicy('organizations', 'id')],
);

export const roles = pgTable(
  'roles',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    description: text(),
    stateId: smallint().notNull().default(1),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('roles_organization_name_key').on(table.organizationId, sql`lower(${table.name})`),
    tenantPolicy('roles'),
  ],
);

export const users = pgTable(
  'users',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    roleId: bigint({ mode: 'number' })
      .notNull()
      .references(() => roles.id),
    firstName: text().notNull(),
    lastName: text(),
    email: text().notNull(),
    phoneNo: text(),
    passwordHash: text().notNull(),
    /** 1 = active, 0 = inactive (cannot log in). */
    stateId: smallint().notNull().default(1),
    /**
     * Bearer tokens carry the generation they were issued in (`gen`); a password change, a role
     * change or a deactivation moves it on, which ends every token issued before.
     */
    sessionGeneration: integer().notNull().default(0),
    language: text(),
    timezone: text(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: timestamp({ withTimezone: true }),
  },
  (table) => [
    // Login finds a user by email alone, so emails are unique across organizations.
    uniqueIndex('users_email_key').on(sql`lower(${table.email})`).where(sql`${table.deletedAt} is null`),
    index('users_organization_id_idx').on(table.organizationId, table.id),
    tenantPolicy('users'),
  ],
);
