/**
 * Saved queries (declarative aggregate definitions compiled to SQL by modules/saved-queries)
 * and saved dashboards (widgets over saved queries or built-in metrics). Both carry a scope:
 * personal (its owner only), team or workspace (the whole organization).
 */
import { sql } from 'drizzle-orm';
import { bigint, index, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { organizations, users } from './organizations';
import { createdAt, id, organizationRef, tenantPolicy, updatedAt } from './tenancy';

export const savedQueries = pgTable(
  'saved_queries',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    /** The owner; null for the defaults every organization starts with (only admins change those). */
    userId: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    description: text(),
    scope: text().notNull(),
    module: text().notNull(),
    definition: jsonb().$type<Record<string, unknown>>().notNull(),
    /** Set on the seeded defaults, so seeding an organization twice inserts nothing twice. */
    defaultKey: text(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index('saved_queries_organization_id_idx').on(table.organizationId, table.id),
    uniqueIndex('saved_queries_organization_default_key')
      .on(table.organizationId, table.defaultKey)
      .where(sql`${table.defaultKey} is not null`),
    tenantPolicy('saved_queries'),
  ],
);

export const dashboards = pgTable(
  'dashboards',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    /**
     * The client's stable key (POST's `dashboard_id`): a shared (team, workspace) dashboard's is
     * unique among the organization's shared ones, a personal one's among its owner's personal
     * ones, so a key a colleague uses privately is never refused (nor revealed).
     */
    dashboardKey: text().notNull(),
    userId: bigint({ mode: 'number' })
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text(),
    scope: text().notNull(),
    definition: jsonb().$type<unknown[]>().notNull().default([]),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index('dashboards_organization_id_idx').on(table.organizationId, table.id),
    uniqueIndex('dashboards_shared_key')
      .on(table.organizationId, table.dashboardKey)
      .where(sql`${table.scope} <> 'personal'`),
    uniqueIndex('dashboards_personal_key')
      .on(table.organizationId, table.userId, table.dashboardKey)
      .where(sql`${table.scope} = 'personal'`),
    tenantPolicy('dashboards'),
  ],
);
