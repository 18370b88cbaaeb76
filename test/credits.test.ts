/**
 * Credits: a ledger per organization (grants, reservations, settlements, refunds as rows; the
 * balance derived), the starting grant, the price table, the admin grant, and the service other
 * modules charge through: reserve before the work, settle or refund, never below zero.
 */
import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, withTenant } from '../src/db/client';
import { creditLedger } from '../src/db/schema';
import { actorContext } from '../src/db/tenant';
import { readConfig } from '../src/env';
import {
  FEATURE_PRICES,
  type Reservation,
  refundCredits,
  reserveCredits,
  settleCredits,
  STARTING_GRANT,
} from '../src/modules/credits';
import { ApiError } from '../src/core/errors';
import { call, expectFailure, signupOrganization, uniqueEmail, type SignedUp } from './helpers/api';
import { asTenant, inOrganization } from './helpers/leads';

let org: SignedUp;

beforeAll(async () => {
  org = await signupOrganization('Credits');
});

async function credits(owner: SignedUp) {
  const response = await call('GET', '/api/credits', { token: owner.token });
  expect(response.status).toBe(200);
  return response.body.data;
}

/** Spends the organization's balance down to `left` with one grant-sized reservation, settled. */
async function spendDownTo(owner: SignedUp, left: number) {
  const { balance } = await credits(owner);
  const rows = await inOrganization(owner.orgId, (tx) =>
    tx
      .insert(creditLedger)
      .values({
        organizationId: owner.orgId,
        kind: 'reservation',
        amount: left - balance,
        feature: 'ai_tools',
        idempotencyKey: `drain:${crypto.randomUUID()}`,
      })
      .returning({ id: creditLedger.id }),
  );
  await asTenant(owner, (ctx) => settleCredits(ctx, rows[0].id));
}

describe('GET /api/credits', () => {
  it('starts a new organization with the documented grant, nothing used', async () => {
    const fresh = await signupOrganization('Credits fresh');
    const data = await credits(fresh);
    expect(data).toMatchObject({
      balance: STARTING_GRANT,
      reserved: 0,
      granted_total: STARTING_GRANT,
      used_this_month: 0,
    });
    expect(STARTING_GRANT).toBe(1000);
    expect(data.usage_by_feature.map((entry: { feature: string }) => entry.feature)).toEqual(
      Object.keys(FEATURE_PRICES),
    );
  });

  it('derives the balance from the ledger: held while reserved, used once settled, given back on refund', async () => {
    const owner = await signupOrganization('Credits flow');
    const draft = await asTenant(owner, (ctx) =>
      reserveCredits(ctx, { feature: 'email_draft', idempotencyKey: 'draft-1' }),
    );
    expect(draft).toMatchObject({ price: 2, state: 'held', replayed: false, balance: STARTING_GRANT - 2 });
    expect(await credits(owner)).toMatchObject({ balance: STARTING_GRANT - 2, reserved: 2, used_this_month: 0 });

    expect(await asTenant(owner, (ctx) => settleCredits(ctx, draft.id))).toBe(true);
    const dashboard = await asTenant(owner, (ctx) =>
      reserveCredits(ctx, { feature: 'dashboard_generate', idempotencyKey: 'dash-1' }),
    );
    expect(await asTenant(owner, (ctx) => refundCredits(ctx, dashboard.id, 'provider failed'))).toBe(true);

    const data = await credits(owner);
    expect(data).toMatchObject({ balance: STARTING_GRANT - 2, reserved: 0, used_this_month: 2 });
    const byFeature = Object.fromEntries(
      data.usage_by_feature.map((entry: { feature: string; credits: number; calls: number }) => [entry.feature, entry]),
    );
    expect(byFeature.email_draft).toMatchObject({ credits: 2, calls: 1 });
    expect(byFeature.dashboard_generate).toMatchObject({ credits: 0, calls: 0 });
    const kinds = await inOrganization(owner.orgId, (tx) =>
      tx
        .select({ kind: creditLedger.kind, amount: creditLedger.amount })
        .from(creditLedger)
        .where(eq(creditLedger.organizationId, owner.orgId)),
    );
    expect(kinds.map((row) => `${row.kind}:${row.amount}`).sort()).toEqual(
      ['grant:1000', 'refund:5', 'reservation:-2', 'reservation:-5', 'settlement:0'].sort(),
    );
  });

  it('closes a reservation once: settle after refund, or twice, changes nothing', async () => {
    const owner = await signupOrganization('Credits once');
    const held = await asTenant(owner, (ctx) =>
      reserveCredits(ctx, { feature: 'meeting_summary', idempotencyKey: 'm-1' }),
    );
    expect(await asTenant(owner, (ctx) => refundCredits(ctx, held.id))).toBe(true);
    expect(await asTenant(owner, (ctx) => refundCredits(ctx, held.id))).toBe(false);
    expect(await asTenant(owner, (ctx) => settleCredits(ctx, held.id))).toBe(false);
    expect((await credits(owner)).balance).toBe(STARTING_GRANT);
  });

  it('reserving a key again returns the first reservation and charges nothing (a redelivered job item)', async () => {
    const owner = await signupOrganization('Credits replay');
    const first = await asTenant(owner, (ctx) =>
      reserveCredits(ctx, { feature: 'email_draft', idempotencyKey: 'job:1:lead:9' }),
    );
    await asTenant(owner, (ctx) => settleCredits(ctx, first.id));
    const again = await asTenant(owner, (ctx) =>
      reserveCredits(ctx, { feature: 'email_draft', idempotencyKey: 'job:1:lead:9' }),
    );
    expect(again).toMatchObject({ id: first.id, replayed: true, state: 'settled', price: 2 });
    expect((await credits(owner)).balance).toBe(STARTING_GRANT - 2);
  });

  it('refuses a reservation the balance does not cover with 402 insufficient_credits, price and balance in details', async () => {
    const owner = await signupOrganization('Credits short');
    await spendDownTo(owner, 4);
    const refusal = await asTenant(owner, (ctx) =>
      reserveCredits(ctx, { feature: 'dashboard_generate', idempotencyKey: 'dash-short' }).then(
        () => null,
        (error: unknown) => error,
      ),
    );
    expect(refusal).toBeInstanceOf(ApiError);
    expect(refusal).toMatchObject({
      status: 402,
      type: 'payment_required',
      code: 'insufficient_credits',
      details: { feature: 'dashboard_generate', price: 5, balance: 4 },
    });
    expect((await credits(owner)).balance).toBe(4);
  });

  it('never goes below zero under concurrent reservations: a balance of 7 pays 3 of 10 parallel drafts', async () => {
    const owner = await signupOrganization('Credits race');
    await spendDownTo(owner, 7);
    // Ten connections, each reserving in its own transaction, all at once.
    const handles = Array.from({ length: 10 }, () => openDatabase(readConfig(env)));
    const actor = actorContext({ kind: 'user', userId: owner.userId, role: 'admin' });
    try {
      const outcomes = await Promise.allSettled(
        handles.map((handle, index) =>
          withTenant(handle.db, owner.orgId, (tx) =>
            reserveCredits(
              { db: tx, orgId: owner.orgId, ...actor },
              {
                feature: 'email_draft',
                idempotencyKey: `race-${index}`,
              },
            ),
          ),
        ),
      );
      const paid = outcomes.filter(
        (outcome): outcome is PromiseFulfilledResult<Reservation> => outcome.status === 'fulfilled',
      );
      const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
      expect(paid).toHaveLength(3);
      expect(refused).toHaveLength(7);
      for (const outcome of refused) expect((outcome as PromiseRejectedResult).reason).toMatchObject({ status: 402 });
    } finally {
      await Promise.all(handles.map((handle) => handle.close()));
    }
    expect(await credits(owner)).toMatchObject({ balance: 1, reserved: 6 });
  });

  it('shows only the caller’s organization', async () => {
    const other = await signupOrganization('Credits other');
    await asTenant(other, (ctx) => reserveCredits(ctx, { feature: 'dashboard_generate', idempotencyKey: 'other' }));
    expect((await credits(org)).balance).toBe(STARTING_GRANT);
  });
});

