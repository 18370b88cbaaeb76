/**
 * Per-request database access: the pool opens on first use and closes after the response.
 * `runInTenantTransaction` runs the rest of the request inside one transaction scoped to an
 * organization, and rolls it back when the handler failed, so no request half-writes.
 * Effects outside the database registered on the tenant context (`ctx.effects`, see
 * core/transaction-effects.ts) run after the transaction's outcome is known, in the background;
 * the pool closes only once they are done.
 */
import type { Context, MiddlewareHandler, Next } from 'hono';
import { openDatabase, scopeTransaction, type Database, type Transaction } from '../db/client';
import type { TenantContext } from '../db/tenant';
import { readConfig } from '../env';
import type { AppEnv } from './context';
import { PendingEffects } from './transaction-effects';

export const databaseAccess: MiddlewareHandler<AppEnv> = async (c, next) => {
  let handle: ReturnType<typeof openDatabase> | undefined;
  c.set('database', () => {
    handle ??= openDatabase(readConfig(c.env));
    return handle.db;
  });
  const background: Promise<unknown>[] = [];
  c.set('holdDatabaseUntil', (work) => background.push(work));
  try {
    await next();
  } finally {
    if (handle) {
      const open = handle;
      const closing = Promise.allSettled(background)
        .then(() => open.close())
        .catch(() => undefined);
      try {
        c.executionCtx.waitUntil(closing);
      } catch {
        await closing;
      }
    }
  }
};

class RollbackAfterHandlerError extends Error {}

export async function runInTenantTransaction(
  c: Context<AppEnv>,
  next: Next,
  orgId: number,
  resolveCaller: (tx: Transaction) => Promise<Omit<TenantContext, 'db' | 'orgId'>>,
): Promise<void> {
  const db: Database = c.var.database();
  const effects = new PendingEffects();
  let outcome: 'committed' | 'rolled_back' = 'rolled_back';
  try {
    await db.transaction(async (tx) => {
      await scopeTransaction(tx, orgId);
      const caller = await resolveCaller(tx);
      c.set('tenant', { db: tx, orgId, ...caller, effects });
      await next();
      // Hono has already turned a handler error into the failure response; undo its writes.
      if (c.error) throw new RollbackAfterHandlerError();
    });
    outcome = 'committed';
  } catch (error) {
    if (!(error instanceof RollbackAfterHandlerError)) throw error;
  } finally {
    // After the response: the effects of the outcome (queue sends after commit, R2 clean-up after rollback).
    c.var.holdDatabaseUntil(effects.settle(outcome, { db, env: c.env }));
  }
}
