/**
 * Forecasting with a fixed clock and hand-computed numbers. The service functions take `now`
 * (the routes pass the request's clock); the seeded deals get explicit stage/creation dates and
 * the snapshots written by their HTTP creation (today's) are cleared, so only fixed-clock
 * snapshots count. Default stages: Prospecting 0.1 (max 14 days), Qualification 0.25 (14),
 * Proposal 0.5 (21), Negotiation 0.75 (14), Won 1, Lost 0.
 */
import { env } from 'cloudflare:workers';
import { and, eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, withOwnDatabase } from '../src/db/client';
import { dealForecasts, deals, forecastSnapshotRuns, intentSignals } from '../src/db/schema';
import type { TenantContext } from '../src/db/tenant';
import { readConfig } from '../src/env';
import { dealsAtRisk, forecastAccuracy } from '../src/modules/forecast/risk';
import { pipelineForecast } from '../src/modules/forecast/pipeline-forecast';
import { forecastWrite, recordForecasts, snapshotAllOpenDeals } from '../src/modules/forecast/snapshots';
import { call, expectFailure, signupOrganization, type SignedUp } from './helpers/api';
import { addDeal, addPipeline, defaultPipeline, type StageRow } from './helpers/deals';
import { asTenant, createLead, inOrganization } from './helpers/leads';

const NOW = new Date('2026-06-15T12:00:00Z');
const NOW2 = new Date('2026-06-21T12:00:00Z');
const NOW3 = new Date('2026-08-10T12:00:00Z');

