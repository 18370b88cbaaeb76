/**
 * Request and response shapes of the activity feed.
 */
import { z } from '@hono/zod-openapi';
import { positiveId, timestamp } from '../../core/schemas';

/** Filters of the list beyond the standard list parameters (the list itself: service.ts). */
/** The kinds of record the feed holds entries of (feed writers: leads, contacts, companies, deals, voice, files). */
export const FEED_MODEL_TYPES = ['lead', 'contact', 'company', 'deal'] as const;

export const feedListFilters = {
  // Any other value is a 400 naming it (`leads` used to answer an empty feed); case does not matter.
  model_type: z
    .string()
    .trim()
    .max(50)
    .toLowerCase()
    .pipe(z.enum(FEED_MODEL_TYPES))
    .optional()
    .openapi({
      type: 'string',
      enum: [...FEED_MODEL_TYPES],
      description: 'Kind of record: lead, contact, company or deal (case-insensitive)',
      example: 'lead',
    }),
  model_id: positiveId.optional().openapi({ description: 'Id of the record', type: 'integer' }),
};

export const FeedEntrySchema = z
  .object({
    id: z.number().int().openapi({ description: 'The entry’s id' }),
    model_type: z.string().openapi({ description: 'Kind of record changed: lead, contact, company or deal' }),
    model_id: z.number().int().openapi({ description: 'Id of the record changed' }),
    action: z.string().openapi({
      description:
        'What happened, e.g. created, updated, deleted, restored (leads, contacts, companies), assigned, status_changed, note_added, document_added, file_attached, deal_stage_changed',
      example: 'updated',
    }),
    changes: z
      .record(
        z.string(),
        z
          .object({
            from: z.unknown().openapi({ description: 'The value before; null when there was none' }),
            to: z.unknown().openapi({ description: 'The value after; null when it was removed' }),
          })
          .openapi({ description: 'One changed field' }),
      )
      .openapi({ description: 'The changed fields by name, each with its value before and after' }),
    actor_user_id: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'The user who made the change (an API key’s creator for key calls); null: none' }),
    actor_name: z.string().nullable().openapi({ description: 'That user’s name; null when there is no such user' }),
    actor_api_key_id: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'The API key the change came through; null for users’ own requests and jobs' }),
    created_at: timestamp('When it happened'),
  })
  .openapi('FeedEntry', {
    description: 'One change of a record',
    example: {
      id: 120,
      model_type: 'lead',
      model_id: 1,
      action: 'status_changed',
      changes: { status: { from: 1, to: 3 } },
      actor_user_id: 1,
      actor_name: 'Ada Lovelace',
      actor_api_key_id: null,
      created_at: '2026-01-15T09:30:00.000Z',
    },
  });
