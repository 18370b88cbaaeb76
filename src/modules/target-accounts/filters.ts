/**
 * The target-account list's own query parameters: health band, tier, owner, search and the
 * spec's `sort` (an order_by key, "-" in front for descending).
 */
import { z } from '@hono/zod-openapi';
import { positiveId } from '../../core/schemas';
import { HEALTH_BANDS } from './health';

/** The list's order_by keys (service.ts sorts by exactly these). */
export const TARGET_ACCOUNT_SORT_KEYS = [
  'id',
  'health_score',
  'icp_fit_score',
  'tier',
  'company_name',
  'created_at',
  'updated_at',
] as const;
const SORT_VALUES = TARGET_ACCOUNT_SORT_KEYS.flatMap((key) => [key, `-${key}`]) as [string, ...string[]];

export const targetAccountListFilters = {
  health: z
    .enum(HEALTH_BANDS, { error: `must be one of ${HEALTH_BANDS.join(', ')}` })
    .optional()
    .openapi({
      description: 'Accounts in this health band: cold (score below 30), warm (30 to 59), hot (60 and above)',
    }),
  tier: z.coerce
    .number()
    .int('must be 1, 2 or 3')
    .min(1, 'must be 1, 2 or 3')
    .max(3, 'must be 1, 2 or 3')
    .optional()
    .openapi({ type: 'integer', enum: [1, 2, 3], description: 'Accounts of this tier' }),
  owner_id: positiveId.optional().openapi({ type: 'integer', description: 'Accounts owned by this user' }),
  search: z
    .string()
    .trim()
    .max(200)
    .optional()
    .openapi({ description: 'Accounts whose company name contains this text (any letter case); like search_value' }),
  sort: z
    .enum(SORT_VALUES, { error: `must be one of ${TARGET_ACCOUNT_SORT_KEYS.join(', ')}, optionally prefixed by -` })
    .optional()
    .openapi({
      description:
        'Order, overriding order_by/order_in: a sort field (ascending) or "-" and the field (descending), e.g. -health_score',
    }),
};
