/**
 * What the lock-order race tests share (PostgreSQL only: PGlite runs one transaction at a time).
 * A writer that locks rows in the order its plan reads them deadlocks with one locking in id order
 * only when the plan meets the higher id first, so these tests need rows lying in their table
 * against their id order, a plan that reads them in heap order, and a holder that keeps the lower
 * row locked while the two writers queue behind it in turn.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { TenantContext } from '../../src/db/tenant';
import type { SignedUp } from './api';
import { asTenant, inOrganization } from './leads';

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** True on PGlite, where a race test proves nothing (one transaction at a time). */
export async function onPglite(orgId: number): Promise<boolean> {
  const version = await inOrganization(orgId, (tx) => tx.execute<{ v: string }>(sql`select version() as v`));
  return /emscripten|wasm/i.test(version.rows[0].v);
}

/**
 * Two rows of `table` made by `pair` (the app's own writes), placed in the heap against their id
 * order and answered as [lower, higher]. Both are deleted and inserted again with their own ids
 * and values, the higher first, in one statement of one backend: the second insert tries the page
 * the first one went to before any other, and there takes a line pointer after the first's, so the
 * higher id lies first. Only if that page is full after the first does the second go elsewhere,
 * which the check below sees; the move is then made again (at most 5 times). Searching for such
 * rows instead, by rewriting many and reading where they landed, depended on the free space other
 * tests leave in the shared table, and a CI run found none in 40 rounds (2026-12-03).
 * Generated columns are left for PostgreSQL to compute, and a foreign key that cascades from the
 * row loses its rows (none exist for rows just made by these tests).
 */
export async function rowsAgainstIdOrder(
  orgId: number,
  table: 'leads' | 'contacts' | 'companies',
  pair: () => Promise<[number, number]>,
): Promise<[number, number]> {
  const made = await pair();
  const [lower, higher] = made[0] < made[1] ? made : [made[1], made[0]];
  const ids = `{${lower},${higher}}`;
  const stored = await inOrganization(orgId, (tx) =>
    tx.execute<{ name: string }>(
      sql`select attname as name from pg_attribute where attrelid = ${table}::regclass and attnum > 0 and not attisdropped and attgenerated = '' order by attnum`,
    ),
  );
  const columns = sql.join(
    stored.rows.map((row) => sql.identifier(row.name)),
    sql`, `,
  );
  let placed = '';
  for (let attempt = 0; attempt < 5; attempt++) {
    const heap = await inOrganization(orgId, async (tx) => {
      await tx.execute(
        sql`with moved as (delete from ${sql.identifier(table)} where id = any(${ids}::bigint[]) returning ${columns})
            insert into ${sql.identifier(table)} (${columns}) overriding system value select ${columns} from moved order by id desc`,
      );
      return tx.execute<{ id: string; at: string }>(
        sql`select id, ctid::text as at from ${sql.identifier(table)} where id = any(${ids}::bigint[]) order by ctid`,
      );
    });
    placed = heap.rows.map((row) => `${row.id} at ${row.at}`).join(', ');
    if (heap.rows.length !== 2) throw new Error(`the ${table} ${lower} and ${higher} were not both moved (${placed})`);
    if (Number(heap.rows[0].id) === higher) return [lower, higher];
  }
  throw new Error(`the ${table} ${lower} and ${higher} stayed in id order after 5 moves (last: ${placed})`);
}

/** Runs `work` as the organization with its tables read in heap order (the plan of many rows). */
export function inHeapOrder<T>(owner: SignedUp, work: (ctx: TenantContext) => Promise<T>): Promise<T> {
  return asTenant(owner, async (ctx) => {
    await ctx.db.execute(
      sql`select set_config('enable_indexscan', 'off', true), set_config('enable_bitmapscan', 'off', true), set_config('enable_indexonlyscan', 'off', true)`,
    );
    return work(ctx);
  });
}

/**
 * A transaction of its own holding what `lock` locks until `release()`; resolves once it holds it.
 * `done` settles when that transaction ends.
 */
export async function holdingLock(orgId: number, lock: SQL): Promise<{ release: () => void; done: Promise<void> }> {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held: () => void = () => {};
  const holding = new Promise<void>((resolve) => {
    held = resolve;
  });
  const done = inOrganization(orgId, async (tx) => {
    await tx.execute(lock);
    held();
    await released;
  });
  await Promise.race([holding, done]);
  return { release, done };
}

/** Each promise's outcome: 'ok', or its error as text (a deadlock names itself). */
export async function outcomes(promises: Promise<unknown>[]): Promise<string[]> {
  const settled = await Promise.allSettled(promises);
  return settled.map((result) => (result.status === 'rejected' ? String(result.reason) : 'ok'));
}

/**
 * Runs `work` as the organization in a transaction of its own that stays open, uncommitted, until
 * `release()`: `held` resolves once `work` is done (or the transaction ended early), `done` when
 * the transaction ends, with `work`'s result.
 */
export function holding<T>(owner: SignedUp, work: (ctx: TenantContext) => Promise<T>) {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held: () => void = () => {};
  const worked = new Promise<void>((resolve) => {
    held = resolve;
  });
  const done = asTenant(owner, async (ctx) => {
    const result = await work(ctx);
    held();
    await released;
    return result;
  });
  return { held: Promise.race([worked, done]).then(() => undefined), release, done };
}

/** The id of the transaction `ctx` runs in (as text), for `waitsOn`. */
export async function transactionOf(ctx: TenantContext): Promise<string> {
  const result = await ctx.db.execute<{ xid: string }>(sql`select txid_current()::text as xid`);
  return result.rows[0].xid;
}

/**
 * Whether some session waits for transaction `xid` (its lock), before `pending` settles: polled in
 * pg_locks (readable by every role) until one does, `pending` settles, or `timeoutMs` passes. A
 * fixed pause instead can end before a slow request has even reached its statement.
 */
export async function waitsOn(orgId: number, xid: string, pending: Promise<unknown>, timeoutMs = 15_000) {
  let settled = false;
  void pending.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  const deadline = Date.now() + timeoutMs;
  while (!settled && Date.now() < deadline) {
    const waiting = await inOrganization(orgId, (tx) =>
      tx.execute<{ n: number }>(
        sql`select count(*)::int as n from pg_locks where locktype = 'transactionid' and not granted and transactionid::text = ${xid}`,
      ),
    );
    if (Number(waiting.rows[0].n) > 0) return true;
    await pause(50);
  }
  return false;
}
