/**
 * Per-request database access: the request's one connection opens on its first statement and
 * closes after the response. `runAsTenant` scopes that connection to an organization in the same
 * statement that checks the caller, then runs the rest of the request: read-only methods (and
 * routes declared `transaction: false`, whose writes are standalone statements) straight on the
 * scoped session, with no BEGIN/COMMIT round trips; other writes inside one transaction that
 * rolls back when the handler failed, so no request half-writes.
 */
import type { Context, MiddlewareHandler, Next } from 'hono';
import type { SQL } from 'drizzle-orm';
import { openRequestDatabase, scopeSession, type DatabaseHandle } from '../db/client';
import type { TenantContext } from '../db/tenant';
import { readConfig } from '../env';
import type { AppEnv } from './context';

export const databaseAccess: MiddlewareHandler<AppEnv> = async (c, next) => {
  let handle: DatabaseHandle | undefined;
  c.set('database', () => {
    handle ??= openRequestDatabase(readConfig(c.env));
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

/** Methods that never write: they run on the scoped session without a transaction. */
const READ_ONLY_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export type Caller = Omit<TenantContext, 'db' | 'orgId'>;

/**
 * Scopes the request to `orgId` and runs the rest of it as that tenant. `callerCheck` is a
 * scalar SQL expression evaluated in the scoping statement (it must filter by organization
 * itself); `resolveCaller` turns its value into the caller, or throws 401/403.
 */
export async function runAsTenant<Checked>(
  c: Context<AppEnv>,
  next: Next,
  orgId: number,
  callerCheck: SQL,
  resolveCaller: (checked: Checked | null) => Caller,
): Promise<void> {
  const db = c.var.database();
  const scoped = await scopeSession<{ caller: Checked | null }>(db, orgId, callerCheck);
  const caller = resolveCaller(scoped.caller);
  if (READ_ONLY_METHODS.has(c.req.method) || c.var.transactional === false) {
    c.set('tenant', { db, orgId, ...caller });
    await next();
    return;
  }
  try {
    await db.transaction(async (tx) => {
      c.set('tenant', { db: tx, orgId, ...caller });
      await next();
      // Hono has already turned a handler error into the failure response; undo its writes.
      if (c.error) throw new RollbackAfterHandlerError();
    });
  } catch (error) {
    if (!(error instanceof RollbackAfterHandlerError)) throw error;
  }
}
