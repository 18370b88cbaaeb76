import { bigint, index, pgTable, text } from 'drizzle-orm/pg-core';
import { id, organizationRef, tenantPolicy } from './tenancy';

/**
 * Live-row counters for unfiltered list totals: the organization's count of `relation` is the
 * SUM of its rows here. Statement-level triggers (drizzle/0007_live_row_counts.sql) append
 * each statement's net change and fold the organization's unlocked rows into it (SKIP LOCKED), so
 * concurrent writers never wait on one counter row and the rows stay few (about one per writer
 * in flight). No foreign key: a cascading organization delete fires the triggers after the
 * organization row is gone, and orphan counter rows are harmless.
 */
export const liveRowCounts = pgTable(
  'live_row_counts',
  {
    id: id(),
    organizationId: organizationRef(),
    relation: text().notNull(),
    delta: bigint({ mode: 'number' }).notNull(),
  },
  (table) => [
    index('live_row_counts_organization_relation_idx').on(table.organizationId, table.relation),
    tenantPolicy('live_row_counts'),
  ],
);
