/**
 * Dashboard analytics with hand-computed numbers. Records are inserted with fixed dates in June
 * 2026 (the period) and May 2026 (the previous period); overview and stats are asked for that
 * explicit period, lead aging and top accounts are computed at a fixed NOW through their service
 * functions (the routes pass the request's clock). Default lookups: statuses 1 New, 2 Contacted,
 * 3 Qualified, 4 Unqualified, 5 Converted, 6 Lost; sources 1 Website, 2 Referral.
 */
import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Transaction } from '../src/db/client';
import { companies, deals, intentSignals, leads, meetings } from '../src/db/schema';
import { leadAging } from '../src/modules/analytics/lead-aging';
import { topAccounts } from '../src/modules/analytics/top-accounts';
import { createCompany } from './helpers/accounts';
import { call, expectFailure, signupOrganization, type SignedUp } from './helpers/api';
import { defaultPipeline, type StageRow } from './helpers/deals';
import { asTenant, inOrganization } from './helpers/leads';
import { statementsOf } from './helpers/statements';

const NOW = new Date('2026-07-01T12:00:00Z');
const JUNE = { start_date: '2026-06-01', end_date: '2026-06-30' };
const at = (instant: string) => new Date(instant.length === 10 ? `${instant}T00:00:00Z` : instant);

interface Seeded {
  leads: Record<string, number>;
  companies: Record<string, number>;
  pipelineId: number;
}

