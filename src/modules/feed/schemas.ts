/**
 * Request and response shapes of the activity feed.
 */
import { z } from '@hono/zod-openapi';
import { positiveId, timestamp } from '../../core/schemas';

/** Filters of the list beyond the standard list parameters (the list itself: service.ts). */
export const feedListFilters = {
  model_type: z
    .string()
    .trim()
    .min(1)
    .max(50)
    .optional()
    .openapi({ description: 'Kind of record, e.g. lead', example: 'lead' }),
  model_id: positiveId.optional().openapi({ description: 'Id of the record', type: 'integer' }),
};

export const FeedEntrySchema = z
  .object({
    id: z.number().int(),
    model_type: z.string(),
    model_id: z.number().int(),
    action: z.string().openapi({ example: 'updated' }),
    changes: z.record(z.string(), z.object({ from: z.unknown(), to: z.unknown() })),
    actor_user_id: z.number().int().nullable(),
    actor_name: z.string().nullable(),
    actor_api_key_id: z.number().int().nullable(),
    created_at: timestamp(),
  })
  .openapi('FeedEntry');
