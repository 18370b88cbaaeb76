import { sql } from 'drizzle-orm';
import { bigint, check, index, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { organizations, users } from './organizations';
import { createdAt, id, organizationRef, tenantPolicy, updatedAt } from './tenancy';

/** A connection's life: usable, waiting for its owner to reconnect it, or switched off (disconnected). */
export const CONNECTION_STATES = ['active', 'needs_reconnect', 'disabled'] as const;
export type ConnectionState = (typeof CONNECTION_STATES)[number];

/**
 * An organization's connection to an outside service (src/providers): which kind of service
 * (`mail`, `calendar`, …) through which provider (`gmail`, `outlook`, `smtp`, `local`, …), whose
 * account it is (`identity`: an address, a calendar id), its owner and its state. Credentials are
 * sealed (src/providers/secrets.ts): `secret` holds the ciphertext only, `secret_key_id` the id of
 * the key that sealed it, so a rotation can tell which rows still use the old key. `settings`
 * holds what is not secret (display name, SMTP host and port).
 */
export const connections = pgTable(
  'connections',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    kind: text().notNull(),
    provider: text().notNull(),
    identity: text().notNull(),
    displayName: text(),
    settings: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    scopes: text().array().notNull().default(sql`'{}'::text[]`),
    ownerId: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    state: text().$type<ConnectionState>().notNull().default('active'),
    lastError: text(),
    lastSuccessAt: timestamp({ withTimezone: true }),
    /** Sealed credentials (`v1.<key id>.<iv>.<ciphertext>`), never plaintext; null for providers without any. */
    secret: text(),
    secretKeyId: text(),
    /** When the sealed access token expires (null: it does not, or there is none). */
    tokenExpiresAt: timestamp({ withTimezone: true }),
    /** Set when the owner was told the connection needs reconnecting; cleared when it is reconnected. */
    reconnectNotifiedAt: timestamp({ withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    /** A disconnected connection: credentials wiped, kept so the messages sent through it keep their account. */
    deletedAt: timestamp({ withTimezone: true }),
  },
  (table) => [
    index('connections_organization_kind_idx').on(table.organizationId, table.kind, table.id),
    // One live row per account of the kinds connected apps and the voice connection connect (a
    // connect of a connected account reconnects it; two at once, a double click, meet here). Mail
    // and calendar accounts have their own rules (several users may each add the same calendar id).
    uniqueIndex('connections_live_account_key')
      .on(table.organizationId, table.kind, table.provider, table.identity)
      .where(sql`${table.deletedAt} is null and ${table.kind} in ('crm', 'chat', 'enrichment', 'voice')`),
    // One live provider per organization of the kinds whose provider is the organization's
    // (lead enrichment, the voice account): connecting another replaces it. Connects take the
    // organization's lock of that kind first, so a second one waits and disconnects the first.
    uniqueIndex('connections_live_kind_key')
      .on(table.organizationId, table.kind)
      .where(sql`${table.deletedAt} is null and ${table.kind} in ('enrichment', 'voice')`),
    check('connections_state_check', sql`${table.state} in ('active', 'needs_reconnect', 'disabled')`),
    tenantPolicy('connections'),
  ],
);
