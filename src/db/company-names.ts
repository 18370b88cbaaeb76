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
    companyNameKeyInSql(names),
    exceptId ? ne(companyKeyScope.id, exceptId) : undefined,
  ) as SQL;
}

/**
 * `name_key` (company_key_scope's) is one of `names`' keys, or false for none. lower() on both
 * sides, the database's own (the index's expression, whatever the collation), each name's folded
 * at planning, so the planner knows the keys it looks for and picks the name index (an array of
 * keys built by a sub-select it does not know, and it read the organization by another index).
 */
export function companyNameKeyInSql(names: string[]): SQL {
  return names.length === 0
    ? sql`false`
    : sql`${companyKeyScope.nameKey} in (${sql.join(
        names.map((name) => sql`lower(${name}::text)`),
        sql`, `,
      )})`;
}

/**
 * `names` with their keys as the database lowers them (the unique index's lower(), whatever the
 * collation), as a FROM item of (position, name_key), position counting from 1. JavaScript's
 * toLowerCase differs for a few letters (a word-final Σ, a dotted İ), so code that matches given
 * names with companies found by companyNamedSql takes their keys from here, in the same statement.
 */
export function givenNameKeysSql(names: string[]): SQL {
  return sql`(select n.position, lower(n.name) as name_key
    from unnest(${sql.param(names)}::text[]) with ordinality as n(name, position))`;
}
