/**
 * Request and response shapes of the credits endpoints, and the 402 every paid route declares.
 */
import { z } from '@hono/zod-openapi';
import { paymentRequiredResponse } from '../../core/routes';
import { operatorOrganizationId } from '../../core/schemas';
import { CREDIT_FEATURES } from './prices';

const feature = z.enum(CREDIT_FEATURES).openapi({ description: 'The priced feature', example: 'email_draft' });

export const FeatureUsage = z
  .object({
    feature,
    name: z.string().openapi({ description: 'The feature’s display name', example: 'AI email draft' }),
    credits: z.number().int().openapi({ description: 'Credits settled for it this month', example: 24 }),
    calls: z.number().int().openapi({ description: 'Settled calls (or items) this month', example: 12 }),
  })
  .openapi('CreditFeatureUsage', {
    description: 'One feature’s use this month',
    example: { feature: 'email_draft', name: 'AI email draft', credits: 24, calls: 12 },
  });

export const CreditSummarySchema = z
  .object({
    balance: z.number().int().openapi({
      description: 'Credits available now: everything granted, less what was spent and what open reservations hold',
      example: 968,
    }),
    reserved: z.number().int().openapi({
      description: 'Credits held by calls still running (reserved, neither settled nor refunded yet)',
      example: 2,
    }),
    granted_total: z
      .number()
      .int()
      .openapi({ description: 'Every credit ever granted to the organization', example: 1000 }),
    period_start: z
      .string()
      .openapi({ description: 'Start of this month (UTC), inclusive', example: '2026-11-01T00:00:00.000Z' }),
    period_end: z
      .string()
      .openapi({ description: 'Start of next month (UTC), exclusive', example: '2026-12-01T00:00:00.000Z' }),
    used_this_month: z
      .number()
      .int()
      .openapi({ description: 'Credits settled this month, all features together', example: 30 }),
    usage_by_feature: z.array(FeatureUsage).openapi({
      description: 'This month’s use per feature, every priced feature listed (0 when unused)',
    }),
  })
  .openapi('CreditSummary', {
    description: 'The organization’s credit balance and this month’s use by feature',
    example: {
      balance: 968,
      reserved: 2,
      granted_total: 1000,
      period_start: '2026-11-01T00:00:00.000Z',
      period_end: '2026-12-01T00:00:00.000Z',
      used_this_month: 30,
      usage_by_feature: [{ feature: 'email_draft', name: 'AI email draft', credits: 24, calls: 12 }],
    },
  });

export const FeaturePriceSchema = z
  .object({
    feature,
    name: z.string().openapi({ description: 'Display name', example: 'AI email draft' }),
    description: z.string().openapi({
      description: 'What one charge buys, and which routes charge it',
      example: 'One draft written or rewritten for a lead (generate, bulk-generate per lead, regenerate)',
    }),
    price: z.number().int().openapi({ description: 'Credits per unit', example: 2 }),
    unit: z
      .enum(['call', 'draft', 'dashboard', 'summary', 'lead'])
      .openapi({ description: 'What one charge is for', example: 'draft' }),
  })
  .openapi('CreditFeaturePrice', {
    description: 'The price of one paid feature',
    example: {
      feature: 'email_draft',
      name: 'AI email draft',
      description: 'One draft written or rewritten for a lead (generate, bulk-generate per lead, regenerate)',
      price: 2,
      unit: 'draft',
    },
  });

export const GrantCreditsBody = z
  .object({
    organization_id: operatorOrganizationId('The organization credited'),
    amount: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .openapi({ description: 'Credits to add, 1 to 1 000 000', example: 500 }),
    note: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .openapi({ description: 'Why (kept on the ledger row), up to 200 characters', example: 'Annual plan top-up' }),
  })
  .openapi('GrantCreditsRequest', {
    description: 'A grant of credits to one organization',
    example: { organization_id: 12, amount: 500, note: 'Top-up' },
  });

export const CreditGrantSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The grant’s ledger row', example: 41 }),
    organization_id: z.number().int().openapi({ description: 'The organization credited', example: 12 }),
    amount: z.number().int().openapi({ description: 'Credits granted', example: 500 }),
    balance: z.number().int().openapi({ description: 'The balance after the grant', example: 1468 }),
  })
  .openapi('CreditGrant', {
    description: 'A recorded grant',
    example: { id: 41, organization_id: 12, amount: 500, balance: 1468 },
  });

/** The 402 of every route that charges credits. */
export const insufficientCreditsResponse = paymentRequiredResponse(
  'InsufficientCredits',
  'Not enough credits (error.code insufficient_credits; error.details gives the feature, its price and the balance); nothing was generated or charged',
  {
    code: 'insufficient_credits',
    details: z.object({
      feature,
      price: z.number().int().openapi({ description: 'Credits the call costs', example: 2 }),
      balance: z.number().int().openapi({ description: 'Credits available', example: 1 }),
    }),
    example: { feature: 'email_draft', price: 2, balance: 1 },
  },
);
