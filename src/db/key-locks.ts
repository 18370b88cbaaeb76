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
import { pgError } from './errors';

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

/**
 * The lock serializes the writers that take it: updates that move a row onto a key. A create
 * takes none (its INSERT … ON CONFLICT settles on the unique index, without aborting), so it can
 * commit between an update's check and its write: the update then violates the index. Such an
 * update runs `write` in a savepoint: rolled back to it, the transaction can still read the key's
 * holder, and `taken(constraint)` answers the documented 409 naming it, instead of the anonymous
 * `duplicate`. Its SAVEPOINT and RELEASE go out with the statements after them (client.ts,
 * `holdControl`), so the savepoint costs no round trip.
 */
export async function writeCheckedKey<T>(
  db: Queryable,
  constraints: readonly string[],
  write: (db: Queryable) => Promise<T>,
  taken: (constraint: string) => Promise<Error>,
): Promise<T> {
  try {
    return await db.transaction((savepoint) => write(savepoint));
  } catch (error) {
    const pg = pgError(error);
    if (pg?.code === '23505' && pg.constraint && constraints.includes(pg.constraint)) throw await taken(pg.constraint);
    throw error;
  }
}
