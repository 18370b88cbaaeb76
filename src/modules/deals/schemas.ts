/**
 * Request and response shapes of the deal endpoints, from the field table (fields.ts).
 */
import { z } from '@hono/zod-openapi';
import { idsBody, timestamp } from '../../core/schemas';
import { dealFields } from './fields';

export const AddDealBody = z.object(dealFields.createShape).openapi('AddDealRequest', {
  description: 'A deal on a lead, in a stage of a pipeline',
  example: {
    lead_id: 7,
    pipeline_id: 3,
    stage_id: 12,
    title: 'Annual licence',
    value: 25000,
    expected_close_date: '2026-06-30',
    priority: 3,
  },
});

export const UpdateDealBody = z
  .object(dealFields.updateShape)
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message: 'give at least one field to change',
    path: ['title'],
  })
  .openapi('UpdateDealRequest', {
    description:
      'The deal fields to change; omitted ones keep their value. A new stage_id moves the deal (recorded in its stage history); a new pipeline_id needs a stage_id of that pipeline',
    example: { stage_id: 13, value: 30000 },
  });

export const DeleteDealsBody = z
  .object({ ids: idsBody.openapi({ description: 'Ids of deals to delete', example: [5] }) })
  .openapi('DeleteDealsRequest', { description: 'Deals to delete', example: { ids: [5] } });

const exampleDeal = {
  id: 5,
  lead_id: 7,
  lead_name: 'Grace Hopper',
  pipeline_id: 3,
  pipeline_name: 'Sales pipeline',
  stage_id: 12,
  stage_name: 'Proposal',
  title: 'Annual licence',
  value: 25000,
  expected_close_date: '2026-06-30',
  priority: 3,
  description: null,
  outcome: 'open',
  closed_at: null,
  stage_entered_at: '2026-01-15T09:30:00.000Z',
  days_in_stage: 4,
  owner_id: 1,
  created_at: '2026-01-15T09:30:00.000Z',
  updated_at: '2026-01-15T09:30:00.000Z',
};

export const DealView = z.object(dealFields.readShape).openapi('Deal', { description: 'A deal', example: exampleDeal });

export const StageChangeRecord = z
  .object({
    id: z.number().int().openapi({ description: 'The record’s id' }),
    from_stage_id: z.number().int().nullable().openapi({ description: 'The stage left; null for the creation' }),
    from_stage_name: z.string().nullable().openapi({ description: 'Its name (null once the stage is removed)' }),
    to_stage_id: z.number().int().openapi({ description: 'The stage entered' }),
    to_stage_name: z.string().nullable().openapi({ description: 'Its name (null once the stage is removed)' }),
    changed_at: timestamp('When the deal moved'),
    changed_by: z.number().int().nullable().openapi({ description: 'The user who moved it' }),
    days_in_from_stage: z
      .number()
      .nullable()
      .openapi({ description: 'Days (with decimals) the deal spent in the stage it left; null for the creation' }),
  })
  .openapi('DealStageChange', {
    description: 'One stage change of a deal',
    example: {
      id: 9,
      from_stage_id: 11,
      from_stage_name: 'Qualification',
      to_stage_id: 12,
      to_stage_name: 'Proposal',
      changed_at: '2026-01-20T09:30:00.000Z',
      changed_by: 1,
      days_in_from_stage: 5,
    },
  });

export const DealWithHistory = DealView.extend({
  stage_history: z.array(StageChangeRecord).openapi({ description: 'Its stage changes, oldest first' }),
}).openapi('DealWithHistory', {
  description: 'A deal with its stage history',
  example: { ...exampleDeal, stage_history: [] },
});

export type AddDealInput = z.output<typeof AddDealBody>;
export type UpdateDealInput = z.output<typeof UpdateDealBody>;
export type DealViewValue = z.output<typeof DealView>;
