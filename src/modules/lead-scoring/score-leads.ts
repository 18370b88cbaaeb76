/**
 * Scoring a batch of leads, set-based: one statement reads every lead's features (features.ts),
 * the explanations are computed here (explain.ts), and one statement writes score, fit_score,
 * engagement_score and `ai_information.score` of every lead whose score or explanation changed.
 * Rescoring a lead whose inputs did not change writes nothing, so a redelivered job is harmless.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client';
import { leads } from '../../db/schema';
import { explainScore } from './explain';
import {
  engagementPoints,
  FEATURES,
  type FeatureName,
  featureColumns,
  featureSource,
  type ScoreModel,
} from './features';

export const SCORING_BATCH = 500;

export interface BatchScored {
  /** Leads read (and scored) in this batch. */
  read: number;
  /** Leads whose stored score or explanation changed. */
  changed: number;
  /** The highest lead id of the batch (the checkpoint of a walk over every lead). */
  lastId: number | null;
  /** The ids of the leads read, in order. */
  ids: number[];
}

/**
 * Scores up to `limit` live leads of the organization that `where` selects (over `leads l`), in
 * id order, after lead `afterId`. Must run scoped to the organization.
 *
 * The read locks the leads (FOR NO KEY UPDATE, in id order) until the transaction that writes
 * their scores commits: two scorings of one lead write in the order they read, and a change of the
 * lead waits for the write. Read without the lock, a scoring that read first and wrote last (a
 * job held up, or a long batch) overwrote the newer score with one computed from replaced data.
 * A lead locked by a change in progress is read once it committed (its own columns as changed).
 */
export async function scoreLeadBatch(
  db: Queryable,
  orgId: number,
  model: ScoreModel,
  where: SQL,
  options: { afterId?: number; limit?: number; now?: Date } = {},
): Promise<BatchScored> {
  const now = options.now ?? new Date();
  const read = await db.execute<Record<string, number | string>>(sql`
    select l.id, ${featureColumns(model.idealProfile)}, ${engagementPoints} as engagement_points
    from ${featureSource(orgId)}
    where l.organization_id = ${orgId} and l.deleted_at is null and l.id > ${options.afterId ?? 0} and ${where}
    order by l.id limit ${options.limit ?? SCORING_BATCH}
    for no key update of l`);
  if (read.rows.length === 0) return { read: 0, changed: 0, lastId: null, ids: [] };
  const records = read.rows.map((row) => {
    const values = Object.fromEntries(FEATURES.map((name) => [name, Number(row[name])])) as Record<FeatureName, number>;
    const explanation = explainScore(model, values, Number(row.engagement_points), now);
    return {
      id: Number(row.id),
      score: explanation.score,
      fit: explanation.fit,
      engagement: explanation.engagement,
      explanation,
    };
  });
  // Compared without scored_at: a rescoring that changes nothing writes nothing.
  const written = await db.execute(sql`
    update ${leads} l set score = r.score, fit_score = r.fit, engagement_score = r.engagement,
      ai_information = jsonb_set(l.ai_information, '{score}', r.explanation)
    from jsonb_to_recordset(${JSON.stringify(records)}::jsonb) as r(id bigint, score int, fit smallint, engagement smallint, explanation jsonb)
    where l.organization_id = ${orgId} and l.id = r.id and l.deleted_at is null
      and (l.score is distinct from r.score or l.fit_score is distinct from r.fit
        or l.engagement_score is distinct from r.engagement
        or (l.ai_information->'score') - 'scored_at' is distinct from r.explanation - 'scored_at')`);
  return {
    read: records.length,
    changed: written.rowCount ?? 0,
    lastId: records[records.length - 1].id,
    ids: records.map((record) => record.id),
  };
}
