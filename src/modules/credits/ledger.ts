/**
 * The credits service other modules call: reserve a feature's price before the work, settle it on
 * success, refund it on failure. Every call writes ledger rows; the balance is their sum.
 *
 * Reserving serializes per organization: a transaction-level advisory lock on the organization's
 * credits (the lock and the derived balance are shared with the calling wallet: db/ledger.ts), taken before the balance is read, so two concurrent reservations can never both spend
 * the same credits (the second reads the balance only after the first committed or rolled back).
 * The lock is its own statement: a statement's snapshot is taken when it starts, so a balance read
 * in the statement that waited for the lock could miss the reservation it waited for.
 *
 * The lock lasts until the transaction that reserved ends. Called on a request's transaction, it is
 * that transaction; called on a session without one (a route declared `transaction: false`), the
 * reservation runs in a short transaction of its own and commits before the work, so a slow
 * provider call does not hold up the organization's other reservations.
 */
import { sql } from 'drizzle-orm';
import { commitWithNextStatement, type Queryable, type Transaction } from '../../db/client';
import { ledgerBalanceSql, ledgerLockSql } from '../../db/ledger';
import { creditLedger } from '../../db/schema';
import type { TenantContext } from '../../db/tenant';
import { PaymentRequired } from '../../core/errors';
import { type CreditFeature, FEATURE_PRICES, priceOf, STARTING_GRANT } from './prices';

export type ReservationState = 'held' | 'settled' | 'refunded';

export interface Reservation {
  id: number;
  feature: CreditFeature;
  /** The credits held (the feature's price when reserved). */
  price: number;
  state: ReservationState;
  /** true when the key had been reserved before: this is that reservation, nothing was charged now. */
  replayed: boolean;
  /** The balance after the reservation (for a replay: the current balance). */
  balance: number;
}

export type CreditsContext = Pick<TenantContext, 'db' | 'orgId' | 'userId'>;

function isTransaction(db: Queryable): db is Transaction {
  return 'rollback' in db;
}

/**
 * `work` on the caller's transaction, or in a short one of its own; `commitWithLast` then sends
 * that transaction's COMMIT with the statement that follows (its last: client.ts
 * commitWithNextStatement), and does nothing on the caller's transaction, which goes on.
 */
async function inTransaction<T>(
  ctx: CreditsContext,
  work: (tx: Transaction, commitWithLast: () => void) => Promise<T>,
): Promise<T> {
  const db = ctx.db;
  if (isTransaction(db)) return work(db, () => undefined);
  return db.transaction((tx) => work(tx, () => commitWithNextStatement(db)));
}

const lockCredits = (orgId: number) => ledgerLockSql(`credits:${orgId}`);
const balanceOf = (orgId: number) =>
  ledgerBalanceSql(creditLedger, creditLedger.amount, creditLedger.organizationId, orgId);

/**
 * Holds the feature's price (times `quantity`) from the organization's balance, under the caller's
 * idempotency key. Reserving a key again returns the first reservation (`replayed`, whatever state
 * it reached) and charges nothing. Throws 402 `insufficient_credits`, with the price and the
 * balance in `error.details`, when the balance does not cover it: nothing is written.
 */
