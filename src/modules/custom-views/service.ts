/**
 * Saved list views. A private view exists only for its creator (anyone else gets 404); team
 * and public views are visible to the whole organization, and only their creator or an admin
 * changes or deletes them. Filters, columns and sorting are checked against the module's list.
 */
import { eq, ilike, inArray, or, sql, type SQL } from 'drizzle-orm';
import { customViews } from '../../db/schema';
import { actingUser, isAdmin, isUser, tenantWhere, type TenantContext } from '../../db/tenant';
import { Forbidden, NotFound, ValidationFailed, type FieldIssue } from '../../core/errors';
import { containsPattern, defineList } from '../../core/list';
import { isoTimestamp } from '../../core/schemas';
import { viewableModules } from './modules';
import { viewListFilters, type AddViewInput, type UpdateViewInput } from './schemas';

type ViewRow = typeof customViews.$inferSelect;

function presentView(row: ViewRow) {
  return {
    id: row.id,
    module_name: row.moduleName,
    view_name: row.viewName,
    visibility: row.visibility as 'private' | 'team' | 'public',
    filters: row.filters,
    columns: row.columns,
    sorting: row.sorting,
    user_id: row.userId,
    created_at: isoTimestamp(row.createdAt) as string,
    updated_at: isoTimestamp(row.updatedAt) as string,
  };
}

function visibleTo(ctx: TenantContext): SQL {
  return or(eq(customViews.userId, actingUser(ctx).userId), inArray(customViews.visibility, ['team', 'public'])) as SQL;
}

/** The view's contents, checked against its module; the filters are stored as given. */
function checkContents(view: {
  module_name: string;
  filters?: Record<string, unknown>;
  columns?: string[];
  sorting?: { order_by: string; order_in?: string } | null;
}) {
  // Own keys only: `constructor` or `__proto__` is in every object, and no module.
  const module = Object.hasOwn(viewableModules, view.module_name) ? viewableModules[view.module_name] : undefined;
  if (!module) throw ValidationFailed.field('module_name', `must be one of ${Object.keys(viewableModules).join(', ')}`);
  const issues: FieldIssue[] = [];
  if (view.filters) {
    const parsed = module.filters.safeParse(view.filters);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const keys = issue.code === 'unrecognized_keys' ? issue.keys : [issue.path.map(String).join('.')];
        for (const key of keys)
          issues.push({
            field: key ? `filters.${key}` : 'filters',
            message: issue.code === 'unrecognized_keys' ? 'is not a filter of this list' : issue.message,
          });
      }
    }
  }
  (view.columns ?? []).forEach((column, index) => {
    if (!module.columns(column)) issues.push({ field: `columns.${index}`, message: 'is not a column of this list' });
  });
  if (view.sorting && !module.orderBy.includes(view.sorting.order_by)) {
    issues.push({ field: 'sorting.order_by', message: `must be one of ${module.orderBy.join(', ')}` });
  }
  if (issues.length > 0) throw new ValidationFailed(issues);
}

function normalSorting(sorting: { order_by: string; order_in?: string } | null | undefined): Record<string, unknown> {
  return sorting ? { order_by: sorting.order_by, order_in: (sorting.order_in ?? 'DESC').toUpperCase() } : {};
}

export const viewList = defineList({
  sort: {
    id: customViews.id,
    view_name: sql`coalesce(${customViews.viewName}, '')`,
    created_at: customViews.createdAt,
    updated_at: customViews.updatedAt,
  },
  filters: viewListFilters,
  search: (term) => ilike(customViews.viewName, containsPattern(term)),
  createdAt: customViews.createdAt,
  base: (ctx, params) => ({
    rows: (columns) =>
      ctx.db
        .select({ row: customViews, ...columns })
        .from(customViews)
        .$dynamic(),
    where: tenantWhere(
      ctx,
      customViews,
      visibleTo(ctx),
      params.module_name ? eq(customViews.moduleName, params.module_name) : undefined,
    ),
  }),
  present: (entry) => presentView(entry.row),
});
export const ViewListQuery = viewList.query;

export const listViews = viewList.run;

export async function addView(ctx: TenantContext, input: AddViewInput) {
  checkContents(input);
  const [row] = await ctx.db
    .insert(customViews)
    .values({
      organizationId: ctx.orgId,
      userId: actingUser(ctx).userId,
      moduleName: input.module_name,
      viewName: input.view_name ?? null,
      visibility: input.visibility,
      filters: input.filters ?? {},
      columns: input.columns ?? [],
      sorting: normalSorting(input.sorting),
    })
    .returning();
  return presentView(row);
}

/** A view the caller may change: 404 when it cannot see it, 403 when it can but is not its creator or an admin. */
async function ownedView(ctx: TenantContext, id: number): Promise<ViewRow> {
  const [row] = await ctx.db
    .select()
    .from(customViews)
    .where(tenantWhere(ctx, customViews, eq(customViews.id, id), visibleTo(ctx)));
  if (!row) throw new NotFound('Custom view', id);
  if (!isUser(ctx.actor, row.userId) && !isAdmin(ctx.actor))
    throw new Forbidden('Only the creator of a shared view or an admin can change it', 'not_view_owner');
  return row;
}

function storedSorting(sorting: Record<string, unknown>): { order_by: string; order_in?: string } | null {
  return typeof sorting.order_by === 'string'
    ? { order_by: sorting.order_by, order_in: String(sorting.order_in ?? 'DESC') }
    : null;
}

export async function updateView(ctx: TenantContext, id: number, input: UpdateViewInput) {
  const current = await ownedView(ctx, id);
  const moduleName = input.module_name ?? current.moduleName;
  checkContents({
    module_name: moduleName,
    filters: input.filters ?? (input.module_name ? current.filters : undefined),
    columns: input.columns ?? (input.module_name ? current.columns : undefined),
    sorting:
      input.sorting === undefined ? (input.module_name ? storedSorting(current.sorting) : undefined) : input.sorting,
  });
  const [row] = await ctx.db
    .update(customViews)
    .set({
      moduleName,
      viewName: input.view_name === undefined ? undefined : input.view_name,
      visibility: input.visibility,
      filters: input.filters,
      columns: input.columns,
      sorting: input.sorting === undefined ? undefined : normalSorting(input.sorting),
      updatedAt: sql`now()`,
    })
    .where(tenantWhere(ctx, customViews, eq(customViews.id, id)))
    .returning();
  return presentView(row);
}

/** Views the caller may change (ownedView's rule as a condition): its own, and for an admin every view it sees. */
function changeableBy(ctx: TenantContext): SQL {
  return isAdmin(ctx.actor) ? visibleTo(ctx) : eq(customViews.userId, actingUser(ctx).userId);
}

export async function deleteView(ctx: TenantContext, id: number): Promise<void> {
  // The delete is its own check; only when it deletes nothing is the view read, for the 404 or the 403.
  const [deleted] = await ctx.db
    .delete(customViews)
    .where(tenantWhere(ctx, customViews, eq(customViews.id, id), changeableBy(ctx)))
    .returning({ id: customViews.id });
  if (deleted) return;
  await ownedView(ctx, id);
  throw new NotFound('Custom view', id);
}
