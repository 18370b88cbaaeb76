/**
 * The lead score's features, each a number in [0, 1] computed in SQL for a whole batch of leads
 * at once, and the default model that applies until an organization has enough outcomes.
 *
 * Fit features compare the lead's firmographics with the organization's ideal profile: 1 when the
 * value is one the profile favours, 0 when it is known and not favoured, 0.5 (neutral) when the
 * lead has no value or the profile no preference. Title seniority is a ladder (C-level 1, VP or
 * head 0.8, director 0.6, manager or lead 0.4, another title 0.2, none 0). Engagement is the
 * lead's intent score now (intent signals weighted by type, halving every 7 days: the intent
 * module's weights) divided by 100, capped at 1. Fit features do not decay; engagement does.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { IdealProfile, ScoreFeatureWeight } from '../../db/schema';
import { companies, leadIntentScores, leads } from '../../db/schema';
import { ENGAGEMENT_HALF_LIFE_DAYS } from '../intent';

export const FEATURES = [
  'industry',
  'company_size',
  'title_seniority',
  'country',
  'lead_source',
  'engagement',
] as const;
export type FeatureName = (typeof FEATURES)[number];
/** The features of fit; engagement is the rest. */
export const FIT_FEATURES: readonly FeatureName[] = FEATURES.filter((name) => name !== 'engagement');

export const FEATURE_LABELS: Record<FeatureName, string> = {
  industry: 'Industry against the ideal profile',
  company_size: 'Company size band against the ideal profile',
  title_seniority: 'Seniority of the job title',
  country: 'Country against the ideal profile',
  lead_source: 'Lead source against the ideal profile',
  engagement: 'Recent intent signals (decaying)',
};

export interface ScoreModel {
  /** Null for the built-in default model (no version recorded yet). */
  version: number | null;
  kind: 'default' | 'learned';
  intercept: number;
  features: ScoreFeatureWeight[];
  idealProfile: IdealProfile;
  sampleSize: number;
}

export const EMPTY_PROFILE: IdealProfile = { industries: [], countries: [], size_bands: [], sources: [] };

/**
 * The default weights (log-odds per unit of the feature) and reference points (the "mean" a
 * contribution is measured from), used below the training threshold. Engagement weighs most, then
 * seniority; the profile matches count only once the organization's outcomes suggest a profile.
 */
export const DEFAULT_INTERCEPT = -0.5;
export const DEFAULT_FEATURES: ScoreFeatureWeight[] = [
  { name: 'industry', weight: 1.0, mean: 0.5, std: 0.5 },
  { name: 'company_size', weight: 0.8, mean: 0.5, std: 0.5 },
  { name: 'title_seniority', weight: 1.5, mean: 0.4, std: 0.35 },
  { name: 'country', weight: 0.6, mean: 0.5, std: 0.5 },
  { name: 'lead_source', weight: 0.8, mean: 0.5, std: 0.5 },
  { name: 'engagement', weight: 3.0, mean: 0.1, std: 0.2 },
];

export function defaultModel(idealProfile: IdealProfile = EMPTY_PROFILE, sampleSize = 0): ScoreModel {
  return {
    version: null,
    kind: 'default',
    intercept: DEFAULT_INTERCEPT,
    features: DEFAULT_FEATURES,
    idealProfile,
    sampleSize,
  };
}

const SECONDS_PER_HALF_LIFE = ENGAGEMENT_HALF_LIFE_DAYS * 86_400;

/** 1 / 0 / 0.5 for a value against a profile list (see the file's comment). */
function match(value: SQL, favoured: SQL): SQL {
  return sql`(case when ${value} is null or cardinality(${favoured}) = 0 then 0.5 when ${value} = any(${favoured}) then 1 else 0 end)::float8`;
}

const textArray = (values: string[]) => sql`${`{${values.map((v) => JSON.stringify(v)).join(',')}}`}::text[]`;

/** The normalised attribute values of lead `l` and its company `c`: what the profile is made of. */
export const attributeColumns = {
  industry: sql`lower(nullif(trim(coalesce(nullif(trim(l.industry), ''), c.industry_type)), ''))`,
  size_band: sql`c.employee_size`,
  country: sql`lower(nullif(trim(coalesce(nullif(trim(l.country), ''), c.country)), ''))`,
  source: sql`l.lead_source::int`,
};

const seniority = sql`(case
  when l.job_title ~* '\\m(ceo|cto|cfo|coo|cmo|cro|cio|ciso|chief|founder|co-founder|cofounder|owner|president|partner)\\M' then 1
  when l.job_title ~* '\\m(vp|svp|evp|vice president|head)\\M' then 0.8
  when l.job_title ~* '\\mdirector\\M' then 0.6
  when l.job_title ~* '\\m(manager|lead|principal)\\M' then 0.4
  when nullif(trim(l.job_title), '') is not null then 0.2
  else 0 end)::float8`;

/** Intent points now: the stored intent score decayed from when it was computed (every signal decays alike). */
export const engagementPoints = sql`coalesce(s.score * power(0.5::float8, greatest(extract(epoch from (now() - s.scored_at))::float8, 0) / ${SECONDS_PER_HALF_LIFE}::float8), 0)::float8`;

/** The feature columns (named as FEATURES) of lead `l`, company `c`, intent score `s`. */
export function featureColumns(profile: IdealProfile): SQL {
  const columns: Record<FeatureName, SQL> = {
    industry: match(attributeColumns.industry, textArray(profile.industries)),
    company_size: match(attributeColumns.size_band, textArray(profile.size_bands)),
    title_seniority: seniority,
    country: match(attributeColumns.country, textArray(profile.countries)),
    lead_source: match(
      attributeColumns.source,
      sql`${`{${profile.sources.map((v) => Math.trunc(v)).join(',')}}`}::int[]`,
    ),
    engagement: sql`least(${engagementPoints} / 100, 1)::float8`,
  };
  return sql.join(
    FEATURES.map((name) => sql`${columns[name]} as ${sql.identifier(name)}`),
    sql`, `,
  );
}

/** `from leads l` with the company and the intent score each feature reads, for organization `orgId`. */
export function featureSource(orgId: number): SQL {
  return sql`${leads} l
    left join ${companies} c on c.organization_id = ${orgId} and c.id = l.company_id
    left join ${leadIntentScores} s on s.organization_id = ${orgId} and s.lead_id = l.id`;
}
