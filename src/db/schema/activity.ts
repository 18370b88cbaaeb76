import { bigint, boolean, index, jsonb, pgTable, smallint, text, timestamp } from 'drizzle-orm/pg-core';
import { organizations, users } from './organizations';
import { createdAt, id, organizationRef, tenantPolicy } from './tenancy';

/** The activity feed: who did what to which record, with before/after of changed fields. */
export const feedEntries = pgTable(
  'feed_entries',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    modelType: text().notNull(),
    modelId: bigint({ mode: 'number' }).notNull(),
    action: text().notNull(),
    actorUserId: bigint({ mode: 'number' }).references(() => users.id),
    actorApiKeyId: bigint({ mode: 'number' }),
    changes: jsonb().$type<Record<string, { from: unknown; to: unknown }>>().notNull().default({}),
    createdAt: createdAt(),
  },
  (table) => [
    // One record's feed in the list's id order (`id desc nulls last`, `tenantIdOrder`), no sort (migration 0080).
    index('feed_entries_organization_model_idx').on(
      table.organizationId,
      table.modelType,
      table.modelId,
      table.id.desc().nullsLast(),
    ),
    // The unfiltered feed in id order (`tenantIdOrder`, core/list.ts; migration 0078): without it the
    // planner walks feed_entries_pkey past every other organization's newer entries.
    index('feed_entries_organization_id_order_idx').on(table.organizationId, table.id.desc().nullsLast()),
    tenantPolicy('feed_entries'),
  ],
);

/** Notifications for one user. type_id: 1 lead assigned, 2 import finished, 3 export ready, 4 follow-up due (the minute cron), 5 intent alert. */
export const notifications = pgTable(
  'notifications',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    userId: bigint({ mode: 'number' })
      .notNull()
      .references(() => users.id),
    typeId: smallint().notNull(),
    title: text().notNull(),
    body: text(),
    data: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    isRead: boolean().notNull().default(false),
    readAt: timestamp({ withTimezone: true }),
    createdAt: createdAt(),
  },
  (table) => [
    index('notifications_organization_user_idx').on(table.organizationId, table.userId, table.isRead, table.id),
    tenantPolicy('notifications'),
  ],
);
