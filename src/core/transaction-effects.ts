/**
 * Effects outside the database that a request's transaction must decide: a queue message may
 * leave only once the rows it points at have committed, and an R2 object written for rows that
 * then rolled back must go. Services register them on the tenant context (`ctx.effects`); the
 * code that owns the transaction (core/database.ts) settles them once it knows the outcome.
 *
 * Each effect gets the request's database (not the finished transaction) and the bindings.
 * Effects are best-effort: one that fails is logged and the others still run. Whatever must
 * not be lost is therefore written to the database first (the job outbox), so that a failed
 * effect is only a delay until the cron sweep repeats it.
 */
import { withTenant, type Database, type Transaction } from '../db/client';
import type { Bindings } from '../env';
import { errorText, log } from './log';

export interface EffectContext {
  /** The request's database handle, outside any transaction (owner role, no tenant scope). */
  db: Database;
  env: Bindings;
}

export type Effect = (context: EffectContext) => Promise<unknown>;

export interface TransactionEffects {
  /** Runs `effect` after the transaction has committed, in the background (waitUntil). */
  afterCommit(effect: Effect): void;
  /** Runs `effect` after the transaction has rolled back (or failed to commit), in the background. */
  afterRollback(effect: Effect): void;
}

export type TransactionOutcome = 'committed' | 'rolled_back';

/** One transaction's effects: collected while it runs, settled once when it ends. */
export class PendingEffects implements TransactionEffects {
  private readonly pending: Record<TransactionOutcome, Effect[]> = { committed: [], rolled_back: [] };
  private settled = false;

  afterCommit(effect: Effect): void {
    this.add('committed', effect);
  }

  afterRollback(effect: Effect): void {
    this.add('rolled_back', effect);
  }

  /** Runs the effects of `outcome` one after another (in registration order); never rejects. */
  async settle(outcome: TransactionOutcome, context: EffectContext): Promise<void> {
    this.settled = true;
    for (const effect of this.pending[outcome]) {
      try {
        await effect(context);
      } catch (error) {
        log.error(`effect after ${outcome} failed`, { error: errorText(error) });
      }
    }
  }

  private add(outcome: TransactionOutcome, effect: Effect): void {
    // Registering after the outcome is known would silently drop the effect.
    if (this.settled) throw new Error('transaction effects registered after the transaction ended');
    this.pending[outcome].push(effect);
  }
}

/**
 * withTenant with effects, for work outside the request middleware (core/database.ts): queue
 * consumers, provider callbacks. What the work registers runs once the outcome is known, before
 * this returns (such callers have no response to send first): queue sends (a follow-up job's
 * outbox message, webhook deliveries) after the commit, R2 clean-ups after a rollback. Without
 * effects those sends wait for the cron's sweeps (the outbox's, the deliveries' lease sweep), a
 * minute or more. The settling never throws: a failed send is logged and the sweep repeats it.
 */
export async function withTenantEffects<T>(
  db: Database,
  env: Bindings,
  orgId: number,
  work: (tx: Transaction, effects: TransactionEffects) => Promise<T>,
): Promise<T> {
  const effects = new PendingEffects();
  let outcome: TransactionOutcome = 'rolled_back';
  try {
    const result = await withTenant(db, orgId, (tx) => work(tx, effects));
    outcome = 'committed';
    return result;
  } finally {
    await effects.settle(outcome, { db, env });
  }
}
