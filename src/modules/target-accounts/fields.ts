/**
 * The target account's field table (spec "Target accounts"), from which its zod shapes,
 * selection and presenter derive (core/field-table.ts). `health` reads the `health` lateral
 * join (health.ts), so every select of these fields joins it.
 */
import { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import { defineFields, storedAs } from '../../core/field-table';
import { isoTimestamp, nullishAs, positiveId, timestamp } from '../../core/schemas';
import { targetAccounts, companies } from '../../db/schema';
import { HEALTH_BANDS, healthJson, type HealthJson, presentHealth } from './health';
import { AccountHealth } from './health-schema';

const iso = (value: Date) => isoTimestamp(value) as string;

/** 1: one-to-one strategic accounts, 2: one-to-few, 3: one-to-many (programmatic). */
export const TIERS = [1, 2, 3] as const;
export const DEFAULT_TIER = 3;
/** active: being worked; paused: on hold; archived: no longer targeted (kept for history). */
export const ACCOUNT_STATUSES = ['active', 'paused', 'archived'] as const;

const tier = z
  .number()
  .int('must be 1, 2 or 3')
  .min(1, 'must be 1, 2 or 3')
  .max(3, 'must be 1, 2 or 3')
  .openapi({ type: 'integer', enum: [...TIERS], example: 1 });
const icpFitScore = z
  .number()
  .int('must be a whole number from 0 to 100')
  .min(0, 'must be from 0 to 100')
  .max(100, 'must be from 0 to 100');
const decisionMakers = z
  .number()
  .int('must be a whole number')
  .min(0, 'must be 0 or more')
  .max(10_000, 'must be at most 10000');
const status = z.enum(ACCOUNT_STATUSES, { error: `must be one of ${ACCOUNT_STATUSES.join(', ')}` });
const userId = positiveId.openapi({ type: 'integer', example: 4 });

export const targetAccountFields = defineFields(
  targetAccounts,
  {
    id: { column: 'id', description: 'The target account’s id (read-only)', read: z.number().int() },
    company_id: {
      column: 'companyId',
      description:
        'The company targeted: a live company of the organization, targeted at most once (read-only after create)',
      read: z.number().int(),
      create: positiveId.openapi({ type: 'integer', example: 3 }),
    },
    company_name: {
      select: sql<string>`(select c.company_name from ${companies} c where c.id = ${targetAccounts.companyId})`,
      description: 'The company’s name (read-only)',
      read: z.string(),
    },
    owner_id: {
      column: 'ownerId',
      description: 'The user who owns the account (a user of the organization); null: nobody',
      read: z.number().int().nullable(),
      create: nullishAs(userId, 'integer'),
      update: nullishAs(userId, 'integer'),
    },
    tier: {
      column: 'tier',
      description: 'ABM tier: 1 one-to-one (strategic), 2 one-to-few, 3 one-to-many (the default)',
      read: z.number().int(),
      create: tier.optional(),
      update: tier.optional(),
    },
    estimated_decision_makers: {
      column: 'estimatedDecisionMakers',
      description: 'How many people are expected in the buying group, 0 to 10000; null: unknown',
      read: z.number().int().nullable(),
      create: nullishAs(decisionMakers, 'integer'),
    },
    icp_fit_score: {
      column: 'icpFitScore',
      description: 'How well the company fits the ideal customer profile, 0 to 100; null: not scored',
      read: z.number().int().nullable(),
      create: nullishAs(icpFitScore, 'integer'),
      update: nullishAs(icpFitScore, 'integer'),
    },
    status: {
      column: 'status',
      description: `Account status: ${ACCOUNT_STATUSES.join(', ')} (active by default)`,
      read: z.enum(ACCOUNT_STATUSES),
      present: storedAs<(typeof ACCOUNT_STATUSES)[number]>(),
      create: status.optional(),
      update: status.optional(),
    },
    health: {
      select: healthJson,
      description: `Account health: score 0 to 100, band (${HEALTH_BANDS.join(', ')}), funnel stage and the components that made it (see docs/domains/target-accounts.md, Account health)`,
      read: AccountHealth,
      present: (value: HealthJson) => presentHealth(value),
    },
    created_by: {
      column: 'createdBy',
      description: 'The user who targeted the company (read-only)',
      read: z.number().int().nullable(),
    },
    created_at: { column: 'createdAt', description: 'When it was created', read: timestamp(), present: iso },
    updated_at: { column: 'updatedAt', description: 'When it last changed', read: timestamp(), present: iso },
  },
  {
    // Scope.
    internal: ['organizationId'],
  },
);
