import { index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { organizations } from './organizations';
import { organizationRef, tenantPolicy } from './tenancy';

/**
 * Idempotency keys (see src/core/idempotency.ts): the first successful response to a POST that
 * creates something, kept 24 hours under the caller's key. Written by the same transaction as
 * the records the request created, so one never commits without the other.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    /** Who used the key: `user:<id>` for a bearer token, `api_key:<id>` for an API key. */
    scope: text().notNull(),
    key: text().notNull(),
    /** SHA-256 (hex) of method, path and body: the same key with another request is refused. */
    requestHash: text().notNull(),
    status: integer().notNull(),
    contentType: text(),
    body: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.organizationId, table.scope, table.key] }),
    index('idempotency_keys_created_at_idx').on(table.createdAt),
    tenantPolicy('idempotency_keys'),
  ],
);