/** Inserts leads, deals, meetings and signals with fixed dates; returns their ids by name. */
async function seed(org: SignedUp, scale: 'full' | 'small'): Promise<Seeded> {
  const pipeline = await defaultPipeline(org);
  const stage = (name: string) => (pipeline.stages.find((row) => row.name === name) as StageRow).id;
  const companyIds: Record<string, number> = {};
  for (const name of scale === 'full' ? ['C1', 'C2', 'C3', 'C4', 'C5'] : ['C1']) {
    companyIds[name] = await createCompany(org, { company_name: `${name} ${crypto.randomUUID().slice(0, 6)}` });
  }
  // name, created, status, source, company, last activity, deleted
  const leadRows: [string, string, number, number | null, string | null, string | null, boolean][] =
    scale === 'full'
      ? [
          ['L1', '2026-06-02', 1, 1, 'C1', '2026-06-28T12:00:00Z', false],
          ['L2', '2026-06-10', 5, 1, null, null, false],
          ['L3', '2026-06-20', 2, 2, null, null, false],
          ['L4', '2026-06-30T23:00:00Z', 1, null, 'C2', null, false],
          ['L5', '2026-06-15', 1, 1, 'C1', null, true],
          ['P1', '2026-05-05', 1, 2, 'C3', '2026-05-01T12:00:00Z', false],
          ['P2', '2026-05-31T23:59:00Z', 5, 2, null, null, false],
          ['O1', '2026-04-01', 6, 1, null, null, false],
          ['O2', '2026-07-01', 1, 1, 'C5', null, false],
          ['O3', '2026-01-01', 3, 1, null, '2026-03-01T12:00:00Z', false],
        ]
      : [['X1', '2026-06-05', 1, 1, 'C1', null, false]];
  return inOrganization(org.orgId, async (tx: Transaction) => {
    const ids: Record<string, number> = {};
    for (const [name, created, status, source, company, activity, deleted] of leadRows) {
      const [row] = await tx
        .insert(leads)
        .values({
          organizationId: org.orgId,
          firstName: name,
          lastName: 'Analytics',
          status,
          leadSource: source,
          companyId: company ? companyIds[company] : null,
          createdAt: at(created),
          lastActivityAt: activity ? at(activity) : null,
          deletedAt: deleted ? at('2026-06-16') : null,
        })
        .returning({ id: leads.id });
      ids[name] = row.id;
    }
    const deal = (lead: string, stageName: string, value: number, created: string, closed: string | null) => ({
      organizationId: org.orgId,
      leadId: ids[lead],
      pipelineId: pipeline.id,
      stageId: stage(stageName),
      title: `Deal of ${lead}`,
      value,
      expectedCloseDate: '2026-07-31',
      outcome: stageName === 'Won' ? 'won' : stageName === 'Lost' ? 'lost' : 'open',
      createdAt: at(created),
      stageEnteredAt: at(created),
      closedAt: closed ? at(closed) : null,
    });
    const meeting = (start: string, status: number, link: { leadId?: number; companyId?: number }) => ({
      organizationId: org.orgId,
      userId: org.userId,
      title: 'Call',
      startTime: at(start),
      endTime: new Date(at(start).getTime() + 1_800_000),
      status,
      ...link,
    });
    const signal = (lead: string, occurred: string) => ({
      organizationId: org.orgId,
      leadId: ids[lead],
      signalType: 'pricing_page_visit',
      occurredAt: at(occurred),
    });
    if (scale === 'small') {
      await tx.insert(deals).values([deal('X1', 'Won', 999, '2026-06-05', '2026-06-06')]);
      await tx.insert(meetings).values([meeting('2026-06-07T10:00:00Z', 3, { leadId: ids.X1 })]);
      await tx.insert(intentSignals).values([signal('X1', '2026-06-25T10:00:00Z')]);
      return { leads: ids, companies: companyIds, pipelineId: pipeline.id };
    }
    await tx.insert(deals).values([
      deal('L3', 'Won', 10000, '2026-06-20', '2026-06-25'), // won now, 5 days after L3's creation
      deal('O1', 'Won', 4000, '2026-04-10', '2026-05-20'), // won before, 49 days after O1's creation
      deal('P1', 'Lost', 3000, '2026-05-20', '2026-06-12'), // lost now; open at the previous period's end
      deal('L1', 'Proposal', 7000, '2026-05-10', null), // open at both ends
      deal('L4', 'Prospecting', 2000, '2026-06-15', null), // open at the period's end only
      deal('P1', 'Lost', 1500, '2026-05-06', '2026-05-07'), // lost before
      deal('O2', 'Proposal', 50000, '2026-07-02', null), // after the period; its company is deleted
    ]);
    await tx.insert(meetings).values([
      meeting('2026-06-05T10:00:00Z', 3, { companyId: companyIds.C2 }),
      meeting('2026-06-29T10:00:00Z', 3, { leadId: ids.L4 }),
      meeting('2026-06-10T10:00:00Z', 1, { leadId: ids.L1 }),
      meeting('2026-06-12T10:00:00Z', 4, { companyId: companyIds.C3 }),
      meeting('2026-05-15T10:00:00Z', 3, { leadId: ids.P1 }),
      meeting('2026-06-11T10:00:00Z', 1, { leadId: ids.L5 }), // a deleted lead's: not C1's
    ]);
    await tx.insert(intentSignals).values([
      signal('L1', '2026-06-20T10:00:00Z'),
      signal('L1', '2026-05-01T10:00:00Z'),
      ...[1, 2, 3, 4].map((day) => signal('P1', `2026-06-2${day}T10:00:00Z`)),
      signal('L5', '2026-06-22T10:00:00Z'), // a deleted lead's: not C1's
    ]);
    await tx
      .update(companies)
      .set({ deletedAt: at('2026-06-01') })
      .where(eq(companies.id, companyIds.C5));
    return { leads: ids, companies: companyIds, pipelineId: pipeline.id };
  });
}

