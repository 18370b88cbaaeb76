/**
 * Per-request database access: the pool opens on first use and closes after the response.
 * `runInTenantTransaction` runs the rest of the request inside one transaction scoped to an
 * organization, and rolls it back when the handler failed, so no request half-writes.
 */
import type { Context, MiddlewareHandler, Next } from 'hono';
import { openDatabase, scopeTransaction, type Database, type Transaction } from '../db/client';
import type { TenantContext } from '../db/tenant';
import { readConfig } from '../env';
import type { AppEnv } from './context';

export const databaseAccess: MiddlewareHandler<AppEnv> = async (c, next) => {
  let handle: ReturnType<typeof openDatabase> | undefined;
  c.set('database', () => {
    handle ??= openDatabase(readConfig(c.env));
    return handle.db;
  });
  try {
    await next();
  } finally {
    if (handle) {
      const closing = handle.close().catch(() => undefined);
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
  try {
    await db.transaction(async (tx) => {
      await scopeTransaction(tx, orgId);
      const caller = await resolveCaller(tx);
      c.set('tenant', { db: tx, orgId, ...caller });
      await next();
      // Hono has already turned a handler error into the failure response; undo its writes.
      if (c.error) throw new RollbackAfterHandlerError();
    });
  } catch (error) {
    if (!(error instanceof RollbackAfterHandlerError)) throw error;
  }
}
