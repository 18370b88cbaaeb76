/**
 * Monthly number rentals (the cron trigger's run): each number bought before this month is
 * charged its monthly price once per billing month, whatever the number of runs (in sequence or
 * at once); a number the wallet does not cover is suspended, not paid for with a negative
 * balance, and not used for calls; after a top-up the next run charges it and it is active again.
 */
import { env } from 'cloudflare:workers';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client';
import { phoneNumbers, voiceLedger } from '../src/db/schema';
import { readConfig } from '../src/env';
import { billingMonthOf, chargeNumberRentals, rentalOrder } from '../src/modules/voice/rentals';
import { call, signupOrganization, type SignedUp } from './helpers/api';
import { inOrganization } from './helpers/leads';
import { requestRecordingJobs } from './helpers/mail';
import { buyLocalNumber, leadWithPhone, topUp } from './helpers/voice';

const handle = openDatabase(readConfig(env));
afterAll(() => handle.close());

let org: SignedUp;
let first: number;
let second: number;

const wallet = async () => (await call('GET', '/api/voice/wallet', { token: org.token })).body.data;
const numbers = async () =>
  Object.fromEntries(
    (await call('GET', '/api/voice/my-numbers', { token: org.token })).body.data.map(
      (row: { id: number; status: string; failure_reason: string | null }) => [row.id, row],
    ),
  );
const renewals = () =>
  inOrganization(org.orgId, (tx) =>
    tx
      .select({ number: voiceLedger.phoneNumberId, month: voiceLedger.billingMonth, cents: voiceLedger.amountCents })
      .from(voiceLedger)
      .where(and(eq(voiceLedger.organizationId, org.orgId), eq(voiceLedger.kind, 'number_renewal')))
      .orderBy(voiceLedger.id),
  );

const now = new Date();
const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 3));

beforeAll(async () => {
  org = await signupOrganization('Rentals');
  await topUp(org, 3.8);
  first = await buyLocalNumber(org, '+14155550170');
  second = await buyLocalNumber(org, '+14155550171');
  // Bought last month: this month's rental is due.
  await inOrganization(org.orgId, (tx) =>
    tx
      .update(phoneNumbers)
      .set({ createdAt: sql`date_trunc('month', now()) - interval '3 days'` })
      .where(and(eq(phoneNumbers.organizationId, org.orgId), inArray(phoneNumbers.id, [first, second]))),
  );
});

describe('the monthly rental run', () => {
  it('charges what the wallet covers once per month, suspends the rest, never below zero', async () => {
    expect((await wallet()).balance).toBe(1.5);
    // A number bought this month is paid for the month already.
    const fresh = await buyLocalNumber(org, '+14155550172');
    await topUp(org, 1.15);
    const runs = await Promise.all([
      chargeNumberRentals(handle.db, now, org.orgId),
      chargeNumberRentals(handle.db, now, org.orgId),
    ]);
    expect(runs.reduce((sum, run) => sum + run.charged, 0)).toBe(1);
    expect(runs.reduce((sum, run) => sum + run.suspended, 0)).toBe(1);
    expect(await chargeNumberRentals(handle.db, now, org.orgId)).toMatchObject({ charged: 0, suspended: 0 });
    const month = billingMonthOf(now);
    expect(await renewals()).toEqual([{ number: first, month, cents: -115 }]);
    expect((await wallet()).balance).toBe(0.35);
    const listed = await numbers();
    expect(listed[first].status).toBe('active');
    expect(listed[fresh].status).toBe('active');
    expect(listed[second]).toMatchObject({
      status: 'suspended',
      failure_reason: expect.stringContaining(`rental of ${month.slice(0, 7)} is unpaid`),
    });
  });

  it('a suspended number is not used for calls; after a top-up the next run charges it and it is active again', async () => {
    const assigned = await call('POST', '/api/voice/assign-number', {
      token: org.token,
      body: { number_id: second, user_id: org.userId },
    });
    expect(assigned.status).toBe(200);
    const leadId = await leadWithPhone(org, '+14155550142');
    await topUp(org, 1);
    // The call's job is not run: its hold stays, nothing else moves the wallet.
    const placed = await requestRecordingJobs('POST', '/api/call/agent/initiate', {
      token: org.token,
      body: { system_prompt: 'Hi', lead_id: leadId },
    });
    // Not the caller's own (suspended) number: the organization's first live one.
    expect(placed.status, placed.text).toBe(202);
    expect(placed.body.data.from_number).toBe('+14155550170');

    await topUp(org, 1);
    const before = (await wallet()).balance;
    expect(await chargeNumberRentals(handle.db, now, org.orgId)).toMatchObject({ charged: 1, reactivated: 1 });
    expect((await numbers())[second]).toMatchObject({ status: 'active', failure_reason: null });
    expect(Math.round((before - (await wallet()).balance) * 100)).toBe(115);

    // Next month: every number is due again, charged in id order while the balance lasts.
    const next = await chargeNumberRentals(handle.db, nextMonth, org.orgId);
    expect(next.month).toBe(billingMonthOf(nextMonth));
    expect((await wallet()).balance).toBeGreaterThanOrEqual(0);
    expect(next.charged + next.suspended).toBe(3);
    expect((await renewals()).filter((row) => row.month === next.month)).toHaveLength(next.charged);
  });
});

describe('which numbers a short wallet keeps', () => {
  it('first-fit: a number the balance left does not cover is passed over, and a cheaper later one is still charged', async () => {
    const owner = await signupOrganization('Rentals first-fit');
    await topUp(owner, 3.45);
    const ids = [
      await buyLocalNumber(owner, '+14155550180'),
      await buyLocalNumber(owner, '+14155550181'),
      await buyLocalNumber(owner, '+14155550182'),
    ];
    const prices = [200, 200, 100];
    await inOrganization(owner.orgId, async (tx) => {
      for (const [index, id] of ids.entries()) {
        await tx
          .update(phoneNumbers)
          .set({ createdAt: sql`date_trunc('month', now()) - interval '3 days'`, monthlyPriceCents: prices[index] })
          .where(and(eq(phoneNumbers.organizationId, owner.orgId), eq(phoneNumbers.id, id)));
      }
    });
    await topUp(owner, 3);
    expect(await chargeNumberRentals(handle.db, now, owner.orgId)).toMatchObject({ charged: 2, suspended: 1 });
    const listed = Object.fromEntries(
      (await call('GET', '/api/voice/my-numbers', { token: owner.token })).body.data.map(
        (row: { id: number; status: string }) => [row.id, row.status],
      ),
    );
    expect(listed).toEqual({ [ids[0]]: 'active', [ids[1]]: 'suspended', [ids[2]]: 'active' });
    expect((await call('GET', '/api/voice/wallet', { token: owner.token })).body.data.balance).toBe(0);
  });

  it('orders each organization’s numbers active first, then oldest first, and keeps the organizations’ balances apart', () => {
    const row = (id: number, organization: number, price: number, status: string, balance: number) => ({
      id: String(id),
      organization_id: String(organization),
      monthly_price_cents: price,
      status,
      balance: String(balance),
    });
    expect(
      rentalOrder([
        row(3, 1, 50, 'active', 150),
        row(1, 1, 100, 'active', 150),
        row(2, 1, 100, 'active', 150),
        // A suspended number waits for the numbers in use, even when older.
        row(10, 2, 115, 'suspended', 115),
        row(11, 2, 115, 'active', 115),
        row(20, 3, 115, 'active', 0),
      ]),
    ).toEqual({ paid: [1, 3, 11], unpaid: [2, 10, 20] });
  });
});
