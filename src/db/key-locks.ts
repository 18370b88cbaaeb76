/**
 * Unique keys checked before they are written (a lead's email or profile URL, a contact's email, a
 * company's name, a lookup's name): a request's transaction asks first, because a failed write
 * would abort it, and the unique index alone would answer a concurrent writer with an anonymous
 * 409. So the writer first takes a transaction-scoped advisory lock named for the organization,
 * the kind of key and the key, and only then checks: a second writer of the same key waits for the
 * first to commit, then sees its row and answers the documented 409 naming it. The lock is its own
 * statement (a statement's snapshot is taken when it starts, so a check in the statement that
 * waited could miss the row it waited for). Keys are locked in sorted order, so two writers
 * locking overlapping sets cannot deadlock.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { Queryable } from './client';

/** Locks each key (compared as given: lower-case or normalise it first) of `kind` in the organization. */
export async function lockOrganizationKeys(db: Queryable, orgId: number, kind: string, keys: string[]): Promise<void> {
  if (keys.length === 0) return;
  const sorted = [...new Set(keys)].sort();
  await db.execute(
    sql`select count(pg_advisory_xact_lock(hashtextextended(${`${orgId}:${kind}:`} || k, 0))) from unnest(${sql.param(sorted)}::text[]) with ordinality as t(k, n)`,
  );
}

/** Locks one key computed by the database (`key`, a text expression; nothing is locked when it is null). */
export async function lockOrganizationKeySql(db: Queryable, orgId: number, kind: string, key: SQL): Promise<void> {
  await db.execute(
    sql`select pg_advisory_xact_lock(hashtextextended(${`${orgId}:${kind}:`} || k, 0)) from (select ${key} as k) as t where k is not null`,
  );
}
