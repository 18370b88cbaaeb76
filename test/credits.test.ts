/**
 * Credits: a ledger per organization (grants, reservations, settlements, refunds as rows; the
 * balance derived), the starting grant, the price table, the operator's grant, and the service other
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
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { buildApp } from '../src/app';
import { call, expectFailure, signupOrganization, type SignedUp } from './helpers/api';
import { memberToken, operatorGrant, operatorKey } from './helpers/operator';
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

describe('POST /api/credits/grant (beyond the spec; the service operator only)', () => {
  it('lets the operator add credits to the organization it names, recorded as a grant row credited to nobody', async () => {
    const owner = await signupOrganization('Credits grant');
    const response = await operatorGrant({ organization_id: owner.orgId, amount: 250, note: 'Top-up' });
    expect(response.status, response.text).toBe(201);
    expect(response.body.data).toMatchObject({
      organization_id: owner.orgId,
      amount: 250,
      balance: STARTING_GRANT + 250,
    });
    expect(await credits(owner)).toMatchObject({ balance: STARTING_GRANT + 250, granted_total: STARTING_GRANT + 250 });
    const [row] = await inOrganization(owner.orgId, (tx) =>
      tx.select().from(creditLedger).where(eq(creditLedger.id, response.body.data.id)),
    );
    expect(row).toMatchObject({ kind: 'grant', amount: 250, note: 'Top-up', createdBy: null });
    // The key works as a bearer credential too.
    const asBearer = await call('POST', '/api/credits/grant', {
      headers: { authorization: `Bearer ${operatorKey()}` },
      body: { organization_id: owner.orgId, amount: 1 },
    });
    expect(asBearer.status, asBearer.text).toBe(201);
    expect(asBearer.body.data.balance).toBe(STARTING_GRANT + 251);
  });

  it('refuses every tenant credential with 403 operator_only, an admin’s included, for its own or another organization', async () => {
    const owner = await signupOrganization('Credits self-grant');
    const other = await signupOrganization('Credits other');
    const manager = await memberToken(owner, 'manager');
    const rep = await memberToken(owner, 'sales_rep');
    const key = await call('POST', '/api/api-keys/add', { token: owner.token, body: { name: 'grant attempt' } });
    expect(key.status, key.text).toBe(201);
    const attempts = [
      { token: owner.token, body: { organization_id: owner.orgId, amount: 5 } },
      { token: owner.token, body: { organization_id: other.orgId, amount: 5 } },
      { token: manager, body: { organization_id: owner.orgId, amount: 5 } },
      { token: rep, body: { organization_id: owner.orgId, amount: 5 } },
      { apiKey: key.body.data.key as string, body: { organization_id: owner.orgId, amount: 5 } },
      { headers: { 'x-operator-key': `${operatorKey()}x` }, body: { organization_id: owner.orgId, amount: 5 } },
    ];
    for (const attempt of attempts) {
      const refused = await call('POST', '/api/credits/grant', attempt);
      expectFailure(refused, 403, 'forbidden');
      expect(refused.body.error.code).toBe('operator_only');
    }
    // No credential at all: 401.
    const anonymous = await call('POST', '/api/credits/grant', { body: { organization_id: owner.orgId, amount: 5 } });
    expectFailure(anonymous, 401, 'unauthorized');
    expect(anonymous.body.error.code).toBe('operator_key_missing');
    expect((await credits(owner)).balance).toBe(STARTING_GRANT);
    expect((await credits(other)).balance).toBe(STARTING_GRANT);
  });

  it('refuses before validating: an admin’s invalid body is 403, not 422', async () => {
    const refused = await call('POST', '/api/credits/grant', { token: org.token, body: {} });
    expectFailure(refused, 403, 'forbidden');
  });

  it('answers 404 for an organization that does not exist', async () => {
    const response = await operatorGrant({ organization_id: 999_999_999, amount: 5 });
    expectFailure(response, 404, 'not_found');
  });

  it('refuses an amount out of range, or a missing organization_id, with 422 naming it', async () => {
    for (const amount of [0, -5, 1.5, 1_000_001, '10']) {
      const response = await operatorGrant({ organization_id: org.orgId, amount });
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code).toBe('amount');
    }
    for (const organization_id of [undefined, 0, -1, 'x', 1.5]) {
      const response = await operatorGrant({ organization_id, amount: 5 });
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code).toBe('organization_id');
    }
  });

  it('answers 404 as if the route did not exist when the deployment has no OPERATOR_API_KEY (or a short one)', async () => {
    for (const configured of [undefined, '', 'too-short']) {
      const ctx = createExecutionContext();
      const request = new Request('http://lead.test/api/credits/grant', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-operator-key': configured || operatorKey() },
        body: JSON.stringify({ organization_id: org.orgId, amount: 5 }),
      });
      const response = await buildApp().fetch(request, { ...env, OPERATOR_API_KEY: configured }, ctx);
      await waitOnExecutionContext(ctx);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ success: false, error: { type: 'not_found' } });
    }
  });
});
