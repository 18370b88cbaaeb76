import { type SQL, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Queryable } from './client';

/**
 * Work over many rows, a bounded batch at a time (the cron's sweeps): each round is one short
 * statement or transaction, so no sweep holds long locks, and the rounds stop at the first batch
 * that was not full, or after `maxBatches` (the next run goes on from there).
 */
export async function inBatches(round: () => Promise<number>, batch: number, maxBatches: number): Promise<number> {
  let done = 0;
  for (let n = 0; n < maxBatches; n++) {
    const count = await round();
    done += count;
    if (count < batch) break;
  }
  return done;
}

/**
 * Deletes `table`'s rows that `spent` selects, at most `batch` a statement (`inBatches`), by the
 * table's key (the columns of its primary key, whose index finds them): the retention sweeps.
 */
export function deleteInBatches(
  db: Queryable,
  table: PgTable,
  key: SQL,
  spent: SQL,
  batch: number,
  maxBatches: number,
): Promise<number> {
  return inBatches(
    async () =>
      (
        await db.execute(
          sql`delete from ${table} where (${key}) in (select ${key} from ${table} where ${spent} limit ${batch})`,
        )
      ).rowCount ?? 0,
    batch,
    maxBatches,
  );
}