describe('dashboard analytics', () => {
  let owner: SignedUp;
  let other: SignedUp;
  let seeded: Seeded;
  let otherSeeded: Seeded;

  beforeAll(async () => {
    [owner, other] = await Promise.all([signupOrganization('Analytics'), signupOrganization('Analytics other')]);
    seeded = await seed(owner, 'full');
    otherSeeded = await seed(other, 'small');
  }, 120_000);

  it('overview: each headline number of June 2026 against May 2026, hand-computed', async () => {
    const response = await call('GET', '/api/dashboard/overview', { token: owner.token, query: JUNE });
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toEqual({
      period: { start_date: '2026-06-01', end_date: '2026-06-30', days: 30 },
      previous_period: { start_date: '2026-05-02', end_date: '2026-05-31', days: 30 },
      // L1-L4 (L5 is deleted) against P1, P2.
      leads_created: { value: 4, previous: 2, change: 2, change_percent: 100 },
      // L2 (Converted), L3 (won deal) against P2 (Converted).
      converted_leads: { value: 2, previous: 1, change: 1, change_percent: 100 },
      conversion_rate: { value: 50, previous: 50, change: 0, change_percent: 0 },
      deals_won: { value: 1, previous: 1, change: 0, change_percent: 0 },
      deals_won_value: { value: 10000, previous: 4000, change: 6000, change_percent: 150 },
      deals_lost: { value: 1, previous: 1, change: 0, change_percent: 0 },
      deals_lost_value: { value: 3000, previous: 1500, change: 1500, change_percent: 100 },
      // End of June: 7000 + 2000; end of May: 7000 + 3000 (lost in June).
      pipeline_value: { value: 9000, previous: 10000, change: -1000, change_percent: -10 },
      open_deals: { value: 2, previous: 2, change: 0, change_percent: 0 },
      // Held on 06-05 and 06-29 (the scheduled and the cancelled do not count) against 05-15.
      meetings_held: { value: 2, previous: 1, change: 1, change_percent: 100 },
      // 5 days (L3 06-20 → 06-25) against 49 (O1 04-01 → 05-20): −44, −89.8 %.
      avg_days_to_convert: { value: 5, previous: 49, change: -44, change_percent: -89.8 },
    });
  });

  it('stats: leads by status and source and deals by pipeline, against the previous period', async () => {
    const response = await call('GET', '/api/dashboard/stats', { token: owner.token, query: JUNE });
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toEqual({
      period: { start_date: '2026-06-01', end_date: '2026-06-30', days: 30 },
      previous_period: { start_date: '2026-05-02', end_date: '2026-05-31', days: 30 },
      by_status: [
        { status: 1, name: 'New', value: 2, previous: 1, change: 1, change_percent: 100 },
        { status: 5, name: 'Converted', value: 1, previous: 1, change: 0, change_percent: 0 },
        { status: 2, name: 'Contacted', value: 1, previous: 0, change: 1, change_percent: null },
      ],
      by_source: [
        { source: 1, name: 'Website', value: 2, previous: 0, change: 2, change_percent: null },
        { source: 2, name: 'Referral', value: 1, previous: 2, change: -1, change_percent: -50 },
        { source: null, name: null, value: 1, previous: 0, change: 1, change_percent: null },
      ],
      by_pipeline: [
        {
          pipeline_id: seeded.pipelineId,
          name: expect.any(String),
          won: { value: 1, previous: 1, change: 0, change_percent: 0 },
          won_value: { value: 10000, previous: 4000, change: 6000, change_percent: 150 },
          lost: { value: 1, previous: 1, change: 0, change_percent: 0 },
          lost_value: { value: 3000, previous: 1500, change: 1500, change_percent: 100 },
        },
      ],
    });
  });

  it('another organization’s numbers never include the first’s, nor the first’s the other’s', async () => {
    const theirs = await call('GET', '/api/dashboard/overview', { token: other.token, query: JUNE });
    expect(theirs.status, theirs.text).toBe(200);
    expect(theirs.body.data).toMatchObject({
      leads_created: { value: 1, previous: 0 },
      converted_leads: { value: 1, previous: 0 },
      deals_won_value: { value: 999, previous: 0 },
      pipeline_value: { value: 0, previous: 0 },
      meetings_held: { value: 1, previous: 0 },
      avg_days_to_convert: { value: 1, previous: null, change: null, change_percent: null },
    });
    const stats = await call('GET', '/api/dashboard/stats', { token: other.token, query: JUNE });
    expect(stats.body.data.by_status).toEqual([
      { status: 1, name: 'New', value: 1, previous: 0, change: 1, change_percent: null },
    ]);
    expect(stats.body.data.by_pipeline.map((row: { pipeline_id: number }) => row.pipeline_id)).toEqual([
      otherSeeded.pipelineId,
    ]);
    const aging = await asTenant(other, (ctx) => leadAging(ctx, NOW));
    expect(aging.open_leads).toBe(1);
    const accounts = await asTenant(other, (ctx) => topAccounts(ctx, { rank_by: 'engagement', limit: 10 }, NOW));
    expect(accounts).toEqual([
      {
        id: otherSeeded.companies.C1,
        company_name: expect.any(String),
        open_deals: 0,
        open_pipeline_value: 0,
        intent_signals: 1,
        meetings: 1,
        engagement_score: 4,
      },
    ]);
  });

  it('lead aging: open leads by days since creation and since last activity (NOW = 2026-07-01 12:00)', async () => {
    const aging = await asTenant(owner, (ctx) => leadAging(ctx, NOW));
    // Open: L1 (29 days), L3 (11), L4 (0), O2 (0), P1 (57), O3 (181); L2 and P2 are Converted,
    // O1 Lost, L5 deleted. Activity: L1 3 days ago, P1 61, O3 122; L3, L4, O2 never.
    expect(aging).toEqual({
      as_of: '2026-07-01T12:00:00.000Z',
      open_leads: 6,
      by_created: [
        { bucket: '0-7', min_days: 0, max_days: 7, count: 2 },
        { bucket: '8-30', min_days: 8, max_days: 30, count: 2 },
        { bucket: '31-90', min_days: 31, max_days: 90, count: 1 },
        { bucket: '90+', min_days: 91, max_days: null, count: 1 },
      ],
      by_last_activity: [
        { bucket: '0-7', min_days: 0, max_days: 7, count: 1 },
        { bucket: '8-30', min_days: 8, max_days: 30, count: 0 },
        { bucket: '31-90', min_days: 31, max_days: 90, count: 1 },
        { bucket: '90+', min_days: 91, max_days: null, count: 1 },
        { bucket: 'never', min_days: null, max_days: null, count: 3 },
      ],
    });
    const response = await call('GET', '/api/dashboard/lead-aging', { token: owner.token });
    expect(response.status, response.text).toBe(200);
    // By today's clock (after July 2026) every one of the six is older than 90 days.
    expect(response.body.data.open_leads).toBe(6);
    expect(response.body.data.by_created[3]).toEqual({ bucket: '90+', min_days: 91, max_days: null, count: 6 });
  });

  it('top accounts: by open pipeline value or by engagement (signals + 3 × meetings, last 30 days)', async () => {
    const C = seeded.companies;
    const row = (id: number, open: number, value: number, signals: number, meetingCount: number) => ({
      id,
      company_name: expect.any(String),
      open_deals: open,
      open_pipeline_value: value,
      intent_signals: signals,
      meetings: meetingCount,
      engagement_score: signals + 3 * meetingCount,
    });
    // C1: L1's open 7000, one signal in the window, the scheduled meeting with L1. C2: L4's open
    // 2000, the meeting with C2 and the one with L4. C3: P1's four signals (its meeting was
    // cancelled). C4 has nothing; C5 is deleted. L5 (C1's, deleted) adds nothing.
    const byValue = await asTenant(owner, (ctx) => topAccounts(ctx, { rank_by: 'pipeline_value', limit: 10 }, NOW));
    expect(byValue).toEqual([row(C.C1, 1, 7000, 1, 1), row(C.C2, 1, 2000, 0, 2), row(C.C3, 0, 0, 4, 0)]);
    // Pages no longer than the companies with open deals count engagement for those alone; a longer
    // one is filled by engagement, as above.
    for (const limit of [1, 2, 3]) {
      const page = await asTenant(owner, (ctx) => topAccounts(ctx, { rank_by: 'pipeline_value', limit }, NOW));
      expect(page).toEqual(byValue.slice(0, limit));
    }
    const byEngagement = await asTenant(owner, (ctx) => topAccounts(ctx, { rank_by: 'engagement', limit: 2 }, NOW));
    expect(byEngagement).toEqual([row(C.C2, 1, 2000, 0, 2), row(C.C1, 1, 7000, 1, 1)]);
    // Today the June engagement is out of the window: only the open deals rank.
    const response = await call('GET', '/api/dashboard/top-accounts', { token: owner.token });
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toEqual([row(C.C1, 1, 7000, 0, 0), row(C.C2, 1, 2000, 0, 0)]);
  });

  it('defaults to the last 30 days to today, compared with the 30 before', async () => {
    const before = new Date().toISOString().slice(0, 10);
    const response = await call('GET', '/api/dashboard/overview', { token: owner.token });
    const after = new Date().toISOString().slice(0, 10);
    expect(response.status, response.text).toBe(200);
    // Today by the request's clock (either side of a UTC midnight the call may straddle).
    expect([before, after]).toContain(response.body.data.period.end_date);
    expect(response.body.data.period.days).toBe(30);
    expect(response.body.data.previous_period.days).toBe(30);
  });

  it('refuses a date that does not exist, a start after the end and a range over 366 days, naming the field', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ start_date: '2026-02-30' }, 'start_date'],
      [{ end_date: '2026-6-1' }, 'end_date'],
      [{ start_date: '2026-07-01', end_date: '2026-06-30' }, 'start_date'],
      [{ start_date: '2025-01-01', end_date: '2026-06-30' }, 'end_date'],
    ];
    for (const path of ['/api/dashboard/overview', '/api/dashboard/stats']) {
      for (const [query, field] of cases) {
        const response = await call('GET', path, { token: owner.token, query });
        expectFailure(response, 400, 'bad_request');
        expect(response.body.error.code, `${path} ${JSON.stringify(query)}`).toBe(field);
      }
    }
    const limit = await call('GET', '/api/dashboard/top-accounts', { token: owner.token, query: { limit: '101' } });
    expect(limit.status).toBe(400);
    expect(limit.body.error.code).toBe('limit');
    const rank = await call('GET', '/api/dashboard/top-accounts', { token: owner.token, query: { rank_by: 'value' } });
    expect(rank.status).toBe(400);
    expect(rank.body.error.code).toBe('rank_by');
  });

  it('answers each aggregate in at most two statements (the tenant scope and the aggregate)', async () => {
    for (const [path, query] of [
      ['/api/dashboard/overview', JUNE],
      ['/api/dashboard/stats', JUNE],
      ['/api/dashboard/lead-aging', {}],
      ['/api/dashboard/top-accounts', { rank_by: 'engagement' }],
    ] as const) {
      const counted = await statementsOf(() => call('GET', path, { token: owner.token, query }));
      expect(counted.response.status, counted.response.text).toBe(200);
      expect(counted.statements.length, path).toBeLessThanOrEqual(2);
    }
  });

  it('refuses a caller without a token', async () => {
    expectFailure(await call('GET', '/api/dashboard/overview'), 401, 'unauthorized');
  });
});

