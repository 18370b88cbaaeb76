/**
 * Per-request database access: the request's one connection opens on its first statement and
 * closes after the response. `runAsTenant` scopes that connection to an organization in the same
 * statement that checks the caller, then runs the rest of the request: read-only methods (and
 * routes declared `transaction: false`, whose writes are standalone statements) straight on the
 * scoped connection, each statement carrying the scope, with no BEGIN/COMMIT round trips; other
 * writes inside one transaction that rolls back when the handler failed, so no request
 * half-writes. A write carrying an
 * Idempotency-Key always runs in a transaction, which also stores its response (core/idempotency.ts).
 * Effects outside the database registered on the tenant context (`ctx.effects`, see
 * core/transaction-effects.ts) run after the outcome is known, in the background; the
 * connection closes only once they are done.
 */
import type { Context, MiddlewareHandler, Next } from 'hono';
import type { SQL } from 'drizzle-orm';
import {
  commitWithNextStatement,
  committedWithLastStatement,
  openRequestDatabase,
  scopeSession,
  type DatabaseHandle,
  type OrganizationLookup,
} from '../db/client';
import type { TenantContext } from '../db/tenant';
import { readConfig } from '../env';
import type { AppEnv } from './context';
import { IdempotentRequest, isStorableResponse } from './idempotency';
import { PendingEffects } from './transaction-effects';

export const databaseAccess: MiddlewareHandler<AppEnv> = async (c, next) => {
  let handle: DatabaseHandle | undefined;
  c.set('database', () => {
    handle ??= openRequestDatabase(readConfig(c.env));
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

/** Methods that never write: they run on the scoped connection without a transaction. */
const READ_ONLY_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export type Caller = Omit<TenantContext, 'db' | 'orgId'>;

/**
 * Scopes the request to an organization (its id, or a lookup by a public key such as a booking
 * slug, evaluated in the same statement) and runs the rest of it as that tenant. `callerCheck` is a
 * scalar SQL expression evaluated in the scoping statement (it must filter by organization
 * itself); `resolveCaller` turns its value into the caller, or throws 401/403.
 */
export async function runAsTenant<Checked>(
  c: Context<AppEnv>,
  next: Next,
  organization: number | OrganizationLookup,
  callerCheck: SQL,
  resolveCaller: (checked: Checked | null) => Caller,
  options: {
    /**
     * Open the transaction first and scope inside it, so a row lock the caller check takes
     * (`for update`) is held until COMMIT: the public booking confirmation locks its rep this way
     * in the statement it sends anyway. Writes only; no Idempotency-Key support.
     */
    scopeInTransaction?: boolean;
    /**
     * The request's rate-limit count (core/rate-limit.ts `countApiCall`), already under way: the
     * scoping statement goes while it runs, and the handler only once it has admitted the
     * request. Its refusal (429) wins over the caller check's 401, as when it ran first.
     */
    admission?: Promise<void>;
    /**
     * Whose Idempotency-Keys these are when the caller is not the actor that scopes them: the
     * operator acting on an organization (`operator`, core/auth/operator.ts runAsOrganization).
     */
    idempotencyScope?: string;
  } = {},
): Promise<void> {
  const db = c.var.database();
  if (options.scopeInTransaction && !READ_ONLY_METHODS.has(c.req.method)) {
    // The transaction takes row locks in its scoping statement: it opens only once admitted.
    await options.admission;
    return scopedTransaction(c, next, db, organization, callerCheck, resolveCaller);
  }
  const scoped = await alongside(
    options.admission,
    scopeSession<{ caller: Checked | null }>(db, organization, callerCheck),
  );
  // A lookup that found nothing scopes to no organization; resolveCaller refuses that request.
  const caller = resolveCaller(scoped.caller);
  const orgId = typeof organization === 'number' ? organization : Number(scoped.scope);
  // An Idempotency-Key on a route that creates (core/idempotency.ts): the stored response and the
  // writes must commit together, so such a request runs in a transaction even on a route
  // declared `transaction: false`.
  const idempotent = await IdempotentRequest.of(c, orgId, caller.actor, options.idempotencyScope);
  const effects = new PendingEffects();
  let outcome: 'committed' | 'rolled_back' = 'rolled_back';
  if (READ_ONLY_METHODS.has(c.req.method) || (c.var.transactional === false && !idempotent)) {
    // Each statement commits as it runs: effects follow the handler's success.
    c.set('tenant', { db, orgId, ...caller, effects });
    try {
      await next();
      if (!c.error) outcome = 'committed';
    } finally {
      c.var.holdDatabaseUntil(effects.settle(outcome, { db, env: c.env }));
    }
    return;
  }
  try {
    await db.transaction(async (tx) => {
      // With an Idempotency-Key the stored response is the transaction's last statement.
      const commitWithNext = idempotent ? undefined : () => commitWithNextStatement(db);
      c.set('tenant', { db: tx, orgId, ...caller, effects, commitWithNext });
      const replay = await idempotent?.replayOrLock(tx, c);
      if (replay) {
        c.res = replay;
        return;
      }
      await next();
      // Hono has already turned a handler error into the failure response; undo its writes.
      if (c.error) throw new RollbackAfterHandlerError();
      if (idempotent && isStorableResponse(c.res.status)) await idempotent.store(tx, c.res);
    });
    outcome = 'committed';
  } catch (error) {
    // A handler that failed after its last statement had committed (commitWithNext): its writes stand.
    if (committedWithLastStatement(db)) outcome = 'committed';
    if (!(error instanceof RollbackAfterHandlerError)) throw error;
  } finally {
    // After the response: the effects of the outcome (queue sends after commit, R2 clean-up after rollback).
    c.var.holdDatabaseUntil(effects.settle(outcome, { db, env: c.env }));
  }
}

/** runAsTenant with `scopeInTransaction`: BEGIN, the scope with its caller check, the handler, COMMIT. */
/** `work`'s value once `admission` has admitted the request too; a refusal is thrown first, and neither promise is left unobserved. */
async function alongside<T>(admission: Promise<void> | undefined, work: Promise<T>): Promise<T> {
  if (!admission) return work;
  const [admitted, done] = await Promise.allSettled([admission, work]);
  if (admitted.status === 'rejected') throw admitted.reason;
  if (done.status === 'rejected') throw done.reason;
  return done.value;
}

async function scopedTransaction<Checked>(
  c: Context<AppEnv>,
  next: Next,
  db: ReturnType<AppEnv['Variables']['database']>,
  organization: number | OrganizationLookup,
  callerCheck: SQL,
  resolveCaller: (checked: Checked | null) => Caller,
): Promise<void> {
  const effects = new PendingEffects();
  let outcome: 'committed' | 'rolled_back' = 'rolled_back';
  try {
    await db.transaction(async (tx) => {
      const scoped = await scopeSession<{ caller: Checked | null }>(tx, organization, callerCheck);
      const caller = resolveCaller(scoped.caller);
      const orgId = typeof organization === 'number' ? organization : Number(scoped.scope);
      c.set('tenant', { db: tx, orgId, ...caller, effects, commitWithNext: () => commitWithNextStatement(db) });
      await next();
      if (c.error) throw new RollbackAfterHandlerError();
    });
    outcome = 'committed';
  } catch (error) {
    if (committedWithLastStatement(db)) outcome = 'committed';
    if (!(error instanceof RollbackAfterHandlerError)) throw error;
  } finally {
    c.var.holdDatabaseUntil(effects.settle(outcome, { db, env: c.env }));
  }
}
