/**
 * Restoring soft-deleted records whose unique keys (an email, a profile URL, a CRM record) a
 * delete freed: the module's one statement locks the deleted records asked for, gathers every
 * `clashes` row (a key a live record holds now, or two of the records to restore share) and
 * restores them only if there is none, so a request restores all of them or nothing. A create of
 * a record with one of those keys committing meanwhile makes the update fail on the unique index:
 * the statement then runs once more, sees the new record, and answers the clash.
 * Used by `POST /api/lead/restore` and `POST /api/contact/restore`.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { isUniqueViolation } from '../db/errors';

/** A key a record to restore (`id`) shares with `holder_id`: live, or restored in the same request. */
export interface RestoreClash<F extends string = string> {
  id: number;
  holder_id: number;
  field: F;
}

/**
 * The statement's answer, after its CTEs `restored` (the restored rows' ids) and `clashes`
 * (`id`, `holder_id`, `field`): how many it restored and every clash, in id order.
 */
export const restoreOutcomeSql = sql`select (select count(*) from restored)::int as restored,
  (select coalesce(json_agg(json_build_object('id', id, 'holder_id', holder_id, 'field', field)
    order by id, field, holder_id), '[]') from clashes) as clashes`;

/** Runs the module's restore statement (ending in `restoreOutcomeSql`), once more after a unique violation. */
export async function runRestore<F extends string>(
  db: Queryable,
  statement: SQL,
): Promise<{ restored: number; clashes: RestoreClash<F>[] }> {
  for (let attempt = 0; ; attempt++) {
    try {
      const result = await db.execute<{ restored: number; clashes: RestoreClash<F>[] | string }>(statement);
      const row = result.rows[0];
      const clashes = (typeof row.clashes === 'string' ? JSON.parse(row.clashes) : row.clashes) as RestoreClash<F>[];
      return {
        restored: Number(row.restored),
        clashes: clashes.map((clash) => ({ ...clash, id: Number(clash.id), holder_id: Number(clash.holder_id) })),
      };
    } catch (error) {
      if (attempt === 0 && isUniqueViolation(error)) continue;
      throw error;
    }
  }
}
