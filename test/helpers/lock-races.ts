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
 * Two rows of `table` whose heap order is against their id order, [lower, higher]. Each batch of
 * rows (`batch` makes one) is rewritten, the higher ids first, until two lie against their id
 * order: where a new row version lands depends on the table's free space, which other tests keep
 * changing, so fresh batches are tried (up to 8) before giving up.
 */
export async function rowsAgainstIdOrder(
  orgId: number,
  table: 'leads' | 'contacts' | 'companies',
  batch: () => Promise<number[]>,
  rewrite: (id: number, round: number) => SQL,
): Promise<[number, number]> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const ids = await batch();
    for (let round = 0; round < 5; round++) {
      // A backend per row first (each asks the free space map, whose search moves on between
      // requests); from the second half of the attempts, every other round in one backend and
      // one transaction, whose new versions go to the page it last wrote while they fit. A CI run
      // found no pair of leads in 40 rounds of the first kind alone (2026-12-03); neither kind
      // always finds one, since both depend on the table's free space that other tests leave.
      if (attempt >= 4 && round % 2 === 1) {
        await inOrganization(orgId, async (tx) => {
          for (const id of [...ids].reverse()) await tx.execute(rewrite(id, round));
        });
      } else {
        for (const id of [...ids].reverse()) await inOrganization(orgId, (tx) => tx.execute(rewrite(id, round)));
      }
      const heap = await inOrganization(orgId, (tx) =>
        tx.execute<{ id: string }>(
          sql`select id from ${sql.identifier(table)} where id = any(${`{${ids.join(',')}}`}::bigint[]) order by ctid`,
        ),
      );
      const order = heap.rows.map((row) => Number(row.id));
      for (const [index, higher] of order.entries()) {
        const lower = order.slice(index + 1).find((id) => id < higher);
        if (lower !== undefined) return [lower, higher];
      }
    }
  }
  throw new Error(`the ${table} stayed in id order`);
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