export async function reserveCredits(
  ctx: CreditsContext,
  request: { feature: CreditFeature; idempotencyKey: string; quantity?: number },
): Promise<Reservation> {
  const price = priceOf(request.feature) * (request.quantity ?? 1);
  const row = await inTransaction(ctx, async (tx, commitWithLast) => {
    await tx.execute(lockCredits(ctx.orgId));
    // The reservation is its transaction's last statement: a transaction of its own commits with it.
    commitWithLast();
    const result = await tx.execute<{
      balance: string;
      new_id: string | null;
      existing_id: string | null;
      existing_amount: number | null;
      existing_feature: string | null;
      existing_state: ReservationState | null;
    }>(sql`
      with existing as (
        select r.id, r.amount, r.feature,
          coalesce((select c.kind from ${creditLedger} c where c.reservation_id = r.id limit 1), 'held') as state
        from ${creditLedger} r
        where r.organization_id = ${ctx.orgId} and r.kind = 'reservation' and r.idempotency_key = ${request.idempotencyKey}
      ),
      balance as (select ${balanceOf(ctx.orgId)} as balance),
      inserted as (
        insert into ${creditLedger} (organization_id, kind, amount, feature, idempotency_key, created_by)
        select ${ctx.orgId}, 'reservation', ${-price}, ${request.feature}, ${request.idempotencyKey}, ${ctx.userId}
        from balance
        where balance.balance >= ${price} and not exists (select 1 from existing)
        returning id
      )
      select balance.balance, (select id from inserted) as new_id, e.id as existing_id, e.amount as existing_amount,
        e.feature as existing_feature,
        case e.state when 'settlement' then 'settled' when 'refund' then 'refunded' else e.state end as existing_state
      from balance left join existing e on true`);
    return result.rows[0];
  });
  const balance = Number(row.balance);
  if (row.existing_id !== null) {
    return {
      id: Number(row.existing_id),
      feature: row.existing_feature as CreditFeature,
      price: -Number(row.existing_amount),
      state: row.existing_state ?? 'held',
      replayed: true,
      balance,
    };
  }
  if (row.new_id === null) throw insufficientCredits(request.feature, price, balance);
  return {
    id: Number(row.new_id),
    feature: request.feature,
    price,
    state: 'held',
    replayed: false,
    balance: balance - price,
  };
}

export function insufficientCredits(feature: CreditFeature, price: number, balance: number): PaymentRequired {
  return new PaymentRequired(
    `Not enough credits: ${FEATURE_PRICES[feature].name} costs ${price} credits and the balance is ${balance}`,
    'insufficient_credits',
    { feature, price, balance },
  );
}

/** Closes a reservation as spent. Once only: settling a closed reservation changes nothing (returns false). */
export function settleCredits(ctx: CreditsContext, reservationId: number): Promise<boolean> {
  return closeReservation(ctx, reservationId, 'settlement', null);
}

/** Closes a reservation by giving its credits back (the work failed). Once only, like settle. */
export function refundCredits(
  ctx: CreditsContext,
  reservationId: number,
  reason: string | null = null,
): Promise<boolean> {
  return closeReservation(ctx, reservationId, 'refund', reason);
}

async function closeReservation(
  ctx: CreditsContext,
  reservationId: number,
  kind: 'settlement' | 'refund',
  note: string | null,
): Promise<boolean> {
  const amount = kind === 'refund' ? sql`-r.amount` : sql`0`;
  // A refund only adds credits, so closing needs no lock; the unique closing index makes it once.
  const result = await ctx.db.execute<{ id: string }>(sql`
    insert into ${creditLedger} (organization_id, kind, amount, feature, reservation_id, note, created_by)
    select r.organization_id, ${kind}, ${amount}, r.feature, r.id, ${note}, ${ctx.userId}
    from ${creditLedger} r
    where r.organization_id = ${ctx.orgId} and r.id = ${reservationId} and r.kind = 'reservation'
    on conflict (reservation_id) where kind in ('settlement', 'refund') do nothing
    returning id`);
  return result.rows.length > 0;
}

/** Adds credits (signup's starting grant, the operator's grant). Returns the new balance. */
export async function grantCredits(
  ctx: CreditsContext,
  grant: { amount: number; note: string },
): Promise<{ id: number; balance: number }> {
  const result = await ctx.db.execute<{ id: string; balance: string }>(sql`
    with inserted as (
      insert into ${creditLedger} (organization_id, kind, amount, note, created_by)
      values (${ctx.orgId}, 'grant', ${grant.amount}, ${grant.note}, ${ctx.userId})
      returning id, amount
    )
    select (select id from inserted) as id,
      ${balanceOf(ctx.orgId)} + (select amount from inserted) as balance`);
  return { id: Number(result.rows[0].id), balance: Number(result.rows[0].balance) };
}

/** The organization's balance: the sum of its ledger. */
export async function creditBalance(ctx: CreditsContext): Promise<number> {
  const result = await ctx.db.execute<{ balance: string }>(sql`select ${balanceOf(ctx.orgId)} as balance`);
  return Number(result.rows[0].balance);
}

/** Signup's starting grant, in the signup transaction (before the organization has a user). */
export async function grantStartingCredits(db: Queryable, organizationId: number): Promise<void> {
  await db
    .insert(creditLedger)
    .values({ organizationId, kind: 'grant', amount: STARTING_GRANT, note: 'starting grant' });
}
