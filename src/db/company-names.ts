/**
 * Finding the organization's live companies by name, compared without case: through
 * company_key_scope (migration 0074), so the unique index companies_organization_name_key serves
 * the lookup inside a tenant transaction. On the table itself row-level security keeps lower()
 * (not leakproof) out of index conditions, and the lookup read every company of the organization.
 * Shared by the companies module (the name check of a create or update, the import's match) and
 * the leads module (link or create by name).
 */
import { and, ne, type SQL, sql } from 'drizzle-orm';
import { companyKeyScope } from './schema';

/** The condition over company_key_scope: named any of `names` (any case), other than `exceptId`. */
export function companyNamedSql(orgId: number, names: string[], exceptId?: number): SQL {
  return and(
    sql`${companyKeyScope.organizationId} = ${orgId}`,
    // lower() on both sides, the database's own (the index's expression, whatever the collation),
    // each name's folded at planning, so the planner knows the keys it looks for and picks the name index.
    names.length === 0
      ? sql`false`
      : sql`${companyKeyScope.nameKey} in (${sql.join(
          names.map((name) => sql`lower(${name}::text)`),
          sql`, `,
        )})`,
    exceptId ? ne(companyKeyScope.id, exceptId) : undefined,
  ) as SQL;
}
