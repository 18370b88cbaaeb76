/**
 * A paid AI call, the same for every AI route: reserve the feature's price (a short transaction
 * of its own when the route runs without one, so a slow model holds no lock), generate, then keep
 * the result and settle in one transaction; on any failure refund and answer. On a request's
 * transaction (an Idempotency-Key) the reservation comes after the model instead (paidInTransaction). A provider's failure
 * is a 503 `provider_unavailable` with Retry-After (nothing charged), never its text.
 */
import { commitWithNextStatement, type Database, type Queryable, type Transaction } from '../../db/client';
import type { TenantContext } from '../../db/tenant';
import { ApiError, ServiceUnavailable } from '../../core/errors';
import { log } from '../../core/log';
import { ProviderFailure } from '../../providers/failures';
import type { AiProvider, Generation, Prompt } from '../../providers/ai/interface';
import { aiProviderFor, type AiSettings } from '../../providers/ai/select';
import {
  type CreditFeature,
  creditBalance,
  insufficientCredits,
  priceOf,
  refundCredits,
  reserveCredits,
  settleCredits,
} from '../credits';

export interface PaidCall {
  ctx: TenantContext;
  env: AiSettings;
}

export interface Charge {
  reservation_id: number;
  credits_charged: number;
  balance: number;
}

function isTransaction(db: Queryable): db is Transaction {
  return 'rollback' in db;
}

/** A ProviderFailure as the route's answer: the model is down, throttled, refused, or answered nonsense. */
export function aiRouteError(error: unknown): unknown {
  if (!(error instanceof ProviderFailure)) return error;
  if (error.kind === 'auth') log.error('AI provider refused the configured key', { provider: error.provider });
  return new ServiceUnavailable(
    `The AI provider could not answer: ${error.reason}. Nothing was charged`,
    'provider_unavailable',
    error.retryAfterSeconds ?? 30,
  );
}

/**
 * Reserves, generates, and runs `keep(tx, generation, charge)` with the settlement in one
 * transaction. `key` is the reservation's idempotency key (a fresh one per request by default).
 */
export function paidGeneration<Vars, R>(
  call: PaidCall,
  feature: CreditFeature,
  prompt: Prompt<Vars>,
  vars: Vars,
  keep: (tx: Transaction, generation: Generation, charge: Charge) => Promise<R>,
  key = `${feature}:${crypto.randomUUID()}`,
): Promise<R> {
  return paidGenerations(call, feature, (provider) => provider.generate(prompt, vars), keep, key);
}

/**
 * `paidGeneration` for work that asks the provider more than once for one charge (a long
 * transcript summarised part by part, then whole): `generate` runs between the reservation and
 * the keeping transaction and answers the generation to keep; any failure in it refunds.
 */
export async function paidGenerations<R>(
  call: PaidCall,
  feature: CreditFeature,
  generate: (provider: AiProvider) => Promise<Generation>,
  keep: (tx: Transaction, generation: Generation, charge: Charge) => Promise<R>,
  key = `${feature}:${crypto.randomUUID()}`,
): Promise<R> {
  const provider: AiProvider = aiProviderFor(call.env);
  if (isTransaction(call.ctx.db)) return paidInTransaction(call, call.ctx.db, feature, provider, generate, keep, key);
  const reservation = await reserveCredits(call.ctx, { feature, idempotencyKey: key });
  try {
    const generation = await generate(provider);
    // The request's session holds no transaction here (paidInTransaction otherwise): this one is
    // its own, and the settlement, its last statement, carries its COMMIT.
    const session = call.ctx.db as Database;
    return await session.transaction(async (tx) => {
      const charge = {
        reservation_id: reservation.id,
        credits_charged: reservation.price,
        balance: reservation.balance,
      };
      const kept = await keep(tx, generation, charge);
      commitWithNextStatement(session);
      await settleCredits({ ...call.ctx, db: tx }, reservation.id);
      return kept;
    });
  } catch (error) {
    const reason =
      error instanceof ProviderFailure ? error.reason : error instanceof ApiError ? error.message : 'failed';
    await refundCredits(call.ctx, reservation.id, reason.slice(0, 300)).catch(() => undefined);
    throw aiRouteError(error);
  }
}

/**
 * A paid call on a request's transaction (a request with an Idempotency-Key runs in one, even on
 * a route declared without: core/database.ts). A reservation there holds the organization's
 * credits lock until the request commits, so reserving before the model was asked held up every
 * other paid call of the organization for as long as the model took. Here the balance is checked
 * first (402 with nothing asked when it cannot pay), the model asked with no lock held, and the
 * reservation, the result and the settlement written after it, at the end of the transaction.
 * Any failure rolls the whole request back: nothing is charged. A balance spent meanwhile by
 * another call is the same 402, the text unpaid and dropped.
 */
async function paidInTransaction<R>(
  call: PaidCall,
  tx: Transaction,
  feature: CreditFeature,
  provider: AiProvider,
  generate: (provider: AiProvider) => Promise<Generation>,
  keep: (tx: Transaction, generation: Generation, charge: Charge) => Promise<R>,
  key: string,
): Promise<R> {
  const price = priceOf(feature);
  const balance = await creditBalance(call.ctx);
  if (balance < price) throw insufficientCredits(feature, price, balance);
  try {
    const generation = await generate(provider);
    const reservation = await reserveCredits(call.ctx, { feature, idempotencyKey: key });
    const charge = { reservation_id: reservation.id, credits_charged: reservation.price, balance: reservation.balance };
    const kept = await keep(tx, generation, charge);
    await settleCredits(call.ctx, reservation.id);
    return kept;
  } catch (error) {
    throw aiRouteError(error);
  }
}
