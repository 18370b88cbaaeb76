/**
 * Row-level security shared by every tenant table: rows are visible and writable only when
 * their organization is the one the transaction was scoped to (see db/client.ts).
 */
import { sql } from 'drizzle-orm';
import { type AnyPgColumn, bigint, foreignKey, pgPolicy, pgRole, timestamp } from 'drizzle-orm/pg-core';

/** Created by the first migration (with IF NOT EXISTS, since roles are cluster-wide). */
export const appRole = pgRole('lm_app').existing();

/** The organization the statement is scoped to (null outside a tenant scope): what every tenant policy compares with. */
export const currentOrganization = sql`nullif(current_setting('app.organization_id', true), '')::bigint`;

export function tenantPolicy(table: string, column = 'organization_id') {
  const matches = sql`${sql.identifier(column)} = ${currentOrganization}`;
  return pgPolicy(`${table}_tenant_isolation`, { for: 'all', to: appRole, using: matches, withCheck: matches });
}

export const id = () => bigint({ mode: 'number' }).primaryKey().generatedAlwaysAsIdentity();
export const organizationRef = () => bigint({ mode: 'number' }).notNull();
export const createdAt = () => timestamp({ withTimezone: true }).notNull().defaultNow();
export const updatedAt = () => timestamp({ withTimezone: true }).notNull().defaultNow();

/** A table that rows of other tenant tables reference: its own organization and id. */
interface TenantRecord {
  organizationId: AnyPgColumn;
  id: AnyPgColumn;
}

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * A reference from one tenant table to another, declared WITH the organization:
 * `(organization_id, column) -> parent (organization_id, id)`. The database itself then refuses a
 * row that points at another organization's record, whatever code wrote it (the services check
 * references first, db/references.ts; this is the floor under them). Every parent has a unique
 * index on `(organization_id, id)` for it.
 *
 * `set null` clears the referencing column alone: the migration writes it
 * `ON DELETE SET NULL (column)` (PostgreSQL 15), since clearing organization_id too would break
 * its NOT NULL. drizzle has no syntax for the column list, so its snapshot records a plain
 * `set null`; a migration that touches one of these keys again must keep the list (see
 * drizzle/0082_tenant_foreign_keys.sql).
 */
export function tenantReference(
  table: string,
  from: { organizationId: AnyPgColumn },
  column: AnyPgColumn,
  to: TenantRecord,
  onDelete?: 'cascade' | 'set null',
) {
  const key = foreignKey({
    name: `${table}_${snakeCase(column.name)}_tenant_fk`,
    columns: [from.organizationId, column],
    foreignColumns: [to.organizationId, to.id],
  });
  return onDelete ? key.onDelete(onDelete) : key;
}
