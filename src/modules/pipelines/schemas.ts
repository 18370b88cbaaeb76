/**
 * Request and response shapes of the pipeline endpoints, from the field tables (fields.ts).
 */
import { z } from '@hono/zod-openapi';
import { idsBody, positiveId } from '../../core/schemas';
import { pipelineFields, stageFields } from './fields';

export const MAX_STAGES = 30;

export const StageInput = z
  .object(stageFields.createShape)
  .strict()
  .openapi('StageInput', {
    description: 'A stage created with its pipeline',
    example: { name: 'Proposal', color: '#3B82F6', position: 2, probability: 0.5, max_days_in_stage: 21 },
  });

export const StageChange = z
  .object({
    id: positiveId
      .optional()
      .openapi({ description: 'An existing stage of this pipeline to change; absent: a new stage' }),
    ...stageFields.updateShape,
  })
  .strict()
  .openapi('StageChange', {
    description:
      'A stage of the pipeline after the update: an existing one (id) with its changes, or a new one (name required)',
    example: { id: 12, name: 'Proposal sent', probability: 0.6 },
  });

export const AddPipelineBody = z
  .object({
    ...pipelineFields.createShape,
    stages: z
      .array(StageInput)
      .min(1, 'a pipeline keeps at least one stage')
      .max(MAX_STAGES, `at most ${MAX_STAGES} stages`)
      .optional()
      .openapi({
        description:
          'Its stages, in order, at least one (an empty list is a 422); absent: the default stages (Prospecting … Won, Lost)',
      }),
  })
  .openapi('AddPipelineRequest', {
    description: 'A pipeline and its stages',
    example: {
      name: 'Enterprise',
      max_deal_limit: 500000,
      region: 'EMEA',
      stages: [
        { name: 'Discovery', probability: 0.2, max_days_in_stage: 14 },
        { name: 'Won', is_won: true },
        { name: 'Lost', is_lost: true },
      ],
    },
  });

export const UpdatePipelineBody = z
  .object({
    ...pipelineFields.updateShape,
    stages: z
      .array(StageChange)
      .min(1, 'a pipeline keeps at least one stage')
      .max(MAX_STAGES, `at most ${MAX_STAGES} stages`)
      .optional()
      .openapi({
        description:
          'The full list of stages after the update, in order: existing stages by id (with their changes), new ones without; a stage left out is removed (refused with 409 while it holds deals or is protected)',
      }),
  })
  .openapi('UpdatePipelineRequest', {
    description: 'The pipeline fields to change; omitted ones keep their value',
    example: { name: 'Enterprise EMEA', state_id: 1 },
  });

export const DeletePipelinesBody = z
  .object({ ids: idsBody.openapi({ description: 'Ids of pipelines to delete', example: [3] }) })
  .openapi('DeletePipelinesRequest', { description: 'Pipelines to delete', example: { ids: [3] } });

const STAGE_EXAMPLE = {
  id: 12,
  pipeline_id: 3,
  name: 'Proposal',
  color: '#3B82F6',
  position: 2,
  is_won: false,
  is_lost: false,
  probability: 0.5,
  max_days_in_stage: 21,
  is_protected: false,
};

export const StageView = z.object(stageFields.readShape).openapi('Stage', {
  description: 'A stage of a pipeline',
  example: STAGE_EXAMPLE,
});

export const StageWithTotals = StageView.extend({
  deal_count: z.number().int().openapi({ description: 'Deals in this stage' }),
  total_value: z.number().openapi({ description: 'Sum of the values of the deals in this stage' }),
}).openapi('StageWithTotals', {
  description: 'A stage with the number and total value of its deals',
  example: {
    ...STAGE_EXAMPLE,
    deal_count: 4,
    total_value: 120000,
  },
});

export const PipelineView = z.object(pipelineFields.readShape).openapi('Pipeline', {
  description: 'A sales pipeline',
  example: {
    id: 3,
    name: 'Enterprise',
    description: null,
    max_deal_limit: 500000,
    region: 'EMEA',
    state_id: 1,
    is_default: false,
    stage_count: 3,
    created_at: '2026-01-15T09:30:00.000Z',
    updated_at: '2026-01-15T09:30:00.000Z',
  },
});

export const PipelineWithStages = PipelineView.extend({
  stages: z.array(StageView).openapi({ description: 'Its stages in position order' }),
}).openapi('PipelineWithStages', {
  description: 'A pipeline with its stages',
  example: {
    id: 3,
    name: 'Enterprise',
    description: null,
    max_deal_limit: 500000,
    region: 'EMEA',
    state_id: 1,
    is_default: false,
    stage_count: 1,
    created_at: '2026-01-15T09:30:00.000Z',
    updated_at: '2026-01-15T09:30:00.000Z',
    stages: [
      {
        id: 12,
        pipeline_id: 3,
        name: 'Won',
        color: '#22C55E',
        position: 0,
        is_won: true,
        is_lost: false,
        probability: 1,
        max_days_in_stage: null,
        is_protected: false,
      },
    ],
  },
});

export const pipelineListFilters = {
  state_id: z.enum(['0', '1']).optional().openapi({ description: '1 active pipelines only, 0 inactive only' }),
};

export type AddPipelineInput = z.output<typeof AddPipelineBody>;
export type UpdatePipelineInput = z.output<typeof UpdatePipelineBody>;
export type StageInputValue = z.output<typeof StageInput>;
export type StageChangeValue = z.output<typeof StageChange>;
export type PipelineViewValue = z.output<typeof PipelineView>;
export type StageViewValue = z.output<typeof StageView>;
