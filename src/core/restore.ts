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
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Queryable } from '../db/client';
import { isUniqueViolation } from '../db/errors';
import { Conflict } from './errors';

/** A key a record to restore (`id`) shares with `holder_id`: live, or restored in the same request. */
export interface RestoreClash<F extends string = string> {
  id: number;
  holder_id: number;
  field: F;
}

/** A soft-deleted table: its `id`, `organization_id`, `deleted_at` and `updated_at`. */
type SoftDeleted = PgTable & { id: PgColumn; organizationId: PgColumn; deletedAt: PgColumn; updatedAt: PgColumn };

/**
 * The whole restore statement of `table` in the organization: `candidates` selects (and locks, in
 * id order) the deleted rows asked for, with an `id` column and the keys `clashes` compares;
 * `clashes` yields `id`, `holder_id`, `field` for every key a candidate shares with a live row or
 * an earlier candidate; `feed` writes the `restored` entries of the rows it is given (`restored`,
 * with their `id`). The rows are restored only when nothing clashes.
 */
export function restoreStatementSql(spec: {
  table: SoftDeleted;
  orgId: number;
  candidates: SQL;
  clashes: SQL;
  feed: (from: SQL) => SQL;
}): SQL {
  const { table } = spec;
  return sql`
    with candidates as (${spec.candidates}), clashes as (${spec.clashes}), restored as (
      update ${table} set deleted_at = null, updated_at = now()
      where ${table.organizationId} = ${spec.orgId} and ${table.id} in (select id from candidates)
        and not exists (select 1 from clashes)
      returning ${table.id} as id
    ), feed as (${spec.feed(sql`restored`)})
    ${restoreOutcomeSql}`;
}

/**
 * The 409 of a restore that clashed (nothing was restored): the first clash in `error.details`
 * (`id`, the holder under its own key, `field`) and every clash in `error.details.clashes`.
 */
export function restoreClashConflict<F extends string>(
  clashes: RestoreClash<F>[],
  spec: { record: string; code: string; holder: string; keyNames: Record<F, string> },
): Conflict {
  const named = clashes.map(({ id, holder_id, field }) => ({ id, [spec.holder]: holder_id, field }));
  const [first] = clashes;
  const record = spec.record.toLowerCase();
  return new Conflict(
    `${spec.record} ${first.id} cannot be restored: ${record} ${first.holder_id} has its ${spec.keyNames[first.field]}. Nothing was restored`,
    spec.code,
    { ...named[0], clashes: named },
  );
}

/**
 * The statement's answer, after its CTEs `restored` (the restored rows' ids) and `clashes`
 * (`id`, `holder_id`, `field`): how many it restored and every clash, in id order.
 */
const restoreOutcomeSql = sql`select (select count(*) from restored)::int as restored,
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
