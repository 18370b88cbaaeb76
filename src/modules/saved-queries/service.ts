/**
 * Saved queries: list, view, add, update, delete and execute. A personal query exists only for
 * its owner (anyone else gets 404); team and workspace queries are visible to the organization,
 * and only their owner or an admin changes or deletes them (the seeded defaults, owned by
 * nobody: admins only). Workspace scope is given by admins and managers only.
 */
import { eq, ilike, sql } from 'drizzle-orm';
import { Conflict, Forbidden, NotFound } from '../../core/errors';
import { columnValues } from '../../core/field-table';
import { containsPattern, defineList } from '../../core/list';
import { dashboards, savedQueries } from '../../db/schema';
import { actingUser, isAdmin, isUser, tenantWhere, type TenantContext } from '../../db/tenant';
import { checkQuery, groupedStatement, metricName, type ResultRow, totalStatement } from './compile';
import { type ExecuteQueryInput, numberResult, shapeRows } from './result-shapes';
import {
  type AddQueryInput,
  type QueryDefinitionValue,
  queryListFilters,
  savedQueryFields,
  type SavedQueryView,
  type UpdateQueryInput,
} from './schemas';
import { checkScopeAllowed, visibleTo } from './visibility';

/** Stored definitions are normalised: every key present, so reads are uniform. */
function normalDefinition(definition: QueryDefinitionValue): QueryDefinitionValue {
  return {
    module: definition.module,
    filters: definition.filters ?? {},
    metric: definition.metric.field === undefined ? { op: definition.metric.op } : definition.metric,
    group_by: definition.group_by ?? null,
    bucket: definition.bucket ?? null,
  };
}

const presentQuery = (row: Record<string, unknown>): SavedQueryView => savedQueryFields.present(row);

export const queryList = defineList({
  sort: {
    id: savedQueries.id,
    name: savedQueries.name,
    created_at: savedQueries.createdAt,
    updated_at: savedQueries.updatedAt,
  },
  filters: queryListFilters,
  search: (term) => ilike(savedQueries.name, containsPattern(term)),
  createdAt: savedQueries.createdAt,
  base: (ctx, params) => ({
    rows: (columns) =>
      ctx.db
        .select({ ...savedQueryFields.selection, ...columns })
        .from(savedQueries)
        .$dynamic(),
    where: tenantWhere(
      ctx,
      savedQueries,
      visibleTo(ctx, savedQueries),
      params.module ? eq(savedQueries.module, params.module) : undefined,
      params.scope ? eq(savedQueries.scope, params.scope) : undefined,
    ),
  }),
  present: (row) => presentQuery(row),
});
export const QueryListQuery = queryList.query;

export const listQueries = queryList.run;

async function visibleQuery(ctx: TenantContext, id: number): Promise<SavedQueryView> {
  const [row] = await ctx.db
    .select(savedQueryFields.selection)
    .from(savedQueries)
    .where(tenantWhere(ctx, savedQueries, eq(savedQueries.id, id), visibleTo(ctx, savedQueries)));
  if (!row) throw new NotFound('Saved query', id);
  return presentQuery(row);
}

export async function viewQuery(ctx: TenantContext, id: number) {
  return visibleQuery(ctx, id);
}

/** A query the caller may change: 404 when it cannot see it, 403 `not_query_owner` when not its owner or an admin. */
async function ownedQuery(ctx: TenantContext, id: number): Promise<SavedQueryView> {
  const row = await visibleQuery(ctx, id);
  if (!isUser(ctx.actor, row.user_id) && !isAdmin(ctx.actor))
    throw new Forbidden('Only the owner of a shared query or an admin can change it', 'not_query_owner');
  return row;
}

export async function addQuery(ctx: TenantContext, input: AddQueryInput) {
  checkScopeAllowed(ctx, input.scope);
  checkQuery(input.definition);
  const definition = normalDefinition(input.definition);
  const [row] = await ctx.db
    .insert(savedQueries)
    .values({
      ...columnValues(savedQueryFields.writableColumns, input),
      organizationId: ctx.orgId,
      userId: actingUser(ctx).userId,
      name: input.name,
      scope: input.scope ?? 'personal',
      module: definition.module,
      definition,
    })
    .returning(savedQueryFields.selection);
  return presentQuery(row);
}

/**
 * Dashboards that show the query and that the change would break: any, for a deletion; for a
 * move to personal scope, those that are shared or belong to someone else.
 */
async function refuseIfShown(ctx: TenantContext, row: SavedQueryView, change: 'delete' | 'personal') {
  const shows = sql`${dashboards.definition} @> ${JSON.stringify([{ source: { saved_query_id: row.id } }])}::jsonb`;
  const breaks =
    change === 'delete'
      ? shows
      : sql`${shows} and (${dashboards.scope} <> 'personal' or ${dashboards.userId} is distinct from ${row.user_id})`;
  const [{ count }] = await ctx.db
    .select({ count: sql<number>`count(*)::int` })
    .from(dashboards)
    .where(tenantWhere(ctx, dashboards, breaks));
  if (count > 0)
    throw new Conflict(
      `The query is shown on ${count} dashboard${count === 1 ? '' : 's'}; remove it from them first`,
      'query_in_use',
      { dashboards: count },
    );
}

export async function updateQuery(ctx: TenantContext, id: number, input: UpdateQueryInput) {
  const current = await ownedQuery(ctx, id);
  checkScopeAllowed(ctx, input.scope);
  if (input.definition) checkQuery(input.definition);
  if (input.scope === 'personal' && current.scope !== 'personal') await refuseIfShown(ctx, current, 'personal');
  const definition = input.definition ? normalDefinition(input.definition) : undefined;
  const [row] = await ctx.db
    .update(savedQueries)
    .set({
      ...columnValues(savedQueryFields.updateColumns, input),
      module: definition?.module,
      definition,
      updatedAt: sql`now()`,
    })
    .where(tenantWhere(ctx, savedQueries, eq(savedQueries.id, id)))
    .returning(savedQueryFields.selection);
  return presentQuery(row);
}

export async function deleteQuery(ctx: TenantContext, id: number): Promise<void> {
  const current = await ownedQuery(ctx, id);
  await refuseIfShown(ctx, current, 'delete');
  await ctx.db.delete(savedQueries).where(tenantWhere(ctx, savedQueries, eq(savedQueries.id, id)));
}

/** Runs a visible query: one statement to read it, ONE statement for the aggregate. */
export async function executeQuery(ctx: TenantContext, id: number, input: ExecuteQueryInput) {
  const row = await visibleQuery(ctx, id);
  const stored = row.definition;
  const parameters = input.parameters ?? {};
  const checked = checkQuery(stored, 'definition', { filters: parameters.filters, prefix: 'parameters.filters' });
  const shape = {
    queryId: row.id,
    metric: metricName(stored),
    groupBy: stored.group_by ?? null,
    bucket: stored.bucket ?? null,
  };
  const widgetType = input.widgetType ?? 'table';
  if (widgetType === 'number') {
    const result = await ctx.db.execute<{ value: number | null }>(totalStatement(ctx, checked, parameters));
    return numberResult(shape, result.rows[0]?.value ?? null);
  }
  const result = await ctx.db.execute<ResultRow>(groupedStatement(ctx, checked, parameters));
  return shapeRows(shape, widgetType, result.rows);
}
