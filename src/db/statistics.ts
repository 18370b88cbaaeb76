/**
 * Fresh planner statistics after one organization's bulk writes (migration 0064 says why: an
 * organization the table's last ANALYZE did not see is estimated at about one row, and the bulk
 * actions' joins then rescan a CTE for every row, 50 to 100 s for 20 000 leads instead of 2).
 *
 * Writers of many rows at once call `refreshStatisticsAfter` with the number of rows they wrote,
 * inside their transaction: at STATISTICS_REFRESH_ROWS or more it is one more statement, an
 * ANALYZE of the written tables (through the SECURITY DEFINER function, since the app's role does
 * not own them; it waits at most 2 s for a lock on a table). Below it, nothing: a wrong estimate
 * for fewer rows costs milliseconds, an ANALYZE samples up to 30 000 rows of the whole table.
 */
import { sql } from 'drizzle-orm';
import type { Queryable } from './client';

/** Rows written for one organization from which the written tables' statistics are refreshed. */
export const STATISTICS_REFRESH_ROWS = 1000;

/** The tables whose per-organization estimates the bulk statements' plans depend on. */
export type StatisticsTable = 'leads' | 'lead_tags' | 'lead_search_documents';

/** ANALYZE of `tables` when `rowsWritten` reaches STATISTICS_REFRESH_ROWS; true when it ran. */
export async function refreshStatisticsAfter(
  db: Queryable,
  rowsWritten: number,
  tables: StatisticsTable[],
): Promise<boolean> {
  if (rowsWritten < STATISTICS_REFRESH_ROWS || tables.length === 0) return false;
  await db.execute(sql`select refresh_table_statistics(${sql.param(tables)}::text[])`);
  return true;
}
