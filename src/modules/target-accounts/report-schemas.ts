/**
 * Response shapes of the ABM reports.
 */
import { z } from '@hono/zod-openapi';
import { ABM_STAGES } from './health';
import { TargetAccountView } from './schemas';

export const AbmFunnel = z
  .object({
    total: z.number().int().openapi({ description: 'Target accounts counted (not archived, of live companies)' }),
    stages: z
      .array(
        z
          .object({
            stage: z.enum(ABM_STAGES).openapi({ description: 'targeted, engaged, opportunity or customer' }),
            count: z.number().int().openapi({ description: 'Accounts at this stage now' }),
            reached: z.number().int().openapi({ description: 'Accounts at this stage or a later one' }),
            conversion_rate: z.number().nullable().openapi({
              description:
                'reached / reached of the stage before (0 to 1, 4 decimals); null for targeted, or when no account reached the stage before',
            }),
          })
          .openapi({ description: 'One funnel stage' }),
      )
      .openapi({ description: 'The four stages in funnel order' }),
  })
  .openapi('AbmFunnel', {
    description: 'Target accounts by funnel stage, with conversion between consecutive stages',
    example: {
      total: 10,
      stages: [
        { stage: 'targeted', count: 4, reached: 10, conversion_rate: null },
        { stage: 'engaged', count: 3, reached: 6, conversion_rate: 0.6 },
        { stage: 'opportunity', count: 2, reached: 3, conversion_rate: 0.5 },
        { stage: 'customer', count: 1, reached: 1, conversion_rate: 0.3333 },
      ],
    },
  });

export const EngagedAccount = TargetAccountView.extend({
  reasons: z
    .array(z.string())
    .openapi({ description: 'What made the score, in plain words (empty when nothing scored)' }),
}).openapi('EngagedAccount', {
  description: 'A target account with the reasons of its health score',
  example: {
    id: 8,
    company_id: 3,
    company_name: 'Initech',
    owner_id: 4,
    tier: 1,
    estimated_decision_makers: 6,
    icp_fit_score: 85,
    status: 'active',
    health: {
      score: 55,
      band: 'warm',
      stage: 'opportunity',
      engaged: true,
      signals: { count: 5, last_at: '2026-01-15T09:30:00.000Z', points: 25 },
      meetings: { count: 1, points: 10 },
      deals: { open: 1, won: 0, points: 20 },
    },
    created_by: 1,
    created_at: '2026-01-15T09:30:00.000Z',
    updated_at: '2026-01-15T09:30:00.000Z',
    reasons: [
      '5 intent signals in the last 30 days (+25)',
      '1 meeting from 90 days ago to 30 days ahead (+10)',
      '1 open deal (+20)',
    ],
  },
});
