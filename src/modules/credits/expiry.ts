/**
 * Reservations that nobody closes expire. A paid route reserves in a short transaction of its own
 * and settles after the provider answered; if the Worker dies in between (an eviction, a deploy,
 * a crash) the reservation would hold its credits forever. The cron sweep refunds every
 * reservation still open RESERVATION_TTL_MINUTES after it was made.
 *
 * Why 15 minutes is safe: only routes declared `transaction: false` commit an open reservation,
 * and they close it right after one provider call, which times out after 60 seconds
 * (providers/ai/openai-compatible.ts). Jobs reserve per item inside their chunk's transaction and
 * settle or refund it in that same transaction (and a request with an Idempotency-Key is one
 * transaction): their reservations are never committed open, so they need no longer bound.
 *
 * One statement, set-based, across organizations (it runs as the connection's owner like the
 * outbox and lease sweeps). It never refunds a reservation that was settled or refunded, even
 * concurrently: NOT EXISTS skips those already closed, and the unique closing index
 * (`credit_ledger_closing_key`) makes an insert that races a settlement wait for it and then
 * insert nothing (ON CONFLICT DO NOTHING). Running it twice refunds once.
 *
 * It looks back RESERVATION_SWEEP_LOOKBACK_HOURS only (the partial index
 * `credit_ledger_reservation_age_idx` reads that range), so its cost follows one day of
 * reservations, not the ledger's whole history; the cron runs every minute, so only a sweep
 * outage longer than that leaves a reservation open (refund it with `expireReservations` and a
 * longer lookback).
 */
import { sql } from 'drizzle-orm';
import { log } from '../../core/log';
import { withOwnDatabase, type Queryable } from '../../db/client';
import { creditLedger } from '../../db/schema';
import { readConfig, type Bindings } from '../../env';

export const RESERVATION_TTL_MINUTES = 15;
export const RESERVATION_SWEEP_LOOKBACK_HOURS = 24;

export const EXPIRED_NOTE = `expired: not settled within ${RESERVATION_TTL_MINUTES} minutes`;

/** Refunds every reservation open longer than the bound; answers how many it refunded. */
export async function expireReservations(
  db: Queryable,
  bounds: { ttlMinutes?: number; lookbackHours?: number } = {},
): Promise<number> {
  const ttl = bounds.ttlMinutes ?? RESERVATION_TTL_MINUTES;
  const lookback = bounds.lookbackHours ?? RESERVATION_SWEEP_LOOKBACK_HOURS;
  const result = await db.execute<{ id: string }>(sql`
    insert into ${creditLedger} (organization_id, kind, amount, feature, reservation_id, note)
    select r.organization_id, 'refund', -r.amount, r.feature, r.id, ${EXPIRED_NOTE}
    from ${creditLedger} r
    where r.kind = 'reservation'
      and r.created_at < now() - make_interval(mins => ${ttl})
      and r.created_at >= now() - make_interval(hours => ${lookback})
      and not exists (
        select 1 from ${creditLedger} c where c.reservation_id = r.id and c.kind in ('settlement', 'refund')
      )
    on conflict (reservation_id) where kind in ('settlement', 'refund') do nothing
    returning id`);
  return result.rows.length;
}

/** The cron trigger's entry (wrangler.toml [triggers]): one sweep on its own connection. */
export async function runReservationSweep(env: Bindings): Promise<number> {
  return withOwnDatabase(readConfig(env), async (db) => {
    const refunded = await expireReservations(db);
    if (refunded > 0) log.warn('credits: reservations expired unsettled and were refunded', { refunded });
    return refunded;
  });
}
