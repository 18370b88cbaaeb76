/**
 * Names for SQL written as text. Interpolating a drizzle table (`${leads}`) or column
 * (`${leads.deletedAt}`) into sql`…` keeps a renamed table or column a compile error; but a column
 * interpolates qualified (`"leads"."deleted_at"`), which SET clauses, INSERT column lists and
 * columns read through an alias do not accept. `bare` gives the column's unqualified name there.
 */
import { type SQL, sql } from 'drizzle-orm';
import { CasingCache } from 'drizzle-orm/casing';
import type { PgColumn } from 'drizzle-orm/pg-core';

// The schema's keys are camelCase; the database's names are what the client's `casing:
// 'snake_case'` (db/client.ts) makes of them, so the name is derived the same way.
const casing = new CasingCache('snake_case');

/** The column's own name, unqualified (`"deleted_at"`), for SET, INSERT column lists and `alias.${bare(col)}`. */
export function bare(column: PgColumn): SQL {
  return sql`${sql.identifier(casing.getColumnCasing(column))}`;
}
