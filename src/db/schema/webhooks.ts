/**
 * Outbound webhooks (modules/webhooks): the organization's endpoints, one delivery per event and
 * endpoint (a job: the queue delivers it, the lease sweep re-sends it when its next attempt is
 * due), and the log of every attempt.
 */
import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { chatSubscriptions } from './chat';
import { jobRun, openJobsIndex } from './job-lease';
import { organizations, users } from './organizations';
import { createdAt, id, organizationRef, tenantPolicy, updatedAt } from './tenancy';

/**
 * A receiver of events. The signing secret is stored sealed (src/providers/secrets.ts, under
 * CREDENTIALS_KEY), never in plaintext; `secret_key_id` names the key that sealed it, so a
 * rotation of CREDENTIALS_KEY can tell which rows still use the old key. `failing_since` is the first failed attempt since the last success: after
 * five days of failures the endpoint is disabled (`disabled_reason` says why).
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    url: text().notNull(),
    description: text(),
    events: text().array().notNull().default(sql`'{}'::text[]`),
    enabled: boolean().notNull().default(true),
    secretSealed: text().notNull(),
    secretKeyId: text().notNull(),
    /**
     * The secret a rotation replaced, still signing beside the new one until
     * `previous_secret_expires_at` (Standard Webhooks' several signatures), so receivers can
     * switch without rejecting deliveries meanwhile.
     */
    previousSecretSealed: text(),
    previousSecretKeyId: text(),
    previousSecretExpiresAt: timestamp({ withTimezone: true }),
    failingSince: timestamp({ withTimezone: true }),
    disabledAt: timestamp({ withTimezone: true }),
    disabledReason: text(),
    createdBy: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index('webhook_endpoints_organization_id_idx').on(table.organizationId, table.id),
    tenantPolicy('webhook_endpoints'),
  ],
);

/**
 * One event for one receiver: a webhook endpoint or a team-chat channel subscription (exactly one
 * of the two; chat channels get the events through this same fan-out and delivery job). A job row. `message_id` is the `webhook-id` header, the same on
 * every attempt, for every endpoint of the event, and on a replay. `attempts` counts attempts
 * made; `next_attempt_at` is when the next one is due (the lease is set to it, so the lease sweep
 * re-sends the message then). status: queued, running, completed, failed, cancelled.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    endpointId: bigint({ mode: 'number' }).references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    chatSubscriptionId: bigint({ mode: 'number' }).references(() => chatSubscriptions.id, { onDelete: 'cascade' }),
    eventType: text().notNull(),
    messageId: text().notNull(),
    payload: jsonb().$type<Record<string, unknown>>().notNull(),
    replayOf: bigint({ mode: 'number' }),
    attempts: integer().notNull().default(0),
    nextAttemptAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    lastStatusCode: integer(),
    createdBy: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    ...jobRun(),
  },
  (table) => [
    index('webhook_deliveries_endpoint_idx').on(table.organizationId, table.endpointId, table.id),
    // A chat subscription's deliveries: its latest finished one (modules/chat, last_delivery) and
    // the cascade of its deletion (migration 0096).
    index('webhook_deliveries_chat_subscription_idx')
      .on(table.chatSubscriptionId, table.id)
      .where(sql`${table.chatSubscriptionId} is not null`),
    openJobsIndex('webhook_deliveries_open_lease_idx', table),
    // The retention sweep's range (src/modules/webhooks/retention.ts): deliveries older than the retention.
    index('webhook_deliveries_created_idx').on(table.createdAt),
    check(
      'webhook_deliveries_one_receiver_check',
      sql`(${table.endpointId} is null) <> (${table.chatSubscriptionId} is null)`,
    ),
    tenantPolicy('webhook_deliveries'),
  ],
);

/** The delivery log: one row per attempt (the response body cut to its first 1 KB). */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    /** Null for an attempt at a chat channel (its delivery names the subscription). */
    endpointId: bigint({ mode: 'number' }).references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    deliveryId: bigint({ mode: 'number' })
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    attempt: integer().notNull(),
    attemptedAt: createdAt(),
    statusCode: integer(),
    latencyMs: integer().notNull(),
    responseBody: text(),
    error: text(),
  },
  (table) => [
    index('webhook_attempts_endpoint_idx').on(table.organizationId, table.endpointId, table.id),
    // The foreign key's cascade finds a deleted delivery's attempts by it (retention, endpoint deletion).
    index('webhook_attempts_delivery_idx').on(table.deliveryId),
    tenantPolicy('webhook_attempts'),
  ],
);
