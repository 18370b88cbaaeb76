/**
 * The wire and file forms of a lead's score factors (modules/lead-scoring writes them into
 * `ai_information.score`): each factor with its signed contribution in log-odds.
 */
import { z } from '@hono/zod-openapi';

export const ScoreFactorSchema = z
  .object({
    feature: z.string().openapi({ description: 'The feature', example: 'title_seniority' }),
    label: z.string().openapi({ description: 'What the feature measures', example: 'Seniority of the job title' }),
    value: z.number().openapi({ description: 'The feature’s value for this lead, 0 to 1', example: 0.8 }),
    contribution: z
      .number()
      .openapi({ description: 'Signed contribution to the score in log-odds: weight × (value − mean)', example: 0.6 }),
  })
  .openapi('ScoreFactor', {
    description: 'One factor of a lead’s score',
    example: { feature: 'title_seniority', label: 'Seniority of the job title', value: 0.8, contribution: 0.6 },
  });

export type ScoreFactor = z.infer<typeof ScoreFactorSchema>;

/** `ai_information.score` as stored (only the factor lists are read here). */
export interface ScoreFactorsCell {
  positive_factors?: ScoreFactor[];
  negative_factors?: ScoreFactor[];
}

const signed = (value: number) => (value >= 0 ? `+${value}` : `${value}`);

/** The export cell: `title_seniority +0.6; engagement -0.3`, strongest first on each side. */
export function scoreFactorsCell(value: ScoreFactorsCell | null): string | null {
  if (!value) return null;
  const factors = [...(value.positive_factors ?? []), ...(value.negative_factors ?? [])];
  return factors.length ? factors.map((factor) => `${factor.feature} ${signed(factor.contribution)}`).join('; ') : null;
}
