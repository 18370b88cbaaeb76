/**
 * A deal's forecast snapshots: the latest with its trend and what moved it since the one before,
 * and the history, newest first.
 */
import { deals, dealForecasts } from '../../db/schema';
import { sql } from 'drizzle-orm';
import type { TenantContext } from '../../db/tenant';
import { NotFound } from '../../core/errors';
import { isoTimestamp } from '../../core/schemas';
import { FACTORS, type FactorName } from './factors';

type SnapshotRow = {
  deal_found: number;
  snapshot_date: string | null;
  taken_at: string | Date;
  stage_id: number;
  outcome: string;
  value: string;
  expected_close_date: string;
  days_in_stage: number;
  base_probability: number;
  probability: number;
  weighted_value: string;
  factors: FactorName[];
};

/** The deal's snapshots newest first (404 when the deal is not the organization's). */
async function snapshots(ctx: TenantContext, dealId: number, limit: number) {
  const result = await ctx.db.execute<SnapshotRow>(sql`
    select d.id as deal_found, f.snapshot_date::text as snapshot_date, f.taken_at, f.stage_id, f.outcome, f.value,
      f.expected_close_date::text as expected_close_date, f.days_in_stage, f.base_probability, f.probability,
      f.weighted_value, f.factors
    from ${deals} d
    left join lateral (
      select * from ${dealForecasts} f where f.organization_id = d.organization_id and f.deal_id = d.id
      order by f.snapshot_date desc limit ${limit}
    ) f on true
    where d.organization_id = ${ctx.orgId} and d.id = ${dealId}
    order by f.snapshot_date desc`);
  if (result.rows.length === 0) throw new NotFound('Deal', dealId);
  return result.rows.filter((row) => row.snapshot_date !== null).map(present);
}

function present(row: SnapshotRow) {
  return {
    snapshot_date: row.snapshot_date as string,
    taken_at: isoTimestamp(row.taken_at) as string,
    stage_id: Number(row.stage_id),
    outcome: row.outcome,
    value: Number(row.value),
    expected_close_date: row.expected_close_date,
    days_in_stage: Number(row.days_in_stage),
    base_probability: Number(row.base_probability),
    probability: Number(row.probability),
    weighted_value: Number(row.weighted_value),
    factors: row.factors.map((factor) => ({ factor, ...FACTORS[factor] })),
  };
}

type Snapshot = ReturnType<typeof present>;

const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;

export async function dealForecastHistory(ctx: TenantContext, dealId: number, limit: number): Promise<Snapshot[]> {
  return snapshots(ctx, dealId, limit);
}

export async function dealForecast(ctx: TenantContext, dealId: number) {
  const [latest, previous] = await snapshots(ctx, dealId, 2);
  if (!latest) throw new NotFound('Forecast of deal', dealId);
  const names = (snapshot: Snapshot | undefined) => new Set(snapshot?.factors.map((factor) => factor.factor) ?? []);
  const now = names(latest);
  const before = names(previous);
  const delta = previous ? latest.weighted_value - previous.weighted_value : 0;
  return {
    deal_id: dealId,
    ...latest,
    trend: delta > 0 ? ('up' as const) : delta < 0 ? ('down' as const) : ('flat' as const),
    previous: previous ?? null,
    changes: {
      probability: previous ? round(latest.probability - previous.probability, 4) : 0,
      weighted_value: round(delta, 2),
      factors_added: previous ? [...now].filter((factor) => !before.has(factor)) : [],
      factors_removed: previous ? [...before].filter((factor) => !now.has(factor)) : [],
      stage_changed: previous ? previous.stage_id !== latest.stage_id : false,
      value_changed: previous ? previous.value !== latest.value : false,
    },
  };
}
