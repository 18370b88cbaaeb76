/**
 * What each paid feature costs, in one table: the routes, the jobs, `GET /api/credits/ai-features`
 * and docs/domains/credits.md read it from here. A reservation records the price it held, so a
 * change here never alters what past calls cost. The local AI provider costs what a real one
 * does, so the whole flow is exercised offline.
 */

export const CREDIT_FEATURES = [
  'ai_tools',
  'email_draft',
  'dashboard_generate',
  'meeting_summary',
  'enrichment_single',
  'enrichment_bulk_item',
] as const;
export type CreditFeature = (typeof CREDIT_FEATURES)[number];

export interface FeaturePrice {
  feature: CreditFeature;
  name: string;
  description: string;
  /** Credits per call (per item for bulk features). */
  price: number;
  /** What one charge buys. */
  unit: 'call' | 'draft' | 'dashboard' | 'summary' | 'lead';
}

export const FEATURE_PRICES: Record<CreditFeature, FeaturePrice> = {
  ai_tools: {
    feature: 'ai_tools',
    name: 'AI writing tools',
    description: 'One call of POST /api/ai-tools/magicpen or POST /api/ai-tools/email-generator',
    price: 1,
    unit: 'call',
  },
  email_draft: {
    feature: 'email_draft',
    name: 'AI email draft',
    description: 'One draft written or rewritten for a lead (generate, bulk-generate per lead, regenerate)',
    price: 2,
    unit: 'draft',
  },
  dashboard_generate: {
    feature: 'dashboard_generate',
    name: 'AI dashboard',
    description: 'One dashboard definition generated from a prompt (POST /api/ai-dashboards/generate)',
    price: 5,
    unit: 'dashboard',
  },
  meeting_summary: {
    feature: 'meeting_summary',
    name: 'Meeting summary',
    description: 'One summary of a stored meeting transcript (POST /api/meeting/:id/generate-summary)',
    price: 3,
    unit: 'summary',
  },
  enrichment_single: {
    feature: 'enrichment_single',
    name: 'Lead enrichment',
    description: 'One enrichment (POST /api/lead-enrichment/enrich)',
    price: 2,
    unit: 'lead',
  },
  enrichment_bulk_item: {
    feature: 'enrichment_bulk_item',
    name: 'Bulk lead enrichment',
    description: 'One item of a bulk enrichment job (POST /api/lead-enrichment/enrich/bulk), charged per item',
    price: 1,
    unit: 'lead',
  },
};

/**
 * Credits every new organization starts with (signup), and that the credits migration
 * (drizzle/0047_credits.sql) granted every organization that existed before.
 */
export const STARTING_GRANT = 1000;

export function priceOf(feature: CreditFeature): number {
  return FEATURE_PRICES[feature].price;
}