describe('forecasting', () => {
  let owner: SignedUp;
  let other: SignedUp;
  const ids: Record<string, number> = {};

  const asOwner = <T>(work: (ctx: TenantContext) => Promise<T>) => asTenant(owner, work);
  const snapshotAt = (now: Date) =>
    asOwner((ctx) => recordForecasts(ctx.db, now, sql`d.organization_id = ${owner.orgId}`));

  beforeAll(async () => {
    [owner, other] = await Promise.all([signupOrganization('Forecast'), signupOrganization('Other')]);
    const pipeline = await defaultPipeline(owner);
    const stage = (name: string) => (pipeline.stages.find((row) => row.name === name) as StageRow).id;
    const seed = [
      // name, stage, value, close date, entered stage, created
      ['A', 'Proposal', 10000, '2026-06-30', '2026-06-10', '2026-06-10'],
      ['B', 'Negotiation', 20000, '2026-06-20', '2026-05-01', '2026-04-01'],
      ['C', 'Qualification', 8000, '2026-06-01', '2026-06-05', '2026-06-05'],
      ['D', 'Won', 5000, '2026-06-25', '2026-06-12', '2026-06-01'],
      ['E', 'Lost', 3000, '2026-06-18', '2026-06-12', '2026-06-01'],
      ['F', 'Prospecting', 4000, '2026-07-15', '2026-06-14', '2026-06-14'],
    ] as const;
    for (const [name, stageName, value, close, entered, createdOn] of seed) {
      const deal = await addDeal(owner, pipeline, {
        title: `Deal ${name}`,
        stage_id: stage(stageName),
        value,
        expected_close_date: close,
      });
      ids[name] = deal.id;
      await inOrganization(owner.orgId, (tx) =>
        tx
          .update(deals)
          .set({
            stageEnteredAt: new Date(`${entered}T12:00:00Z`),
            createdAt: new Date(`${createdOn}T12:00:00Z`),
            closedAt:
              stageName === 'Won'
                ? new Date('2026-06-25T10:00:00Z')
                : stageName === 'Lost'
                  ? new Date('2026-06-12T10:00:00Z')
                  : null,
          })
          .where(eq(deals.id, deal.id)),
      );
    }
    await inOrganization(owner.orgId, async (tx) => {
      // Lead A had an intent signal three days before NOW: recent activity.
      const [a] = await tx.select({ leadId: deals.leadId }).from(deals).where(eq(deals.id, ids.A));
      await tx.insert(intentSignals).values({
        organizationId: owner.orgId,
        leadId: a.leadId,
        signalType: 'demo_requested',
        occurredAt: new Date('2026-06-12T09:00:00Z'),
      });
      // Only fixed-clock snapshots from here on.
      await tx.delete(dealForecasts).where(eq(dealForecasts.organizationId, owner.orgId));
    });
    // Another file's cron call (test/outbox.test.ts) would otherwise snapshot these deals today.
    await withOwnDatabase(readConfig(env), (db) =>
      db
        .insert(forecastSnapshotRuns)
        .values({ day: new Date().toISOString().slice(0, 10) })
        .onConflictDoNothing(),
    );
    await snapshotAt(NOW);
  }, 120_000);

  it('records each deal’s probability with its factors (NOW = 2026-06-15)', async () => {
    const forecast = await call('GET', `/api/forecast/deal/${ids.B}`, { token: owner.token });
    expect(forecast.status, forecast.text).toBe(200);
    // B: Negotiation 0.75; 45 days in stage > 14 → stalled ×0.7; created 2026-04-01, no lead
    // activity → no_recent_activity ×0.8: 0.75 × 0.7 × 0.8 = 0.42; 20000 × 0.42 = 8400.
    expect(forecast.body.data).toMatchObject({
      deal_id: ids.B,
      snapshot_date: '2026-06-15',
      base_probability: 0.75,
      probability: 0.42,
      weighted_value: 8400,
      days_in_stage: 45,
      trend: 'flat',
      previous: null,
    });
    expect(forecast.body.data.factors.map((factor: { factor: string }) => factor.factor)).toEqual([
      'stalled',
      'no_recent_activity',
    ]);
    const a = await call('GET', `/api/forecast/deal/${ids.A}`, { token: owner.token });
    // A: Proposal 0.5, signal 3 days ago → recent_activity ×1.1: 0.55; 10000 × 0.55 = 5500.
    expect(a.body.data).toMatchObject({ probability: 0.55, weighted_value: 5500 });
    const c = await call('GET', `/api/forecast/deal/${ids.C}`, { token: owner.token });
    // C: Qualification 0.25, close date 2026-06-01 passed → ×0.5: 0.125; 8000 × 0.125 = 1000.
    expect(c.body.data).toMatchObject({ probability: 0.125, weighted_value: 1000 });
    const d = await call('GET', `/api/forecast/deal/${ids.D}`, { token: owner.token });
    expect(d.body.data).toMatchObject({ outcome: 'won', probability: 1, weighted_value: 5000, factors: [] });
  });

  it('sums the pipeline per month and per quarter by expected close date', async () => {
    const monthly = await asOwner((ctx) => pipelineForecast(ctx, { period: 'monthly', months: 2 }, NOW));
    // June: committed D 5000; best case A+B+C+D = 10000+20000+8000+5000 = 43000 (E lost);
    // weighted A+B+C = 5500+8400+1000 = 14900; expected 5000+14900 = 19900; 4 deals.
    // July: F 4000 at Prospecting 0.1 → 400.
    expect(monthly).toEqual([
      {
        period: '2026-06',
        start_date: '2026-06-01',
        end_date: '2026-06-30',
        committed: 5000,
        best_case: 43000,
        weighted_pipeline: 14900,
        expected_total: 19900,
        deal_count: 4,
      },
      {
        period: '2026-07',
        start_date: '2026-07-01',
        end_date: '2026-07-31',
        committed: 0,
        best_case: 4000,
        weighted_pipeline: 400,
        expected_total: 400,
        deal_count: 1,
      },
    ]);
    const quarterly = await asOwner((ctx) => pipelineForecast(ctx, { period: 'quarterly', months: 6 }, NOW));
    expect(quarterly.map((row) => [row.period, row.end_date, row.best_case, row.weighted_pipeline])).toEqual([
      ['2026-Q2', '2026-06-30', 43000, 14900],
      ['2026-Q3', '2026-09-30', 4000, 400],
    ]);
    const overHttp = await call('GET', '/api/forecast/pipeline', {
      token: owner.token,
      query: { period: 'quarterly', months: 7 },
    });
    expect(overHttp.status, overHttp.text).toBe(200);
    expect(overHttp.body.data).toHaveLength(3);
    expect(overHttp.body.data[0].period).toMatch(/^\d{4}-Q[1-4]$/);
    const contributors = await call('GET', '/api/forecast/pipeline/contributors', {
      token: owner.token,
      query: { period_month: '2026-06' },
    });
    expect(contributors.status, contributors.text).toBe(200);
    expect(contributors.body.total).toBe(4);
    expect(
      contributors.body.data.map((row: { id: number; weighted_value: number }) => [row.id, row.weighted_value]),
    ).toEqual([
      [ids.B, 8400],
      [ids.A, 5500],
      [ids.D, 5000],
      [ids.C, 1000],
    ]);
    expect(contributors.body.data[0]).toMatchObject({ owner_id: owner.userId, owner_name: 'Ada Admin' });

    // H was expected to close on July 20 and was won on June 5: committed in June, the month it
    // was won, not in July (nor was one won in May committed in June).
    const pipeline = await defaultPipeline(owner);
    const won = (pipeline.stages.find((row) => row.name === 'Won') as StageRow).id;
    const early = await addDeal(owner, pipeline, {
      title: 'Deal H',
      stage_id: won,
      value: 700,
      expected_close_date: '2026-07-20',
    });
    await inOrganization(owner.orgId, (tx) =>
      tx
        .update(deals)
        .set({ closedAt: new Date('2026-06-05T09:00:00Z') })
        .where(eq(deals.id, early.id)),
    );
    try {
      const withEarly = await asOwner((ctx) => pipelineForecast(ctx, { period: 'monthly', months: 2 }, NOW));
      expect(withEarly.map((row) => [row.period, row.committed, row.best_case, row.deal_count])).toEqual([
        ['2026-06', 5700, 43700, 5],
        ['2026-07', 0, 4000, 1],
      ]);
      const june = await call('GET', '/api/forecast/pipeline/contributors', {
        token: owner.token,
        query: { period_month: '2026-06' },
      });
      expect(june.body.data.map((row: { id: number }) => row.id)).toContain(early.id);
      const july = await call('GET', '/api/forecast/pipeline/contributors', {
        token: owner.token,
        query: { period_month: '2026-07' },
      });
      expect(july.body.data.map((row: { id: number }) => row.id)).toEqual([ids.F]);
    } finally {
      const removed = await call('DELETE', '/api/lead/deal/delete', { token: owner.token, body: { ids: [early.id] } });
      expect(removed.status, removed.text).toBe(200);
    }
  });

  it('lists deals at risk with reasons, by value at risk, and the trend of a deal that moved', async () => {
    const atNow = await asOwner((ctx) => dealsAtRisk(ctx, { owner: 'all', limit: 10 }, NOW));
    // B: 20000 × 0.75 = 15000 at risk (stalled, no activity); C: 8000 × 0.25 = 2000 (close date passed).
    expect(atNow.map((row) => [row.deal_id, row.value_at_risk, row.reasons.map((reason) => reason.reason)])).toEqual([
      [ids.B, 15000, ['stalled', 'no_activity']],
      [ids.C, 2000, ['close_date_passed']],
    ]);
    expect(atNow[0].reasons[0].detail).toBe('45 days in Negotiation (max 14)');

    // F's value falls from 4000 to 3000; a week later (NOW2 = 2026-06-21) B's close date has passed too.
    await inOrganization(owner.orgId, (tx) => tx.update(deals).set({ value: 3000 }).where(eq(deals.id, ids.F)));
    await snapshotAt(NOW2);
    const atNow2 = await asOwner((ctx) => dealsAtRisk(ctx, { owner: 'all', limit: 10 }, NOW2));
    // C: 16 days in Qualification > 14 → stalled too; F: 3000 × 0.1 = 300 (value dropped).
    expect(atNow2.map((row) => [row.deal_id, row.value_at_risk, row.reasons.map((reason) => reason.reason)])).toEqual([
      [ids.B, 15000, ['stalled', 'close_date_passed', 'no_activity']],
      [ids.C, 2000, ['stalled', 'close_date_passed']],
      [ids.F, 300, ['value_dropped']],
    ]);
    expect(await asOwner((ctx) => dealsAtRisk(ctx, { owner: 'all', limit: 1 }, NOW2))).toHaveLength(1);
    // owner=me: C has no owner any more.
    await inOrganization(owner.orgId, (tx) => tx.update(deals).set({ ownerId: null }).where(eq(deals.id, ids.C)));
    const mine = await asOwner((ctx) => dealsAtRisk(ctx, { owner: 'me', limit: 10 }, NOW2));
    expect(mine.map((row) => row.deal_id)).toEqual([ids.B, ids.F]);
    // Over HTTP (the real clock: every seeded close date has passed), in the declared shape.
    const overHttp = await call('GET', '/api/forecast/at-risk', { token: owner.token, query: { owner: 'me' } });
    expect(overHttp.status, overHttp.text).toBe(200);
    expect(overHttp.body.data.map((row: { deal_id: number }) => row.deal_id)).toContain(ids.B);
    expect(overHttp.body.data.map((row: { deal_id: number }) => row.deal_id)).not.toContain(ids.C);
    await inOrganization(owner.orgId, (tx) =>
      tx.update(deals).set({ ownerId: owner.userId }).where(eq(deals.id, ids.C)),
    );
    expect(await asOwner((ctx) => dealsAtRisk(ctx, { owner: 'all', limit: 10, status: 999999999 }, NOW2))).toEqual([]);

    // B at NOW2: 0.75 × 0.7 × 0.5 × 0.8 = 0.21 → 4200, down from 8400 as close_date_passed was added.
    const b = await call('GET', `/api/forecast/deal/${ids.B}`, { token: owner.token });
    expect(b.body.data).toMatchObject({
      snapshot_date: '2026-06-21',
      probability: 0.21,
      weighted_value: 4200,
      trend: 'down',
      previous: { snapshot_date: '2026-06-15', weighted_value: 8400 },
      changes: { probability: -0.21, weighted_value: -4200, factors_added: ['close_date_passed'], factors_removed: [] },
    });
    const history = await call('GET', `/api/forecast/deal/${ids.B}/history`, {
      token: owner.token,
      query: { limit: 5 },
    });
    expect(history.body.data.map((row: { snapshot_date: string }) => row.snapshot_date)).toEqual([
      '2026-06-21',
      '2026-06-15',
    ]);
    const one = await call('GET', `/api/forecast/deal/${ids.B}/history`, { token: owner.token, query: { limit: 1 } });
    expect(one.body.data).toHaveLength(1);
  });

  it('measures accuracy per past month: the forecast at the month’s start against closed won', async () => {
    // Seeded month-start snapshots: A 5000 (June), D 2500 (June, as of May 31), E lost (June), F 400 (July).
    const snapshot = (deal: string, day: string, outcome: string, weighted: number, close: string) => ({
      organizationId: owner.orgId,
      dealId: ids[deal],
      pipelineId: 0,
      snapshotDate: day,
      takenAt: new Date(`${day}T00:05:00Z`),
      stageId: 0,
      outcome,
      value: weighted,
      expectedCloseDate: close,
      baseProbability: 0.5,
      probability: 0.5,
      weightedValue: weighted,
      daysInStage: 0,
    });
    // G was expected to close on June 10 but was won early, on May 20: by June 1 it had closed, so
    // it is no part of June's forecast (May's actual holds it), though its June 1 snapshot says won.
    const pipeline = await defaultPipeline(owner);
    const won = (pipeline.stages.find((row) => row.name === 'Won') as StageRow).id;
    ids.G = (
      await addDeal(owner, pipeline, { title: 'Deal G', stage_id: won, value: 1200, expected_close_date: '2026-06-10' })
    ).id;
    await inOrganization(owner.orgId, (tx) =>
      tx
        .update(deals)
        .set({ closedAt: new Date('2026-05-20T10:00:00Z') })
        .where(eq(deals.id, ids.G)),
    );
    await inOrganization(owner.orgId, (tx) =>
      tx
        .insert(dealForecasts)
        .values([
          snapshot('G', '2026-06-01', 'won', 1200, '2026-06-10'),
          snapshot('A', '2026-06-01', 'open', 5000, '2026-06-30'),
          snapshot('D', '2026-05-31', 'open', 2500, '2026-06-25'),
          snapshot('E', '2026-06-01', 'lost', 900, '2026-06-18'),
          snapshot('F', '2026-06-01', 'open', 400, '2026-07-15'),
        ]),
    );
    const rows = await asOwner((ctx) => forecastAccuracy(ctx, { months: 2, format: 'json' }, NOW3));
    // June: forecast A 5000 + D 2500 = 7500 (E lost counts 0, G closed in May counts 0); won in June:
    // D 5000 → error 2500, 50 %.
    // July: F's latest snapshot on or before July 1 is NOW2's: 3000 × 0.1 = 300; nothing won → error 300.
    expect(rows).toEqual([
      { month: '2026-06', forecast: 7500, actual: 5000, error: 2500, error_percent: 50 },
      { month: '2026-07', forecast: 300, actual: 0, error: 300, error_percent: null },
    ]);
    const csv = await call('GET', '/api/forecast/accuracy', {
      token: owner.token,
      query: { format: 'csv', months: 3 },
    });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toBe('month,forecast,actual,error,error_percent');
    expect(lines).toHaveLength(4);
    const json = await call('GET', '/api/forecast/accuracy', { token: owner.token, query: { months: 3 } });
    expect(json.body.data).toHaveLength(3);
  });

  it('records a snapshot on every deal change, one per deal per day', async () => {
    const pipeline = await defaultPipeline(owner);
    const deal = await addDeal(owner, pipeline, { value: 2000 });
    const first = await call('GET', `/api/forecast/deal/${deal.id}/history`, { token: owner.token });
    expect(first.body.data).toHaveLength(1);
    expect(first.body.data[0]).toMatchObject({ value: 2000, base_probability: 0.1 });
    await call('POST', `/api/lead/deal/update/${deal.id}`, {
      token: owner.token,
      body: { stage_id: pipeline.stages[2].id, value: 3000 },
    });
    const second = await call('GET', `/api/forecast/deal/${deal.id}/history`, { token: owner.token });
    expect(second.body.data).toHaveLength(1);
    expect(second.body.data[0]).toMatchObject({
      value: 3000,
      base_probability: 0.5,
      snapshot_date: new Date().toISOString().slice(0, 10),
    });
  });

  it('refuses bad parameters (400) and keeps other organizations out (404)', async () => {
    for (const query of [{ period: 'weekly' }, { months: 0 }, { months: 25 }, { pipeline_id: 'x' }]) {
      expectFailure(await call('GET', '/api/forecast/pipeline', { token: owner.token, query }), 400, 'bad_request');
    }
    // A month outside the calendar (1900-01 to 9999-12) is refused naming period_month, as a month 13 is.
    for (const period_month of ['2026-13', '0000-01', '1899-12', '2026-6']) {
      const response = await call('GET', '/api/forecast/pipeline/contributors', {
        token: owner.token,
        query: { period_month },
      });
      expectFailure(response, 400, 'bad_request');
      expect(response.body.error.code, period_month).toBe('period_month');
    }
    for (const period_month of ['1900-01', '9999-12'])
      expect(
        (await call('GET', '/api/forecast/pipeline/contributors', { token: owner.token, query: { period_month } }))
          .status,
      ).toBe(200);
    expectFailure(
      await call('GET', '/api/forecast/at-risk', { token: owner.token, query: { owner: 'team' } }),
      400,
      'bad_request',
    );
    expectFailure(
      await call('GET', '/api/forecast/accuracy', { token: owner.token, query: { format: 'xml' } }),
      400,
      'bad_request',
    );
    expectFailure(await call('GET', `/api/forecast/deal/${ids.A}`, { token: other.token }), 404, 'not_found');
    expectFailure(await call('GET', `/api/forecast/deal/${ids.A}/history`, { token: other.token }), 404, 'not_found');
    const theirs = await call('GET', '/api/forecast/pipeline/contributors', {
      token: other.token,
      query: { period_month: '2026-06' },
    });
    expect(theirs.body.total).toBe(0);
    const risk = await call('GET', '/api/forecast/at-risk', { token: other.token });
    expect(risk.body.data).toEqual([]);
  });

  it('runs the nightly snapshot once per day, idempotently', async () => {
    const handle = openDatabase(readConfig(env));
    try {
      const day = new Date('2031-03-03T00:01:00Z');
      // A database kept between runs (TEST_DATABASE_URL) may hold the day's claim from the last one.
      await handle.db.delete(forecastSnapshotRuns).where(eq(forecastSnapshotRuns.day, '2031-03-03'));
      // The open deals A, B, C, F and the one of the previous test.
      expect(await snapshotAllOpenDeals(handle.db, day, owner.orgId)).toBe(5);
      expect(await snapshotAllOpenDeals(handle.db, new Date('2031-03-03T00:02:00Z'), owner.orgId)).toBeNull();
      // Even with the day's claim gone, a second run adds nothing: one row per deal and day.
      await handle.db.delete(forecastSnapshotRuns).where(eq(forecastSnapshotRuns.day, '2031-03-03'));
      expect(await snapshotAllOpenDeals(handle.db, new Date('2031-03-03T00:03:00Z'), owner.orgId)).toBe(0);
      const rows = await handle.db
        .select({ count: sql<number>`count(*)::int` })
        .from(dealForecasts)
        .where(and(eq(dealForecasts.organizationId, owner.orgId), eq(dealForecasts.snapshotDate, '2031-03-03')));
      expect(rows[0].count).toBe(5);
    } finally {
      await handle.close();
    }
  });

  it('a cron call while the day’s run is still working returns at once and leaves the day to it', async (context) => {
    const running = openDatabase(readConfig(env));
    const caller = openDatabase(readConfig(env));
    try {
      const server = await caller.db.execute<{ version: string }>(sql`select version()`);
      // The embedded PGlite runs one transaction at a time: a second caller cannot reach it while
      // the run's transaction is open. PostgreSQL (CI's second run) runs this.
      if (/emscripten|wasm/i.test(server.rows[0].version)) context.skip();
      await caller.db.delete(forecastSnapshotRuns).where(eq(forecastSnapshotRuns.day, '2031-04-04'));
      let written: number | null = null;
      const answered = await running.db.transaction(async (tx) => {
        // The day's run: it has claimed the day and written its snapshots, and not committed yet.
        written = await snapshotAllOpenDeals(tx, new Date('2031-04-04T00:01:00Z'), owner.orgId);
        expect(written).toBeGreaterThan(0);
        const call = snapshotAllOpenDeals(caller.db, new Date('2031-04-04T00:02:00Z'), owner.orgId);
        // Waiting on the run's uncommitted claim would keep this call until the run ends.
        return Promise.race([call, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 10_000))]);
      });
      expect(answered).toBeNull();
      expect(await snapshotAllOpenDeals(caller.db, new Date('2031-04-04T00:03:00Z'), owner.orgId)).toBeNull();
      const [day] = await caller.db
        .select()
        .from(forecastSnapshotRuns)
        .where(eq(forecastSnapshotRuns.day, '2031-04-04'));
      expect(day.snapshots).toBe(written);
    } finally {
      await running.close();
      await caller.close();
    }
  });

  it('a deal change during the nightly run neither deadlocks with it nor fails: the run leaves that deal to the change', async (context) => {
    const nightly = openDatabase(readConfig(env));
    const user = openDatabase(readConfig(env));
    try {
      const server = await user.db.execute<{ version: string }>(sql`select version()`);
      // PGlite runs one transaction at a time; PostgreSQL (CI's second run) runs this.
      if (/emscripten|wasm/i.test(server.rows[0].version)) context.skip();
      const day = new Date('2031-05-05T00:01:00Z');
      await user.db.delete(forecastSnapshotRuns).where(eq(forecastSnapshotRuns.day, '2031-05-05'));
      // The deal update's transaction (updateDeal): the deal locked first, then changed, then its
      // day's snapshot written. The nightly run starts while the deal is locked.
      const changed = user.db.transaction(async (tx) => {
        await tx.execute(sql`select id from ${deals} where id = ${ids.A} for update`);
        const run = snapshotAllOpenDeals(nightly.db, day, owner.orgId);
        const settled = run.then(
          (written) => ({ written }),
          (error: unknown) => ({ error }),
        );
        // Let the run insert its snapshots and reach the locked deal.
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        await tx.update(deals).set({ value: 11000 }).where(eq(deals.id, ids.A));
        await recordForecasts(tx, day, sql`d.organization_id = ${owner.orgId} and d.id = ${ids.A}`);
        return settled;
      });
      const outcome = await changed;
      expect(outcome).not.toHaveProperty('error');
      expect((outcome as { written: number }).written).toBeGreaterThan(0);
      const [snapshot] = await user.db
        .select({ value: dealForecasts.value })
        .from(dealForecasts)
        .where(and(eq(dealForecasts.dealId, ids.A), eq(dealForecasts.snapshotDate, '2031-05-05')));
      expect(Number(snapshot.value)).toBe(11000);
    } finally {
      await nightly.close();
      await user.close();
    }
  });

  it('sums the pipeline from a rollup that equals the deals and their latest snapshots, through every write', async () => {
    /** (pipeline|month|outcome) → "count|value|weighted", from the rollup and from the deals. */
    const compare = () =>
      inOrganization(owner.orgId, async (tx) => {
        const rolled = await tx.execute<{ k: string; v: string }>(sql`
          select pipeline_id || '|' || month || '|' || outcome as k,
            sum(delta) || '|' || round(sum(value_sum), 2) || '|' || round(sum(weighted_sum), 2) as v
          from deal_close_month_counts group by 1 having sum(delta) <> 0 or sum(value_sum) <> 0 or sum(weighted_sum) <> 0`);
        const counted = await tx.execute<{ k: string; v: string }>(sql`
          select d.pipeline_id || '|' || (case when d.outcome = 'won' and d.closed_at is not null
              then date_trunc('month', d.closed_at at time zone 'UTC')::date
              else date_trunc('month', d.expected_close_date::timestamp)::date end) || '|' || d.outcome as k,
            count(*) || '|' || round(sum(d.value), 2) || '|' || round(coalesce(sum(w.weighted_value), 0), 2) as v
          from deals d left join lateral (select f.weighted_value from deal_forecasts f
            where f.deal_id = d.id order by f.snapshot_date desc limit 1) w on true
          group by 1`);
        const map = (rows: { k: string; v: string }[]) => Object.fromEntries(rows.map((row) => [row.k, row.v]));
        expect(map(rolled.rows)).toEqual(map(counted.rows));
        return Object.keys(map(counted.rows)).length;
      });
    expect(await compare()).toBeGreaterThan(2);
    const pipeline = await defaultPipeline(owner);
    const won = pipeline.stages.find((row) => row.is_won)?.id as number;
    // A move to won with a new close date and value (a snapshot is rewritten), a deal deleted,
    // and the latest snapshot of another removed (the one before becomes the latest again).
    const moved = await call('POST', `/api/lead/deal/update/${ids.F}`, {
      token: owner.token,
      body: { stage_id: won, expected_close_date: '2026-09-03', value: 4500 },
    });
    expect(moved.status, moved.text).toBe(200);
    const removed = await call('DELETE', '/api/lead/deal/delete', { token: owner.token, body: { ids: [ids.C] } });
    expect(removed.status, removed.text).toBe(200);
    await inOrganization(owner.orgId, (tx) =>
      tx.execute(sql`delete from deal_forecasts where deal_id = ${ids.B}
        and snapshot_date = (select max(snapshot_date) from deal_forecasts where deal_id = ${ids.B})`),
    );
    expect(await compare()).toBeGreaterThan(2);
  });
});

