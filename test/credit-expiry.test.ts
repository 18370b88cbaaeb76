/**
 * Credit reservations nobody closed (a request that died between reserve and settle) expire: the
 * cron sweep refunds every reservation open for more than RESERVATION_TTL_MINUTES, in one
 * statement across organizations. A settled or refunded reservation is never touched, a fresh
 * one is left to its request, a second sweep refunds nothing more, and a settlement arriving
 * after the expiry changes nothing (the reservation is closed once).
 */
import { env } from 'cloudflare:workers';
import { inArray, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, withOwnDatabase, withTenant } from '../src/db/client';
import { creditLedger } from '../src/db/schema';
import { actorContext } from '../src/db/tenant';
import { readConfig } from '../src/env';
import {
  RESERVATION_TTL_MINUTES,
  refundCredits,
  reserveCredits,
  runReservationSweep,
  settleCredits,
  STARTING_GRANT,
} from '../src/modules/credits';
import { call, signupOrganization, type SignedUp } from './helpers/api';
import { asTenant } from './helpers/leads';

let org: SignedUp;

beforeAll(async () => {
  org = await signupOrganization('Credit expiry');
});

async function credits(owner: SignedUp) {
  return (await call('GET', '/api/credits', { token: owner.token })).body.data;
}

const reserve = (owner: SignedUp, feature: 'meeting_summary' | 'ai_tools' | 'email_draft') =>
  asTenant(owner, (ctx) => reserveCredits(ctx, { feature, idempotencyKey: `${feature}:${crypto.randomUUID()}` }));

/** Moves reservations back in time, as if their request had died `minutes` ago. */
async function backdate(ids: number[], minutes: number) {
  await withOwnDatabase(readConfig(env), (db) =>
    db
      .update(creditLedger)
      .set({ createdAt: sql`now() - make_interval(mins => ${minutes})` })
      .where(inArray(creditLedger.id, ids)),
  );
}

/** The rows closing each reservation (settlement or refund), by reservation. */
async function closing(owner: SignedUp, ids: number[]) {
  const rows = await asTenant(owner, (ctx) =>
    ctx.db
      .select({ reservationId: creditLedger.reservationId, kind: creditLedger.kind, note: creditLedger.note })
      .from(creditLedger)
      .where(inArray(creditLedger.reservationId, ids)),
  );
  return ids.map((id) => rows.filter((row) => row.reservationId === id).map(({ kind, note }) => ({ kind, note })));
}

describe('expiring open credit reservations (cron sweep)', () => {
  it('refunds a reservation open past the bound once; settled, refunded and fresh ones are untouched', async () => {
    const stale = await reserve(org, 'meeting_summary'); // 3, the request died
    const settled = await reserve(org, 'ai_tools'); // 1, settled in time
    const refunded = await reserve(org, 'ai_tools'); // 1, refunded in time
    const fresh = await reserve(org, 'email_draft'); // 2, its request is still running
    await asTenant(org, (ctx) => settleCredits(ctx, settled.id));
    await asTenant(org, (ctx) => refundCredits(ctx, refunded.id, 'the provider failed'));
    await backdate([stale.id, settled.id, refunded.id], RESERVATION_TTL_MINUTES + 1);
    expect(await credits(org)).toMatchObject({ balance: STARTING_GRANT - 3 - 1 - 2, reserved: 3 + 2 });

    expect(await runReservationSweep(env)).toBeGreaterThanOrEqual(1);
    expect(await credits(org)).toMatchObject({ balance: STARTING_GRANT - 1 - 2, reserved: 2 });
    const ids = [stale.id, settled.id, refunded.id, fresh.id];
    const afterFirst = await closing(org, ids);
    expect(afterFirst).toEqual([
      [{ kind: 'refund', note: 'expired: not settled within 15 minutes' }],
      [{ kind: 'settlement', note: null }],
      [{ kind: 'refund', note: 'the provider failed' }],
      [],
    ]);

    // Twice: nothing more is refunded.
    await runReservationSweep(env);
    expect(await closing(org, ids)).toEqual(afterFirst);
    expect((await credits(org)).balance).toBe(STARTING_GRANT - 1 - 2);

    // The request that reserved comes back late: its settlement changes nothing, it was closed once.
    expect(await asTenant(org, (ctx) => settleCredits(ctx, stale.id))).toBe(false);
    expect(await closing(org, [stale.id])).toEqual([afterFirst[0]]);
    // The fresh one is still its request's to settle.
    expect(await asTenant(org, (ctx) => settleCredits(ctx, fresh.id))).toBe(true);
    expect(await credits(org)).toMatchObject({ balance: STARTING_GRANT - 1 - 2, reserved: 0, used_this_month: 3 });
  });

  it('a reservation just inside the bound is kept', async () => {
    const owner = await signupOrganization('Credit expiry bound');
    const open = await reserve(owner, 'meeting_summary');
    await backdate([open.id], RESERVATION_TTL_MINUTES - 1);
    await runReservationSweep(env);
    expect(await closing(owner, [open.id])).toEqual([[]]);
    expect(await credits(owner)).toMatchObject({ balance: STARTING_GRANT - 3, reserved: 3 });
  });

  it('a settlement committing while the sweep runs wins: the reservation is settled, never also refunded', async () => {
    const owner = await signupOrganization('Credit expiry race');
    const racing = await reserve(owner, 'meeting_summary');
    await backdate([racing.id], RESERVATION_TTL_MINUTES + 1);
    const actor = actorContext({ kind: 'user', userId: owner.userId, role: 'admin' });
    const settler = openDatabase(readConfig(env));
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let inserted = () => {};
    const settledUncommitted = new Promise<void>((resolve) => {
      inserted = resolve;
    });
    try {
      // The request's settlement is written but not committed when the sweep starts.
      const settling = withTenant(settler.db, owner.orgId, async (tx) => {
        const closed = await settleCredits({ db: tx, orgId: owner.orgId, ...actor }, racing.id);
        inserted();
        await gate;
        return closed;
      });
      await settledUncommitted;
      const sweeping = runReservationSweep(env);
      await new Promise((resolve) => setTimeout(resolve, 300));
      release();
      expect(await settling).toBe(true);
      await sweeping;
    } finally {
      await settler.close();
    }
    expect(await closing(owner, [racing.id])).toEqual([[{ kind: 'settlement', note: null }]]);
    expect(await credits(owner)).toMatchObject({ balance: STARTING_GRANT - 3, reserved: 0, used_this_month: 3 });
  });
});
