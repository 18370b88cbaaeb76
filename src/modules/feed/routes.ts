/**
 * The activity feed (spec "Notifications, files, exports"): who did what to which record,
 * with before/after of the changed fields, newest first by default. Entries are written by
 * each module through `recordFeed` (service.ts); this route only reads them.
 */
import { z } from '@hono/zod-openapi';
import { eq, ilike, type SQL } from 'drizzle-orm';
import { feedEntries, users } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { list } from '../../core/http';
import { containsPattern, dateRange, listPage, listQuery, type ListParams, pageOf, countOf } from '../../core/list';
import { createRouter, defineRoute, listEnvelope } from '../../core/routes';
import { isoTimestamp, positiveId } from '../../core/schemas';

export const feedRoutes = createRouter();

const FeedListQuery = listQuery(['id', 'created_at'] as const, {
  model_type: z.string().trim().min(1).max(50).optional().openapi({ description: 'Kind of record, e.g. lead', example: 'lead' }),
  model_id: positiveId.optional().openapi({ description: 'Id of the record', type: 'integer' }),
});

const FeedEntrySchema = z
  .object({
    id: z.number().int(),
    model_type: z.string(),
    model_id: z.number().int(),
    action: z.string().openapi({ example: 'updated' }),
    changes: z.record(z.string(), z.object({ from: z.unknown(), to: z.unknown() })),
    actor_user_id: z.number().int().nullable(),
    actor_name: z.string().nullable(),
    actor_api_key_id: z.number().int().nullable(),
    created_at: z.string(),
  })
  .openapi('FeedEntry');

async function listFeed(ctx: TenantContext, params: ListParams & { model_type?: string; model_id?: number }) {
  const where: SQL = tenantWhere(
    ctx,
    feedEntries,
    params.model_type ? eq(feedEntries.modelType, params.model_type) : undefined,
    params.model_id ? eq(feedEntries.modelId, params.model_id) : undefined,
    params.search_value ? ilike(feedEntries.action, containsPattern(params.search_value)) : undefined,
    dateRange(feedEntries.createdAt, params),
  );
  const page = await listPage({
    params,
    sortColumns: { id: feedEntries.id, created_at: feedEntries.createdAt },
    idColumn: feedEntries.id,
    where,
    fetch: (q) => pageOf(ctx.db.select({ entry: feedEntries, id: feedEntries.id, firstName: users.firstName, lastName: users.lastName, sortKey: q.sortKey }).from(feedEntries).leftJoin(users, eq(users.id, feedEntries.actorUserId)).$dynamic(), q),
    count: countOf(ctx.db, feedEntries),
  });
  return {
    ...page,
    rows: page.rows.map(({ entry, firstName, lastName }) => ({
      id: entry.id,
      model_type: entry.modelType,
      model_id: entry.modelId,
      action: entry.action,
      changes: entry.changes,
      actor_user_id: entry.actorUserId,
      actor_name: firstName ? [firstName, lastName].filter(Boolean).join(' ') : null,
      actor_api_key_id: entry.actorApiKeyId,
      created_at: isoTimestamp(entry.createdAt) as string,
    })),
  };
}

feedRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/feed/list',
    operationId: 'listFeed',
    tags: ['Activity feed'],
    summary: 'Activity-feed entries, e.g. ?model_type=lead&model_id=12 for one lead’s history',
    auth: 'bearer',
    request: { query: FeedListQuery },
    responses: { 200: listEnvelope(FeedEntrySchema) },
  }),
  async (c) => list(c, await listFeed(c.var.tenant, c.req.valid('query'))),
);
