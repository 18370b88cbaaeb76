/**
 * The wire shape of an account's health (health.ts computes it).
 */
import { z } from '@hono/zod-openapi';
import { ABM_STAGES, HEALTH_BANDS } from './health';

const points = (max: number) =>
  z
    .number()
    .int()
    .openapi({ description: `Points this component adds to the score (0 to ${max})` });

export const AccountHealth = z
  .object({
    score: z.number().int().openapi({ description: 'Health score, 0 to 100: the sum of the components’ points' }),
    band: z.enum(HEALTH_BANDS).openapi({ description: 'cold below 30, warm from 30, hot from 60' }),
    stage: z.enum(ABM_STAGES).openapi({ description: 'Funnel stage: customer, opportunity, engaged or targeted' }),
    engaged: z
      .boolean()
      .openapi({ description: 'True with any intent signal in the last 30 days or any meeting in its window' }),
    signals: z
      .object({
        count: z.number().int().openapi({ description: 'Intent signals of the account’s leads in the last 30 days' }),
        last_at: timestampOrNull('The latest intent signal of the account’s leads, any time; null: none'),
        points: points(40),
      })
      .openapi({ description: 'Intent signals: 5 points each, at most 40' }),
    meetings: z
      .object({
        count: z.number().int().openapi({
          description:
            'Meetings (not cancelled or no-show) with the company, its contacts or its leads, from 90 days ago to 30 days ahead',
        }),
        points: points(30),
      })
      .openapi({ description: 'Meetings: 10 points each, at most 30' }),
    deals: z
      .object({
        open: z.number().int().openapi({ description: 'Open deals on the account’s leads' }),
        won: z.number().int().openapi({ description: 'Won deals on the account’s leads' }),
        points: points(30),
      })
      .openapi({ description: 'Deals: 30 points with a won deal, else 20 with an open deal' }),
  })
  .openapi('AccountHealth', {
    description: 'How engaged a target account is, and why',
    example: {
      score: 55,
      band: 'warm',
      stage: 'opportunity',
      engaged: true,
      signals: { count: 5, last_at: '2026-01-15T09:30:00.000Z', points: 25 },
      meetings: { count: 1, points: 10 },
      deals: { open: 1, won: 0, points: 20 },
    },
  });

function timestampOrNull(description: string) {
  return z.string().nullable().openapi({ format: 'date-time', description });
}