describe('top accounts by engagement over the 5-day signal buckets', () => {
  it('counts every signal of the window once, whatever bucket bounds and window ends it falls on', async () => {
    const org = await signupOrganization('Engagement buckets');
    const company = await createCompany(org, { company_name: 'Bucketed' });
    const lead = await call('POST', '/api/lead/add', {
      token: org.token,
      body: { first_name: 'Buck', last_name: 'Eted', company_id: company },
    });
    expect(lead.status, lead.text).toBe(201);
    const leadId = lead.body.data.id as number;
    // Signals on every 7th hour over 50 days, and on the instants around bucket starts.
    const start = Date.parse('2026-05-01T00:00:00Z');
    const instants = Array.from({ length: 50 * 24 }, (_, hour) => start + hour * 7 * 3_600_000 + 1_234);
    for (const day of ['2026-05-30', '2026-06-04', '2026-06-09', '2026-06-14']) {
      const at = Date.parse(`${day}T00:00:00Z`);
      instants.push(at - 1, at, at + 1);
    }
    await inOrganization(org.orgId, (tx) =>
      tx.execute(sql`insert into intent_signals (organization_id, lead_id, signal_type, occurred_at)
        select ${org.orgId}, ${leadId}, 'pricing_page_visit', to_timestamp(ms / 1000.0)
        from unnest(${sql.raw(`array[${instants.join(',')}]::float8[]`)}) as ms`),
    );
    const windowCount = async (now: Date) => {
      const since = new Date(now.getTime() - 30 * 86_400_000);
      const rows = await inOrganization(org.orgId, (tx) =>
        tx.execute<{ n: number }>(sql`select count(*)::int as n from intent_signals
          where occurred_at >= ${since.toISOString()}::timestamptz and occurred_at <= ${now.toISOString()}::timestamptz`),
      );
      return rows.rows[0].n;
    };
    // Window ends mid-bucket, on a bucket start, a millisecond either side of one, and on signals.
    for (const now of [
      '2026-06-13T12:00:00Z',
      '2026-06-14T00:00:00Z',
      '2026-06-13T23:59:59.999Z',
      '2026-06-14T00:00:00.001Z',
      '2026-06-29T00:00:00Z',
      '2026-06-03T00:00:00.001Z',
    ].map((value) => new Date(value))) {
      const [ranked] = await asTenant(org, (ctx) => topAccounts(ctx, { rank_by: 'engagement', limit: 10 }, now));
      const expected = await windowCount(now);
      expect(expected).toBeGreaterThan(0);
      expect({ now: now.toISOString(), signals: ranked?.intent_signals }).toEqual({
        now: now.toISOString(),
        signals: expected,
      });
    }
  });
  it('leaves out meetings nobody came to (no-show) as it leaves out cancelled ones', async () => {
    const org = await signupOrganization('Engagement no-show');
    const [ghosted, met] = await Promise.all([
      createCompany(org, { company_name: 'Never came' }),
      createCompany(org, { company_name: 'Came' }),
    ]);
    const now = new Date('2026-06-29T12:00:00Z');
    const meeting = (companyId: number, status: number) => ({
      organizationId: org.orgId,
      userId: org.userId,
      title: 'Demo',
      startTime: new Date('2026-06-20T10:00:00Z'),
      endTime: new Date('2026-06-20T10:30:00Z'),
      status,
      companyId,
    });
    // Scheduled twice, the prospect never showed up (5), once cancelled (4); the other held one (3).
    await inOrganization(org.orgId, (tx) =>
      tx.insert(meetings).values([meeting(ghosted, 5), meeting(ghosted, 5), meeting(ghosted, 4), meeting(met, 3)]),
    );
    for (const rank_by of ['engagement', 'pipeline_value'] as const) {
      const ranked = await asTenant(org, (ctx) => topAccounts(ctx, { rank_by, limit: 10 }, now));
      expect(ranked.map((row) => [row.id, row.meetings, row.engagement_score])).toEqual([[met, 1, 3]]);
    }
  });

  it('leaves out opens a mail client’s proxy prefetched: no person engaged', async () => {
    const org = await signupOrganization('Engagement prefetch');
    const [quiet, active] = await Promise.all([
      createCompany(org, { company_name: 'Only prefetched' }),
      createCompany(org, { company_name: 'One real visit' }),
    ]);
    const leadOf = async (company: number) => {
      const lead = await call('POST', '/api/lead/add', {
        token: org.token,
        body: { first_name: 'Mail', last_name: 'Reader', company_id: company },
      });
      expect(lead.status, lead.text).toBe(201);
      return lead.body.data.id as number;
    };
    const [quietLead, activeLead] = [await leadOf(quiet), await leadOf(active)];
    const now = new Date('2026-06-29T12:00:00Z');
    // Apple's proxy fetched the pixel of 4 emails (days 2, 8, 13 and 28 before now: whole buckets
    // and both partial ends of the window); the other company's lead visited the pricing page once.
    await inOrganization(org.orgId, (tx) =>
      tx.execute(sql`insert into intent_signals (organization_id, lead_id, signal_type, signal_detail, source, occurred_at)
        select ${org.orgId}, l.lead_id, l.signal_type, l.detail::jsonb, 'tracking_pixel', ${now.toISOString()}::timestamptz - make_interval(days => l.days)
        from (values (${quietLead}::bigint, 'email_opened', '{"adjusted": true, "prefetch": "apple_mpp"}', 2),
          (${quietLead}::bigint, 'email_opened', '{"adjusted": true, "prefetch": "apple_mpp"}', 8),
          (${quietLead}::bigint, 'email_opened', '{"adjusted": true, "prefetch": "apple_mpp"}', 13),
          (${quietLead}::bigint, 'email_opened', '{"adjusted": true, "prefetch": "apple_mpp"}', 28),
          (${activeLead}::bigint, 'pricing_page_visit', '{}', 3)) as l(lead_id, signal_type, detail, days)`),
    );
    for (const rank_by of ['engagement', 'pipeline_value'] as const) {
      const ranked = await asTenant(org, (ctx) => topAccounts(ctx, { rank_by, limit: 10 }, now));
      expect(ranked.map((row) => [row.id, row.intent_signals, row.engagement_score])).toEqual([[active, 1, 1]]);
    }
  });
});
