/**
 * Team chat (modules/chat, src/providers/chat): the channels that subscribe to events, and the
 * messages the local chat provider "posted" (it has no outside service; they are kept here so a
 * route and the tests can read them). Events reach a subscribed channel through the same fan-out
 * as webhook endpoints: a webhook_deliveries row naming the subscription (db/schema/webhooks.ts).
 */
import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { connections } from './connections';
import { organizations, users } from './organizations';
import { createdAt, id, organizationRef, tenantPolicy, updatedAt } from './tenancy';

/** The team-chat providers of the spec's paths: chat_a is Slack, chat_b is Microsoft Teams. */
export const CHAT_PROVIDERS = ['chat_a', 'chat_b'] as const;
export type ChatProviderName = (typeof CHAT_PROVIDERS)[number];

/**
 * A channel that receives the events it lists. `connection_id` is the chat connection it was
 * subscribed through (null: the local chat provider); events are posted through the
 * organization's current chat connection of the provider, so a reconnect keeps the subscription. A Teams channel is posted to through its own Workflows
 * webhook URL, a credential (whoever holds it can post), so it is sealed like one
 * (src/providers/secrets.ts) with the sealing key's id.
 */
export const chatSubscriptions = pgTable(
  'chat_subscriptions',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    provider: text().$type<ChatProviderName>().notNull(),
    connectionId: bigint({ mode: 'number' }).references(() => connections.id, { onDelete: 'set null' }),
    channelId: text().notNull(),
    channelName: text(),
    teamId: text(),
    events: text().array().notNull().default(sql`'{}'::text[]`),
    enabled: boolean().notNull().default(true),
    workflowUrlSealed: text(),
    workflowUrlKeyId: text(),
    createdBy: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('chat_subscriptions_channel_idx').on(table.organizationId, table.provider, table.channelId),
    check('chat_subscriptions_provider_check', sql`${table.provider} in ('chat_a', 'chat_b')`),
    tenantPolicy('chat_subscriptions'),
  ],
);

/** What the local chat provider posted: the channel, the event and the message as a real provider would get it. */
export const chatLocalMessages = pgTable(
  'chat_local_messages',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    provider: text().$type<ChatProviderName>().notNull(),
    channelId: text().notNull(),
    eventType: text().notNull(),
    text: text().notNull(),
    message: jsonb().$type<Record<string, unknown>>().notNull(),
    isTest: boolean().notNull().default(false),
    createdAt: createdAt(),
  },
  (table) => [
    index('chat_local_messages_organization_idx').on(table.organizationId, table.id),
    tenantPolicy('chat_local_messages'),
  ],
);
