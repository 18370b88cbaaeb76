/**
 * The field tables of the Pipeline and the Stage (spec resources), from which their zod shapes,
 * selections and presenters derive (core/field-table.ts).
 */
import { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import { defineFields } from '../../core/field-table';
import { blankableText, isoTimestamp, text, timestamp } from '../../core/schemas';
import { pipelines, stages } from '../../db/schema';

const iso = (value: Date) => isoTimestamp(value) as string;

export const MAX_DEAL_VALUE = 999_999_999_999.99;

const money = z.number().min(1, 'must be at least 1').max(MAX_DEAL_VALUE, 'is too large').openapi({ example: 50_000 });

const stateId = z.union([z.literal(0), z.literal(1)], { error: 'must be 1 (active) or 0 (inactive)' });

export const pipelineFields = defineFields(
  pipelines,
  {
    id: { column: 'id', description: 'The pipeline’s id (read-only)', read: z.number().int() },
    name: {
      column: 'name',
      description: 'Name, 2 to 100 characters',
      read: z.string(),
      create: text(2, 100).openapi({ example: 'Enterprise' }),
      update: text(2, 100).optional(),
    },
    description: {
      column: 'description',
      description: 'Description, up to 1000 characters',
      read: z.string().nullable(),
      create: blankableText(1000),
      update: blankableText(1000),
    },
    max_deal_limit: {
      column: 'maxDealLimit',
      description: 'The largest deal value this pipeline accepts (a deal above it is refused); null: no cap',
      read: z.number().nullable(),
      create: money.nullish(),
      update: money.nullish(),
    },
    region: {
      column: 'region',
      description: 'A free label such as EMEA, up to 100 characters',
      read: z.string().nullable(),
      create: blankableText(100),
      update: blankableText(100),
    },
    state_id: {
      column: 'stateId',
      description: '1 active, 0 inactive (default 1)',
      read: z.number().int(),
      create: stateId.default(1).openapi({ type: 'integer', enum: [0, 1] }),
      update: stateId.optional().openapi({ type: 'integer', enum: [0, 1] }),
    },
    is_default: {
      column: 'isDefault',
      description:
        'The pipeline signup created (read-only): it cannot be deleted, its Won and Lost stages are protected',
      read: z.boolean(),
    },
    stage_count: {
      select: sql<number>`(select count(*)::int from ${stages} s where s.pipeline_id = "pipelines"."id")`,
      description: 'How many stages it has (read-only)',
      read: z.number().int(),
    },
    created_at: { column: 'createdAt', description: 'When it was created', read: timestamp(), present: iso },
    updated_at: { column: 'updatedAt', description: 'When it last changed', read: timestamp(), present: iso },
  },
  {
    // Scope and provenance.
    internal: ['organizationId', 'createdBy'],
  },
);

export const stageName = text(1, 50).openapi({ example: 'Proposal' });
const probability = z
  .number()
  .min(0, 'must be between 0 and 1')
  .max(1, 'must be between 0 and 1')
  .openapi({ example: 0.5 });
const maxDays = z.number().int('must be a whole number').min(1, 'must be at least 1').max(3650, 'must be at most 3650');

/** Stage fields; written only through a pipeline's `stages` (add and update). */
export const stageFields = defineFields(
  stages,
  {
    id: { column: 'id', description: 'The stage’s id (read-only)', read: z.number().int() },
    pipeline_id: { column: 'pipelineId', description: 'The pipeline it belongs to', read: z.number().int() },
    name: {
      column: 'name',
      description: 'Name, 1 to 50 characters (a protected stage cannot be renamed)',
      read: z.string(),
      create: stageName,
      update: stageName.optional(),
    },
    color: {
      column: 'color',
      description: 'Display color, e.g. #3B82F6 (up to 20 characters)',
      read: z.string().nullable(),
      create: blankableText(20),
      update: blankableText(20),
    },
    position: {
      column: 'position',
      description:
        'Order in the pipeline, 0-based; positions are kept dense and unique (stages are renumbered in the order given)',
      read: z.number().int(),
      create: z.number().int().min(0).max(1000).optional(),
      update: z.number().int().min(0).max(1000).optional(),
    },
    is_won: {
      column: 'isWon',
      description: 'Deals here are won (at most one won stage per pipeline; probability 1)',
      read: z.boolean(),
      create: z.boolean().default(false),
      update: z.boolean().optional(),
    },
    is_lost: {
      column: 'isLost',
      description: 'Deals here are lost (at most one lost stage per pipeline; probability 0)',
      read: z.boolean(),
      create: z.boolean().default(false),
      update: z.boolean().optional(),
    },
    probability: {
      column: 'probability',
      description: 'Chance a deal here closes won, 0 to 1 (default 1 won, 0 lost, 0.5 otherwise)',
      read: z.number(),
      create: probability.optional(),
      update: probability.optional(),
    },
    max_days_in_stage: {
      column: 'maxDaysInStage',
      description: 'Days a deal should stay here at most (1 to 3650); beyond it the deal is stalled; null: no limit',
      read: z.number().int().nullable(),
      create: maxDays.nullish(),
      update: maxDays.nullish(),
    },
    is_protected: {
      column: 'isProtected',
      description: 'Protected (read-only): cannot be renamed, re-flagged or removed',
      read: z.boolean(),
    },
  },
  {
    // Scope; a stage's timestamps are not on the wire (its pipeline's are).
    internal: ['organizationId', 'createdAt', 'updatedAt'],
  },
);