describe('GET /api/credits/ai-features', () => {
  it('lists every feature with its price from the one table', async () => {
    const response = await call('GET', '/api/credits/ai-features', { token: org.token });
    expect(response.status).toBe(200);
    expect(response.body.total).toBe(Object.keys(FEATURE_PRICES).length);
    expect(response.body.data).toEqual(Object.values(FEATURE_PRICES));
    expect(response.body.data.find((row: { feature: string }) => row.feature === 'email_draft').price).toBe(2);
  });

  it('needs a bearer token', async () => {
    expectFailure(await call('GET', '/api/credits/ai-features'), 401, 'unauthorized');
  });
});

describe('POST /api/credits/grant (beyond the spec)', () => {
  it('lets an admin add credits, recorded as a grant row', async () => {
    const owner = await signupOrganization('Credits grant');
    const response = await call('POST', '/api/credits/grant', {
      token: owner.token,
      body: { amount: 250, note: 'Top-up' },
    });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({ amount: 250, balance: STARTING_GRANT + 250 });
    expect(await credits(owner)).toMatchObject({ balance: STARTING_GRANT + 250, granted_total: STARTING_GRANT + 250 });
  });

  it('refuses a sales rep with 403 and grants nothing', async () => {
    const owner = await signupOrganization('Credits rep');
    const roles = await call('GET', '/api/role/list', { token: owner.token });
    const repRole = roles.body.data.find((role: { name: string }) => role.name === 'sales_rep').id;
    const email = uniqueEmail('rep');
    const added = await call('POST', '/api/user/add', {
      token: owner.token,
      body: { first_name: 'Rep', email, phone_no: '+15550001', password: 'password123', role_id: repRole },
    });
    expect(added.status).toBe(201);
    const login = await call('POST', '/api/auth/login', { body: { email, password: 'password123' } });
    const refused = await call('POST', '/api/credits/grant', { token: login.body.access_token, body: { amount: 5 } });
    expectFailure(refused, 403, 'forbidden');
    expect((await credits(owner)).balance).toBe(STARTING_GRANT);
  });

  it('refuses an amount out of range with 422 naming it', async () => {
    for (const amount of [0, -5, 1.5, 1_000_001, '10']) {
      const response = await call('POST', '/api/credits/grant', { token: org.token, body: { amount } });
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code).toBe('amount');
    }
  });
});
