/**
 * An organization's scoring model: the latest recorded version, or the default one; and its
 * retraining from the organization's won and lost leads.
 *
 * Outcomes: a lead is won when one of its deals is won or its status is named Converted, Won or
 * Customer; lost when it is not won and its status is named Lost, Unqualified or Disqualified, or
 * it has a lost deal and no open one. The ideal profile is derived from them: an industry,
 * country, size band or source is favoured when at least 2 won leads have it and its won share
 * is above the organization's. Weights are learned (logistic.ts) once there are at least
 * MIN_WON won and MIN_LOST lost leads; below that the default weights apply with that profile.
 * A retraining records a new version only when something changed.
 */
import { desc, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client';
import { type IdealProfile, deals, leadScoreModels, lookups } from '../../db/schema';
import { tenantWhere } from '../../db/tenant';
import {
  attributeColumns,
  defaultModel,
  EMPTY_PROFILE,
  FEATURES,
  featureColumns,
  featureSource,
  type ScoreModel,
} from './features';
import { fitLogistic } from './logistic';

export const MIN_WON = 50;
export const MIN_LOST = 50;
/** The most recent outcomes a retraining reads. */
export const MAX_SAMPLE = 20_000;

const WON_STATUS = ['converted', 'won', 'customer'];
const LOST_STATUS = ['lost', 'unqualified', 'disqualified'];

export async function currentModel(db: Queryable, orgId: number): Promise<ScoreModel> {
  const [row] = await db
    .select()
    .from(leadScoreModels)
    .where(tenantWhere({ orgId }, leadScoreModels))
    .orderBy(desc(leadScoreModels.version))
    .limit(1);
  if (!row) return defaultModel();
  return {
    version: row.version,
    kind: row.kind === 'learned' ? 'learned' : 'default',
    intercept: row.intercept,
    features: row.features,
    idealProfile: row.idealProfile,
    sampleSize: row.sampleSize,
  };
}

/** 'won' / 'lost' / null for lead `l` of organization `orgId`. */
function outcomeOf(orgId: number) {
  const statusName = sql`(select lower(lk.name) from ${lookups} lk where lk.organization_id = ${orgId}
    and lk.module_name = 'lead' and lk.type = 'status' and lk.value = l.status limit 1)`;
  const lostDeal = sql`exists (select 1 from ${deals} d where d.organization_id = ${orgId} and d.lead_id = l.id and d.outcome = 'lost')`;
  return sql`(case
    when l.won_deals > 0 or ${statusName} = any(${`{${WON_STATUS.join(',')}}`}::text[]) then 'won'
    when ${statusName} = any(${`{${LOST_STATUS.join(',')}}`}::text[]) or (l.open_deals = 0 and ${lostDeal}) then 'lost'
  end)`;
}

interface SampleRow extends Record<string, unknown> {
  outcome: 'won' | 'lost';
  industry_value: string | null;
  size_value: string | null;
  country_value: string | null;
  source_value: number | null;
}

/** The organization's outcomes with their attribute values (one statement). */
async function readOutcomes(db: Queryable, orgId: number) {
  const result = await db.execute<SampleRow>(sql`
    select o.outcome, o.industry_value, o.size_value, o.country_value, o.source_value, o.id from (
      select l.id, ${outcomeOf(orgId)} as outcome, ${attributeColumns.industry} as industry_value,
        ${attributeColumns.size_band} as size_value, ${attributeColumns.country} as country_value,
        ${attributeColumns.source} as source_value
      from ${featureSource(orgId)}
      where l.organization_id = ${orgId} and l.deleted_at is null
    ) o where o.outcome is not null
    order by o.id desc limit ${MAX_SAMPLE}`);
  return result.rows;
}

/** Values at least 2 won leads have whose won share beats the organization's. */
function favoured<T>(rows: SampleRow[], pick: (row: SampleRow) => T | null, baseRate: number): T[] {
  const counts = new Map<T, { won: number; total: number }>();
  for (const row of rows) {
    const value = pick(row);
    if (value === null || value === undefined) continue;
    const count = counts.get(value) ?? { won: 0, total: 0 };
    count.total++;
    if (row.outcome === 'won') count.won++;
    counts.set(value, count);
  }
  return [...counts.entries()]
    .filter(([, count]) => count.won >= 2 && count.won / count.total > baseRate)
    .map(([value]) => value)
    .sort();
}

export function idealProfileOf(rows: SampleRow[]): IdealProfile {
  const won = rows.filter((row) => row.outcome === 'won').length;
  if (won === 0 || won === rows.length) return EMPTY_PROFILE;
  const rate = won / rows.length;
  return {
    industries: favoured(rows, (row) => row.industry_value, rate),
    countries: favoured(rows, (row) => row.country_value, rate),
    size_bands: favoured(rows, (row) => row.size_value, rate),
    sources: favoured(rows, (row) => (row.source_value === null ? null : Number(row.source_value)), rate),
  };
}

/** The feature vectors of the outcomes' leads under a profile (one statement). */
async function readFeatures(db: Queryable, orgId: number, ids: number[], profile: IdealProfile) {
  const result = await db.execute<Record<string, number | string>>(sql`
    select l.id, ${featureColumns(profile)} from ${featureSource(orgId)}
    where l.organization_id = ${orgId} and l.id = any(${`{${ids.join(',')}}`}::bigint[])`);
  return new Map(result.rows.map((row) => [Number(row.id), FEATURES.map((name) => Number(row[name]))]));
}

/** Key order aside (jsonb stores keys in its own order), the same model. */
const canonical = (model: Omit<ScoreModel, 'version'>) =>
  JSON.stringify([
    model.kind,
    model.sampleSize,
    model.intercept,
    model.features.map((f) => [f.name, f.weight, f.mean, f.std]),
    [
      model.idealProfile.industries,
      model.idealProfile.countries,
      model.idealProfile.size_bands,
      model.idealProfile.sources,
    ],
  ]);

/**
 * Retrains the organization's model and records it as the next version when it differs from the
 * current one. Must run scoped to the organization. Returns the model now in force.
 */
export async function retrainModel(db: Queryable, orgId: number): Promise<ScoreModel> {
  const current = await currentModel(db, orgId);
  const rows = await readOutcomes(db, orgId);
  const won = rows.filter((row) => row.outcome === 'won').length;
  const lost = rows.length - won;
  if (won === 0 || lost === 0) return current;
  const profile = idealProfileOf(rows);
  let next: Omit<ScoreModel, 'version'> = { ...defaultModel(profile, rows.length), kind: 'default' };
  if (won >= MIN_WON && lost >= MIN_LOST) {
    const ids = rows.map((row) => Number(row.id));
    const vectors = await readFeatures(db, orgId, ids, profile);
    const outcome = new Map(rows.map((row) => [Number(row.id), row.outcome === 'won' ? 1 : 0]));
    const sample = ids.filter((id) => vectors.has(id));
    const fit = fitLogistic(
      sample.map((id) => vectors.get(id) as number[]),
      sample.map((id) => outcome.get(id) as number),
    );
    const r = (value: number) => Math.round(value * 1e6) / 1e6;
    next = {
      kind: 'learned',
      intercept: r(fit.intercept),
      features: FEATURES.map((name, j) => ({
        name,
        weight: r(fit.features[j].weight),
        mean: r(fit.features[j].mean),
        std: r(fit.features[j].std),
      })),
      idealProfile: profile,
      sampleSize: sample.length,
    };
  }
  if (canonical(next) === canonical(current)) return current;
  const version = (current.version ?? 0) + 1;
  await db.insert(leadScoreModels).values({
    organizationId: orgId,
    version,
    kind: next.kind,
    intercept: next.intercept,
    features: next.features,
    idealProfile: next.idealProfile,
    sampleSize: next.sampleSize,
    wonCount: won,
    lostCount: lost,
  });
  return { ...next, version };
}
