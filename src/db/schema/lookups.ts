import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  uniqueIndex,
  type AnyPgColumn,
} from 'drizzle-orm/pg-core';
import { organizations, users } from './organizations';
import { createdAt, id, organizationRef, tenantPolicy, updatedAt } from './tenancy';

/**
 * Per-organization lookup values (lead statuses, sources, priorities, tags …). A lead's
 * `status` holds the `value` of one of its organization's `lead`/`status` lookups.
 */
export const lookups = pgTable(
  'lookups',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    moduleName: text().notNull(),
    type: text().notNull(),
    name: text().notNull(),
    value: integer(),
    colorCode: text(),
    parentId: bigint({ mode: 'number' }).references((): AnyPgColumn => lookups.id),
    isActive: boolean().notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index('lookups_organization_module_type_idx').on(table.organizationId, table.moduleName, table.type, table.value),
    uniqueIndex('lookups_organization_value_key')
      .on(table.organizationId, table.moduleName, table.type, table.value)
      .where(sql`${table.value} is not null`),
    // One active tag per name (any case) per organization: ingestion's find-or-create of tag names
    // (ingestion/service.ts, tagIdsFor) settles concurrent first uses of a name on it (migration
    // 0082). Inactive tags may share a name: ingestion creates a new tag beside an inactive one.
    uniqueIndex('lookups_organization_active_tag_name_key')
      .on(table.organizationId, table.moduleName, table.type, sql`lower(${table.name})`)
      .where(sql`${table.type} = 'tags' and ${table.isActive}`),
    tenantPolicy('lookups'),
  ],
);

/** Saved list views: private to the creator, or shared with the organization (team/public). */
export const customViews = pgTable(
  'custom_views',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    userId: bigint({ mode: 'number' })
      .notNull()
      .references(() => users.id),
    moduleName: text().notNull(),
    viewName: text(),
    visibility: text().notNull(),
    filters: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    columns: jsonb().$type<string[]>().notNull().default([]),
    sorting: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index('custom_views_organization_module_idx').on(table.organizationId, table.moduleName, table.id),
    tenantPolicy('custom_views'),
  ],
);
