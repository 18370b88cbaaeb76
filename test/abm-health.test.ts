/**
 * Account health, the ABM funnel and top-engaged against a hand-seeded organization with
 * hand-computed values. Windows are relative to the request's clock, so every seeded instant
 * sits days away from a window's edge. Formula (health.ts): 5 points per intent signal in 30
 * days (max 40) + 10 per meeting from 90 days ago to 30 days ahead, not cancelled or no-show
 * (max 30) + 30 with a won deal, else 20 with an open deal; hot from 60, warm from 30.
 */
import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { intentSignals, leads, meetings } from '../src/db/schema';
import { call, expectFailure, signupOrganization, type SignedUp } from './helpers/api';
import { createCompany, createContact } from './helpers/accounts';
import { addDeal, defaultPipeline } from './helpers/deals';
import { createLead, inOrganization, softDeleteLead } from './helpers/leads';
import { statementsOf } from './helpers/statements';

const DAY = 86_400_000;
const daysFromNow = (days: number) => new Date(Date.now() + days * DAY);

describe('account health and ABM reports', () => {
  let owner: SignedUp;
  const account: Record<string, number> = {};

  async function target(name: string, body: Record<string, unknown> = {}) {
    const companyId = await createCompany(owner, { company_name: `Health ${name}` });
    const response = await call('POST', '/api/target-accounts', {
      token: owner.token,
      body: { company_id: companyId, ...body },
    });
    if (response.status !== 201) throw new Error(`target: ${response.status} ${response.text}`);
    account[name] = response.body.data.id;
    return companyId;
  }

  async function leadOf(companyId: number | null, name: string) {
    const id = await createLead(owner, name, 'Health');
    if (companyId !== null)
      await inOrganization(owner.orgId, (tx) => tx.update(leads).set({ companyId }).where(eq(leads.id, id)));
    return id;
  }

  const signals = (leadId: number, daysAgo: number[]) =>
    inOrganization(owner.orgId, (tx) =>
      tx.insert(intentSignals).values(
        daysAgo.map((days) => ({
          organizationId: owner.orgId,
          leadId,
          signalType: 'pricing_page_visit',
          occurredAt: daysFromNow(-days),
        })),
      ),
    );

  const meeting = (link: { companyId?: number; contactId?: number; leadId?: number }, days: number, status = 3) =>
    inOrganization(owner.orgId, (tx) =>
      tx.insert(meetings).values({
        organizationId: owner.orgId,
        userId: owner.userId,
        title: 'Account call',
        startTime: daysFromNow(days),
        endTime: new Date(daysFromNow(days).getTime() + 30 * 60_000),
        status,
        ...link,
      }),
    );

  beforeAll(async () => {
    owner = await signupOrganization('ABM health');
    const pipeline = await defaultPipeline(owner);
    const won = pipeline.stages.find((stage) => stage.is_won)?.id as number;

    // One: 3 signals in 30 days on a company lead (+1 at 45 days, outside), 1 on a contact's lead
    // = 4 → 20; one held meeting (a cancelled one does not count) → 10; an open deal → 20. 50 warm.
    const one = await target('One', { tier: 1 });
    const l1 = await leadOf(one, 'One');
    await signals(l1, [5, 10, 20, 45]);
    const l2 = await leadOf(null, 'OneContact');
    await createContact(owner, { company_id: one, lead_id: l2, email: 'one@health.example' });
    await signals(l2, [2]);
    await meeting({ companyId: one }, -10, 3);
    await meeting({ companyId: one }, -5, 4);
    await addDeal(owner, pipeline, { lead_id: l1 });

    // Two: 9 signals → 45 capped at 40; 4 meetings with a contact (3 held, 1 ahead) → 40 capped at 30;
    // a won deal (and an open one) → 30. 100 hot, customer.
    const two = await target('Two', { tier: 2 });
    const l3 = await leadOf(two, 'Two');
    await signals(l3, [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const k2 = await createContact(owner, { company_id: two, email: 'two@health.example' });
    for (const days of [-1, -2, -3]) await meeting({ contactId: k2 }, days, 3);
    await meeting({ contactId: k2 }, 7, 1);
    await addDeal(owner, pipeline, { lead_id: l3, stage_id: won });
    await addDeal(owner, pipeline, { lead_id: l3 });

    // Three: only a deleted lead's signals: nothing counts. 0 cold, targeted.
    const three = await target('Three');
    const l5 = await leadOf(three, 'ThreeGone');
    await signals(l5, [1, 2]);
    await softDeleteLead(owner, l5);

    // Four: a lead's meeting 60 days ago → 10 (100 days ago and 40 ahead are outside). 10 cold, engaged.
    const four = await target('Four');
    const l6 = await leadOf(four, 'Four');
    await meeting({ leadId: l6 }, -60, 3);
    await meeting({ leadId: l6 }, -100, 3);
    await meeting({ leadId: l6 }, 40, 1);

    // Five: archived, one signal → 5 cold; listed, but outside the funnel and top-engaged.
    const five = await target('Five', { status: 'archived' });
    await signals(await leadOf(five, 'Five'), [1]);
  }, 120_000);

  const health = async (name: string) => {
    const response = await call('GET', `/api/target-accounts/${account[name]}`, { token: owner.token });
    expect(response.status, response.text).toBe(200);
    return response.body.data.health;
  };

  it('scores each account from its signals, meetings and deals, with the components', async () => {
    expect(await health('One')).toMatchObject({
      score: 50,
      band: 'warm',
      stage: 'opportunity',
      engaged: true,
      signals: { count: 4, points: 20 },
      meetings: { count: 1, points: 10 },
      deals: { open: 1, won: 0, points: 20 },
    });
    const one = await health('One');
    expect(Date.now() - Date.parse(one.signals.last_at)).toBeGreaterThan(1.9 * DAY);
    expect(Date.now() - Date.parse(one.signals.last_at)).toBeLessThan(2.1 * DAY);
    expect(await health('Two')).toMatchObject({
      score: 100,
      band: 'hot',
      stage: 'customer',
      signals: { count: 9, points: 40 },
      meetings: { count: 4, points: 30 },
      deals: { open: 1, won: 1, points: 30 },
    });
    expect(await health('Three')).toMatchObject({
      score: 0,
      band: 'cold',
      stage: 'targeted',
      engaged: false,
      signals: { count: 0, last_at: null, points: 0 },
      meetings: { count: 0, points: 0 },
      deals: { open: 0, won: 0, points: 0 },
    });
    expect(await health('Four')).toMatchObject({
      score: 10,
      band: 'cold',
      stage: 'engaged',
      engaged: true,
      meetings: { count: 1, points: 10 },
    });
    expect(await health('Five')).toMatchObject({ score: 5, band: 'cold', stage: 'engaged' });
  });

  it('filters the list by health band and sorts it by health score', async () => {
    const ids = async (query: Record<string, string | number>) => {
      const response = await call('GET', '/api/target-accounts', { token: owner.token, query });
      expect(response.status, response.text).toBe(200);
      // The total counts the same accounts as the page (every page here holds them all).
      expect(response.body.total).toBe(response.body.data.length);
      return response.body.data.map((row: { id: number }) => row.id);
    };
    expect(await ids({ health: 'hot' })).toEqual([account.Two]);
    expect(await ids({ health: 'warm' })).toEqual([account.One]);
    expect(await ids({ health: 'cold', order_by: 'id', order_in: 'asc' })).toEqual([
      account.Three,
      account.Four,
      account.Five,
    ]);
    const ranked = [account.Two, account.One, account.Four, account.Five, account.Three];
    expect(await ids({ sort: '-health_score' })).toEqual(ranked);
    expect(await ids({ sort: 'health_score' })).toEqual([...ranked].reverse());
    expect(await ids({ order_by: 'health_score', order_in: 'desc' })).toEqual(ranked);
    // Walking by cursor over the health sort visits each account once.
    const first = await call('GET', '/api/target-accounts', {
      token: owner.token,
      query: { sort: '-health_score', limit: 2 },
    });
    const second = await call('GET', '/api/target-accounts', {
      token: owner.token,
      query: { sort: '-health_score', limit: 2, cursor: first.body.next_cursor },
    });
    expect([...first.body.data, ...second.body.data].map((row: { id: number }) => row.id)).toEqual(ranked.slice(0, 4));
  });

  it('counts the list’s total without computing health, unless it filters by the band', async () => {
    const totalOf = async (query: Record<string, string>) => {
      const { response, statements } = await statementsOf(() =>
        call('GET', '/api/target-accounts', { token: owner.token, query: { limit: '1', ...query } }),
      );
      expect(response.status, response.text).toBe(200);
      const counted = /select count\(\*\) from \((.*)\) as bounded/s.exec(statements.join('\n'))?.[1];
      expect(counted, 'the bounded total').toBeDefined();
      return { total: response.body.total, countReadsSignals: (counted as string).includes('intent_signals') };
    };
    expect(await totalOf({})).toEqual({ total: 5, countReadsSignals: false });
    expect(await totalOf({ search: 'Health T' })).toEqual({ total: 2, countReadsSignals: false });
    expect(await totalOf({ health: 'cold' })).toEqual({ total: 3, countReadsSignals: true });
  });

  it('counts the funnel by stage with conversion between stages, archived accounts left out', async () => {
    const { response, statements } = await statementsOf(() =>
      call('GET', '/api/reports/abm/funnel', { token: owner.token }),
    );
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toEqual({
      total: 4,
      stages: [
        { stage: 'targeted', count: 1, reached: 4, conversion_rate: null },
        { stage: 'engaged', count: 1, reached: 3, conversion_rate: 0.75 },
        { stage: 'opportunity', count: 1, reached: 2, conversion_rate: 0.6667 },
        { stage: 'customer', count: 1, reached: 1, conversion_rate: 0.5 },
      ],
    });
    // Scope and auth, then the one statement.
    expect(statements.length).toBeLessThanOrEqual(2);

    // The funnel agrees with each account's health stage; Five, engaged by a signal alone, counts
    // as engaged once it is no longer archived.
    const setFive = (status: string) =>
      inOrganization(owner.orgId, (tx) =>
        tx.execute(sql`update target_accounts set status = ${status} where id = ${account.Five}`),
      );
    await setFive('active');
    try {
      const funnel = await call('GET', '/api/reports/abm/funnel', { token: owner.token });
      const listed = await call('GET', '/api/target-accounts', { token: owner.token, query: { limit: 100 } });
      const stages = listed.body.data.map((row: { health: { stage: string } }) => row.health.stage);
      expect(funnel.body.data.stages.map((stage: { count: number }) => stage.count)).toEqual(
        ['targeted', 'engaged', 'opportunity', 'customer'].map(
          (name) => stages.filter((s: string) => s === name).length,
        ),
      );
      expect(funnel.body.data.stages[1]).toMatchObject({ stage: 'engaged', count: 2 });
    } finally {
      await setFive('archived');
    }

    const empty = await signupOrganization('ABM empty');
    const none = await call('GET', '/api/reports/abm/funnel', { token: empty.token });
    expect(none.body.data.total).toBe(0);
    expect(none.body.data.stages.map((stage: { conversion_rate: number | null }) => stage.conversion_rate)).toEqual([
      null,
      null,
      null,
      null,
    ]);
  });

  it('ranks the most engaged accounts with their reasons', async () => {
    const { response, statements } = await statementsOf(() =>
      call('GET', '/api/reports/abm/top-engaged', { token: owner.token, query: { limit: 2 } }),
    );
    expect(response.status, response.text).toBe(200);
    expect(statements.length).toBeLessThanOrEqual(2);
    expect(response.body.data.map((row: { id: number }) => row.id)).toEqual([account.Two, account.One]);
    expect(response.body.data[0].reasons).toEqual([
      '9 intent signals in the last 30 days (+40)',
      '4 meetings from 90 days ago to 30 days ahead (+30)',
      '1 won deal (+30)',
    ]);
    expect(response.body.data[1].reasons).toEqual([
      '4 intent signals in the last 30 days (+20)',
      '1 meeting from 90 days ago to 30 days ahead (+10)',
      '1 open deal (+20)',
    ]);
    const all = await call('GET', '/api/reports/abm/top-engaged', { token: owner.token });
    expect(all.body.data.map((row: { id: number }) => row.id)).toEqual([
      account.Two,
      account.One,
      account.Four,
      account.Three,
    ]);
    expect(all.body.data[3].reasons).toEqual([]);
    for (const limit of ['0', '101', 'many']) {
      const refused = await call('GET', '/api/reports/abm/top-engaged', { token: owner.token, query: { limit } });
      expectFailure(refused, 400, 'bad_request');
      expect(refused.body.error.code).toBe('limit');
    }
  });

  it('counts only the organization’s own accounts and signals', async () => {
    const other = await signupOrganization('ABM stranger');
    const company = await createCompany(other, { company_name: 'Health One' });
    const made = await call('POST', '/api/target-accounts', { token: other.token, body: { company_id: company } });
    expect(made.status, made.text).toBe(201);
    const lead = await createLead(other, 'Stranger', 'Health');
    await inOrganization(other.orgId, (tx) => tx.update(leads).set({ companyId: company }).where(eq(leads.id, lead)));
    await inOrganization(other.orgId, (tx) =>
      tx.insert(intentSignals).values({ organizationId: other.orgId, leadId: lead, signalType: 'demo_request' }),
    );
    const theirs = await call('GET', '/api/reports/abm/top-engaged', { token: other.token });
    expect(
      theirs.body.data.map((row: { id: number; health: { score: number } }) => [row.id, row.health.score]),
    ).toEqual([[made.body.data.id, 5]]);
    expect(await health('One')).toMatchObject({ score: 50, signals: { count: 4 } });
    const funnel = await call('GET', '/api/reports/abm/funnel', { token: owner.token });
    expect(funnel.body.data.total).toBe(4);
  });

  it('leaves out opens a mail client’s proxy prefetched: an account only emailed is not engaged', async () => {
    // The account's stakeholders received a bulk email; Apple's proxy fetched every pixel on delivery.
    const six = await target('Six');
    const l7 = await leadOf(six, 'Six');
    await inOrganization(owner.orgId, (tx) =>
      tx.insert(intentSignals).values(
        [1, 2, 3].map((days) => ({
          organizationId: owner.orgId,
          leadId: l7,
          signalType: 'email_opened',
          signalDetail: { adjusted: true, prefetch: 'apple_mpp' },
          source: 'tracking_pixel',
          occurredAt: daysFromNow(-days),
        })),
      ),
    );
    expect(await health('Six')).toMatchObject({
      score: 0,
      band: 'cold',
      stage: 'targeted',
      engaged: false,
      signals: { count: 0, last_at: null, points: 0 },
    });
    // One real open counts as any signal does.
    await inOrganization(owner.orgId, (tx) =>
      tx.insert(intentSignals).values({
        organizationId: owner.orgId,
        leadId: l7,
        signalType: 'email_opened',
        source: 'tracking_pixel',
        occurredAt: daysFromNow(-1),
      }),
    );
    expect(await health('Six')).toMatchObject({ score: 5, stage: 'engaged', signals: { count: 1, points: 5 } });
  });
});