/** Rows a plan read from `relation` over all its loops (returned and removed by a filter). */
function rowsReadFrom(node: Record<string, unknown>, relation: string): number {
  const own =
    node['Relation Name'] === relation
      ? ((node['Actual Rows'] as number) + ((node['Rows Removed by Filter'] as number | undefined) ?? 0)) *
        (node['Actual Loops'] as number)
      : 0;
  const children = (node.Plans as Record<string, unknown>[] | undefined) ?? [];
  return own + children.reduce((sum, child) => sum + rowsReadFrom(child, relation), 0);
}

describe('forecast accuracy of one pipeline', () => {
  it('compares the forecast and the actual of the same deals: those in the pipeline now', async () => {
    // A deal forecast in the default pipeline on June 1, won on June 10, and moved with the other
    // won deals into a consolidated pipeline since: each pipeline's June compares like with like.
    const org = await signupOrganization('Accuracy pipelines');
    const first = await defaultPipeline(org);
    const second = await addPipeline(org, { name: 'Consolidated' });
    const stage = (pipeline: { stages: StageRow[] }, name: string) =>
      (pipeline.stages.find((row) => row.name === name) as StageRow).id;
    const deal = await addDeal(org, first, {
      stage_id: stage(first, 'Proposal'),
      value: 2000,
      expected_close_date: '2026-06-20',
    });
    const moved = await call('POST', `/api/lead/deal/update/${deal.id}`, {
      token: org.token,
      body: { pipeline_id: second.id, stage_id: stage(second, 'Won') },
    });
    expect(moved.status, moved.text).toBe(200);
    await inOrganization(org.orgId, async (tx) => {
      await tx
        .update(deals)
        .set({ closedAt: new Date('2026-06-10T15:00:00Z') })
        .where(eq(deals.id, deal.id));
      await tx.insert(dealForecasts).values({
        organizationId: org.orgId,
        dealId: deal.id,
        pipelineId: first.id,
        snapshotDate: '2026-06-01',
        takenAt: new Date('2026-06-01T00:05:00Z'),
        stageId: stage(first, 'Proposal'),
        outcome: 'open',
        value: 2000,
        expectedCloseDate: '2026-06-20',
        baseProbability: 0.5,
        probability: 0.5,
        weightedValue: 1000,
        daysInStage: 3,
      });
    });
    const june = (pipelineId: number) =>
      asTenant(org, (ctx) =>
        forecastAccuracy(ctx, { months: 1, format: 'json', pipeline_id: pipelineId }, new Date('2026-07-10T12:00:00Z')),
      );
    expect(await june(second.id)).toEqual([
      { month: '2026-06', forecast: 1000, actual: 2000, error: -1000, error_percent: -50 },
    ]);
    expect(await june(first.id)).toEqual([{ month: '2026-06', forecast: 0, actual: 0, error: 0, error_percent: null }]);
  });
});

