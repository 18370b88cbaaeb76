/**
 * Row-level security shared by every tenant table: rows are visible and writable only when
 * their organization is the one the transaction was scoped to (see db/client.ts).
 */
import { sql } from 'drizzle-orm';
import { bigint, pgPolicy, pgRole, timestamp } from 'drizzle-orm/pg-core';

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
