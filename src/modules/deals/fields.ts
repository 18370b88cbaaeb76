/**
 * The Deal's field table (spec resource "Deal"), from which its zod shapes, selection and
 * presenter derive (core/field-table.ts).
 */
import { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import { defineFields, storedAs } from '../../core/field-table';
import { blankableText, dateInput, isoTimestamp, positiveId, text, timestamp } from '../../core/schemas';
import { deals, stages, pipelines, leads } from '../../db/schema';
import { MAX_DEAL_VALUE } from '../pipelines';

const iso = (value: Date) => isoTimestamp(value) as string;
const isoOrNull = (value: Date | null) => isoTimestamp(value);

export const DEAL_OUTCOMES = ['open', 'won', 'lost'] as const;

const dealValue = z
  .number()
  .min(1, 'must be at least 1')
  .max(MAX_DEAL_VALUE, 'is too large')
  .openapi({ example: 25_000 });

export const calendarDate = dateInput();

const priority = z
  .number()
  .int('must be a whole number')
  .min(1, 'must be 1 (Low) to 4 (Urgent)')
  .max(4, 'must be 1 (Low) to 4 (Urgent)');

const id = (example: number) => positiveId.openapi({ type: 'integer', example });

export const dealFields = defineFields(
  deals,
  {
    id: { column: 'id', description: 'The deal’s id (read-only)', read: z.number().int() },
    lead_id: {
      column: 'leadId',
      description: 'The lead the deal is on (a live lead of the organization)',
      read: z.number().int(),
      create: id(7),
      update: id(7).optional(),
    },
    lead_name: {
      select: sql<
        string | null
      >`(select l.first_name || ' ' || l.last_name from ${leads} l where l.id = "deals"."lead_id")`,
      description: 'The lead’s name (read-only)',
      read: z.string().nullable(),
    },
    pipeline_id: {
      column: 'pipelineId',
      description: 'The pipeline (of the organization); changing it requires a stage_id of the new pipeline',
      read: z.number().int(),
      create: id(3),
      update: id(3).optional(),
    },
    pipeline_name: {
      select: sql<string>`(select p.name from ${pipelines} p where p.id = "deals"."pipeline_id")`,
      description: 'The pipeline’s name (read-only)',
      read: z.string(),
    },
    stage_id: {
      column: 'stageId',
      description: 'The current stage: a stage of the deal’s pipeline',
      read: z.number().int(),
      create: id(12),
      update: id(12).optional(),
    },
    stage_name: {
      select: sql<string>`(select s.name from ${stages} s where s.id = "deals"."stage_id")`,
      description: 'The stage’s name (read-only)',
      read: z.string(),
    },
    title: {
      column: 'title',
      description: 'Title, 2 to 50 characters',
      read: z.string(),
      create: text(2, 50).openapi({ example: 'Annual licence' }),
      update: text(2, 50).optional(),
    },
    value: {
      column: 'value',
      description: 'Value, at least 1 (and at most the pipeline’s max_deal_limit when it has one)',
      read: z.number(),
      create: dealValue,
      update: dealValue.optional(),
    },
    expected_close_date: {
      column: 'expectedCloseDate',
      description: 'Expected close date, YYYY-MM-DD',
      read: z.string().openapi({ format: 'date' }),
      create: calendarDate,
      update: calendarDate.optional(),
    },
    priority: {
      column: 'priority',
      description: '1 Low, 2 Medium, 3 High, 4 Urgent; null: none',
      read: z.number().int().nullable(),
      create: priority.nullish(),
      update: priority.nullish(),
    },
    description: {
      column: 'description',
      description: 'Description, up to 1000 characters',
      read: z.string().nullable(),
      create: blankableText(1000),
      update: blankableText(1000),
    },
    outcome: {
      column: 'outcome',
      description: 'open, won or lost: set by moving into the pipeline’s won or lost stage (read-only)',
      read: z.enum(DEAL_OUTCOMES),
      present: storedAs<(typeof DEAL_OUTCOMES)[number]>(),
    },
    closed_at: {
      column: 'closedAt',
      description: 'When the deal moved into a won or lost stage; null while open (read-only)',
      read: timestamp().nullable(),
      present: isoOrNull,
    },
    stage_entered_at: {
      column: 'stageEnteredAt',
      description: 'When the deal entered its current stage (read-only)',
      read: timestamp(),
      present: iso,
    },
    days_in_stage: {
      // now() is the transaction's start: a move in this very transaction stamps a later instant, so never below 0.
      select: sql<number>`greatest(floor(extract(epoch from now() - "deals"."stage_entered_at") / 86400), 0)::int`,
      description: 'Whole days in the current stage (read-only)',
      read: z.number().int(),
    },
    owner_id: {
      column: 'ownerId',
      description: 'The user who owns the deal: its creator (read-only)',
      read: z.number().int().nullable(),
    },
    created_at: { column: 'createdAt', description: 'When it was created', read: timestamp(), present: iso },
    updated_at: { column: 'updatedAt', description: 'When it last changed', read: timestamp(), present: iso },
  },
  {
    // Scope, and copies kept by triggers for the rollups and the forecast (the lead and the forecast say them on the wire).
    internal: ['organizationId', 'leadCompanyId', 'leadCreatedAt', 'forecastWeightedValue', 'forecastSnapshotDate'],
  },
);