describe('the forecast of a lead with a long feed', () => {
  it('reads one feed entry per deal for its last activity, however many entries the lead has', async () => {
    const busy = await signupOrganization('Busy lead');
    const pipeline = await defaultPipeline(busy);
    const leadId = await createLead(busy);
    const DEALS = 40;
    const ENTRIES = 600;
    await inOrganization(busy.orgId, async (tx) => {
      await tx.execute(sql`insert into feed_entries (organization_id, model_type, model_id, action)
        select ${busy.orgId}, 'lead', ${leadId}, 'updated' from generate_series(1, ${ENTRIES})`);
      await tx.execute(sql`insert into deals (organization_id, lead_id, pipeline_id, stage_id, title, value, expected_close_date)
        select ${busy.orgId}, ${leadId}, ${pipeline.id}, ${pipeline.stages[0].id}, 'Deal ' || g, 100, date '2027-01-01'
        from generate_series(1, ${DEALS}) g`);
    });
    const now = new Date(Date.now() + 1000);
    const explained = await inOrganization(busy.orgId, (tx) =>
      tx.execute<{ 'QUERY PLAN': unknown }>(
        sql`explain (analyze, format json) ${forecastWrite(now, sql`d.organization_id = ${busy.orgId}`, true)}`,
      ),
    );
    const plan = explained.rows[0]['QUERY PLAN'];
    const [root] = (typeof plan === 'string' ? JSON.parse(plan) : plan) as { Plan: Record<string, unknown> }[];
    // A max(created_at) read all 600 of the lead's entries for each of the 40 deals, and the lateral,
    // pulled up into the query, ran its subqueries once per use of the last activity (six).
    expect(rowsReadFrom(root.Plan, 'feed_entries')).toBeLessThanOrEqual(DEALS);
    // The last activity it found is the newest entry's.
    const [written] = await inOrganization(busy.orgId, (tx) =>
      tx.execute<{ n: number; recent: number }>(sql`select count(*)::int as n,
          count(*) filter (where factors ? 'recent_activity')::int as recent
        from deal_forecasts where organization_id = ${busy.orgId} and snapshot_date = ${now.toISOString().slice(0, 10)}::date`),
    ).then((result) => result.rows);
    expect(written).toEqual({ n: DEALS, recent: DEALS });
  });
});
