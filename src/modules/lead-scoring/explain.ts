/**
 * From a lead's feature values and a model to its score and explanation (`ai_information.score`):
 * the 0–100 score (P(won) under the model), fit (the same with engagement held at its mean, so
 * it depends on firmographics only), engagement (intent points now, capped at 100), and the
 * factors that moved the score most either way, each with its signed contribution
 * wᵢ·(xᵢ − meanᵢ) in log-odds.
 */
import { predict } from './logistic';
import { FEATURE_LABELS, FEATURES, type FeatureName, FIT_FEATURES, type ScoreModel } from './features';

/** Factors listed on each side; contributions smaller than this (in log-odds) are not worth naming. */
export const TOP_FACTORS = 3;
const NEGLIGIBLE = 0.005;

export interface ScoreFactor {
  feature: FeatureName;
  label: string;
  /** The feature's value for this lead, in [0, 1]. */
  value: number;
  /** wᵢ·(xᵢ − meanᵢ), in log-odds. */
  contribution: number;
}

export interface ScoreExplanation {
  score: number;
  fit: number;
  engagement: number;
  model_version: number | null;
  model_kind: 'default' | 'learned';
  training_sample_size: number;
  positive_factors: ScoreFactor[];
  negative_factors: ScoreFactor[];
  scored_at: string;
}

const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;

export function explainScore(
  model: ScoreModel,
  values: Record<FeatureName, number>,
  engagementPoints: number,
  now: Date,
): ScoreExplanation {
  const weights = FEATURES.map(
    (name) => model.features.find((feature) => feature.name === name) ?? { name, weight: 0, mean: 0, std: 0 },
  );
  const x = FEATURES.map((name) => values[name]);
  const full = predict({ intercept: model.intercept, features: weights }, x);
  // Fit: every non-fit feature at its mean contributes nothing.
  const fitX = FEATURES.map((name, j) => (FIT_FEATURES.includes(name) ? x[j] : weights[j].mean));
  const fit = predict({ intercept: model.intercept, features: weights }, fitX);
  const factors = FEATURES.map((name, j) => ({
    feature: name,
    label: FEATURE_LABELS[name],
    value: round(x[j], 3),
    contribution: round(full.contributions[j], 3),
  })).filter((factor) => Math.abs(factor.contribution) >= NEGLIGIBLE);
  return {
    score: Math.round(100 * full.probability),
    fit: Math.round(100 * fit.probability),
    engagement: Math.min(100, Math.round(engagementPoints)),
    model_version: model.version,
    model_kind: model.kind,
    training_sample_size: model.sampleSize,
    positive_factors: factors
      .filter((factor) => factor.contribution > 0)
      .sort((a, b) => b.contribution - a.contribution)
      .slice(0, TOP_FACTORS),
    negative_factors: factors
      .filter((factor) => factor.contribution < 0)
      .sort((a, b) => a.contribution - b.contribution)
      .slice(0, TOP_FACTORS),
    scored_at: now.toISOString(),
  };
}
