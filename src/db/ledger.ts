/**
 * What the organization's ledgers share (the AI credits, src/modules/credits; the calling
 * wallet, src/modules/voice): the balance is the sum of the ledger's signed rows and is stored
 * nowhere else, and an organization's movements that may lower it are serialized by a
 * transaction-scoped advisory lock named for the organization and the ledger. The lock is its own
 * statement: a statement's snapshot is taken when it starts, so a balance read in the statement
 * that waited for the lock could miss the movement it waited for. Each ledger keeps its own rules
 * (idempotency keys and reservations for credits, holds and once-per-call charges for the wallet).
 */
import { type SQL, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Queryable } from './client';

/** The statement that takes the ledger lock named `key` until the transaction ends. */
export function ledgerLockSql(key: string): SQL {
  return sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`;
}

export async function lockLedger(db: Queryable, key: string): Promise<void> {
  await db.execute(ledgerLockSql(key));
}

/** A scalar subquery: the organization's balance on the ledger (0 without rows). */
export function ledgerBalanceSql(table: PgTable, amount: PgColumn, organization: PgColumn, orgId: number): SQL<number> {
  return sql<number>`(select coalesce(sum(${amount}), 0)::bigint from ${table} where ${organization} = ${orgId})`;
}
