import { sql } from 'drizzle-orm';
import { bigint, index, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { organizations, users } from './organizations';
import { createdAt, id, organizationRef, tenantPolicy } from './tenancy';

/** API keys for the ingestion routes; only a SHA-256 hash of the key is stored. */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    prefix: text().notNull(),
    keyHash: text().notNull(),
    allowedDomains: text().array().notNull().default(sql`'{}'::text[]`),
    allowedIps: text().array().notNull().default(sql`'{}'::text[]`),
    /** What the key may call (core/auth/api-key.ts, API_KEY_SCOPES); keys made before scopes have both. */
    scopes: text().array().notNull().default(sql`'{leads:read,leads:write}'::text[]`),
    expiresAt: timestamp({ withTimezone: true }),
    lastUsedAt: timestamp({ withTimezone: true }),
    revokedAt: timestamp({ withTimezone: true }),
    createdBy: bigint({ mode: 'number' }).references(() => users.id),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex('api_keys_key_hash_key').on(table.keyHash),
    index('api_keys_organization_id_idx').on(table.organizationId, table.id),
    tenantPolicy('api_keys'),
  ],
);

/** Bearer tokens revoked by logout, by `jti`, kept until they would have expired anyway. */
export const revokedTokens = pgTable(
  'revoked_tokens',
  {
    jti: text().primaryKey(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    userId: bigint({ mode: 'number' }).notNull(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    revokedAt: createdAt(),
  },
  (table) => [
    index('revoked_tokens_organization_id_idx').on(table.organizationId, table.expiresAt),
    // The retention sweep's range, across organizations (modules/auth/retention.ts).
    index('revoked_tokens_expires_idx').on(table.expiresAt),
    tenantPolicy('revoked_tokens'),
  ],
);

/**
 * Failed logins per account (by lower-cased email) and the address they came from, for the login
 * limits (modules/auth/login-limits.ts): per account and address, and a softer one per account.
 * Not tenant data: only the login (owner role, before any organization is known) reads it; RLS is
 * on with no policy, so `lm_app` sees nothing.
 */
export const loginFailures = pgTable(
  'login_failures',
  {
    id: id(),
    emailKey: text().notNull(),
    /** The client address of the attempt; null on rows written before addresses were kept. */
    ip: text(),
    failedAt: createdAt(),
  },
  (table) => [
    index('login_failures_email_idx').on(table.emailKey, table.failedAt),
    // The retention sweep's range (modules/auth/retention.ts).
    index('login_failures_failed_idx').on(table.failedAt),
  ],
).enableRLS();

/**
 * The addresses each account last logged in from: a sign-in from one of them within
 * TRUSTED_ADDRESS_DAYS is never held back by failures from other addresses. Not tenant data, as
 * login_failures.
 */
export const loginSuccesses = pgTable(
  'login_successes',
  {
    emailKey: text().notNull(),
    ip: text().notNull(),
    succeededAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.emailKey, table.ip] }),
    // The retention sweep's range (modules/auth/retention.ts).
    index('login_successes_succeeded_idx').on(table.succeededAt),
  ],
).enableRLS();
