/**
 * The activity feed (spec "Notifications, files, exports"): who did what to which record,
 * with before/after of the changed fields, newest first by default. Entries are written by
 * each module through `recordFeed`; this route reads them through `listFeed` (service.ts).
 */
import { list } from '../../core/http';
import { createRouter, defineRoute, listEnvelope } from '../../core/routes';
import { FeedEntrySchema } from './schemas';
import { FeedListQuery, listFeed } from './service';

export const feedRoutes = createRouter();

feedRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/feed/list',
    operationId: 'listFeed',
    tags: ['Activity feed'],
    summary: 'Activity-feed entries, e.g. ?model_type=lead&model_id=12 for one lead’s history',
    description:
      "The organization's activity feed: who changed what and when, with before/after of changed fields. Filter by `model_type` and `model_id` for one record's history (e.g. model_type=lead&model_id=12).",
    auth: 'bearer',
    request: { query: FeedListQuery },
    responses: { 200: listEnvelope(FeedEntrySchema) },
  }),
  async (c) => list(c, await listFeed(c.var.tenant, c.req.valid('query'))),
);
