/**
 * Liveness: one real round trip to the database, outside any organization's scope.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client';

export async function checkDatabase(db: Database): Promise<void> {
  await db.execute(sql`select 1`);
}
