/**
 * Saved dashboards: list, add, update, delete. Scopes follow the saved-query rules
 * (saved-queries/visibility.ts): a personal dashboard exists only for its owner (404 for anyone
 * else); team and workspace ones are the organization's, changed or deleted only by their owner
 * or an admin (403 `not_dashboard_owner`). Every widget's saved query must be one the caller
 * sees, and a shared dashboard may show shared queries only (422 naming the widget).
 */
import { and, eq, ilike, inArray, ne, or, sql } from 'drizzle-orm';
import { Conflict, Forbidden, NotFound, ValidationFailed, type FieldIssue } from '../../core/errors';
import { columnValues } from '../../core/field-table';
import { containsPattern, defineList } from '../../core/list';
import type { Queryable } from '../../db/client';
import { writeCheckedKey } from '../../db/key-locks';
import { dashboards, savedQueries } from '../../db/schema';
import { actingUser, isAdmin, isUser, tenantWhere, type TenantContext } from '../../db/tenant';
import { changeableBy, checkScopeAllowed, type Scope, visibleTo } from '../saved-queries';
import {
  type AddDashboardInput,
  dashboardFields,
  dashboardListFilters,
  type DashboardView,
  type UpdateDashboardInput,
  type WidgetValue,
} from './schemas';

const presentDashboard = (row: Record<string, unknown>): DashboardView => dashboardFields.present(row);

/** One statement: the widgets' saved queries must be visible to the caller, and shared for a shared dashboard. */
async function checkWidgets(ctx: TenantContext, widgets: WidgetValue[], scope: Scope) {
  const ids = [...new Set(widgets.flatMap((widget) => widget.source.saved_query_id ?? []))];
  if (ids.length === 0) return;
  const found = await ctx.db
    .select({ id: savedQueries.id, scope: savedQueries.scope })
    .from(savedQueries)
    .where(tenantWhere(ctx, savedQueries, inArray(savedQueries.id, ids), visibleTo(ctx, savedQueries)));
  const scopes = new Map(found.map((query) => [query.id, query.scope]));
  const issues: FieldIssue[] = [];
  widgets.forEach((widget, index) => {
    const id = widget.source.saved_query_id;
    if (id === undefined) return;
    const field = `definition.${index}.source.saved_query_id`;
    const queryScope = scopes.get(id);
    if (queryScope === undefined) issues.push({ field, message: `${id} is not a saved query you can see` });
    else if (scope !== 'personal' && queryScope === 'personal')
      issues.push({ field, message: `${id} is a personal query: a shared dashboard shows shared queries only` });
  });
  if (issues.length > 0) throw new ValidationFailed(issues);
}

export const dashboardList = defineList({
  sort: {
    id: dashboards.id,
    name: sql`coalesce(${dashboards.name}, '')`,
    dashboard_id: dashboards.dashboardKey,
    created_at: dashboards.createdAt,
    updated_at: dashboards.updatedAt,
  },
  filters: dashboardListFilters,
  search: (term) => ilike(dashboards.name, containsPattern(term)),
  createdAt: dashboards.createdAt,
  base: (ctx, params) => ({
    rows: (columns) =>
      ctx.db
        .select({ ...dashboardFields.selection, ...columns })
        .from(dashboards)
        .$dynamic(),
    where: tenantWhere(
      ctx,
      dashboards,
      visibleTo(ctx, dashboards),
      params.scope ? eq(dashboards.scope, params.scope) : undefined,
    ),
  }),
  present: (row) => presentDashboard(row),
});
export const DashboardListQuery = dashboardList.query;

export const listDashboards = dashboardList.run;

export async function addDashboard(ctx: TenantContext, input: AddDashboardInput) {
  const scope = input.scope ?? 'personal';
  checkScopeAllowed(ctx, scope);
  const definition = input.definition ?? [];
  await checkWidgets(ctx, definition, scope);
  // The key is taken only by a dashboard the caller sees: a shared one, or one of its own personal ones.
  const taken = () =>
    ctx.db
      .select({ id: dashboards.id })
      .from(dashboards)
      .where(
        tenantWhere(
          ctx,
          dashboards,
          eq(dashboards.dashboardKey, input.dashboard_id),
          scope === 'personal'
            ? or(ne(dashboards.scope, 'personal'), eq(dashboards.userId, actingUser(ctx).userId))
            : ne(dashboards.scope, 'personal'),
        ),
      )
      .limit(1);
  const conflict = (id: number | null) =>
    new Conflict(`A dashboard with dashboard_id "${input.dashboard_id}" already exists`, 'dashboard_id_taken', {
      dashboard_id: input.dashboard_id,
      id,
    });
  // A personal key must not shadow a shared one (the shared index does not see personal rows).
  if (scope === 'personal') {
    const [shared] = await taken();
    if (shared) throw conflict(shared.id);
  }
  const [row] = await ctx.db
    .insert(dashboards)
    .values({
      ...columnValues(dashboardFields.writableColumns, input),
      organizationId: ctx.orgId,
      dashboardKey: input.dashboard_id,
      userId: actingUser(ctx).userId,
      scope,
      definition,
    })
    .onConflictDoNothing()
    .returning(dashboardFields.selection);
  if (row) return presentDashboard(row);
  // Lost a race for the key: name the dashboard that holds it.
  const [existing] = await taken();
  throw conflict(existing?.id ?? null);
}

/**
 * A dashboard changing scope keeps its key: 409 `dashboard_id_taken` when the key is taken in the
 * new scope (by a shared dashboard, or by another personal one of the owner), both visible to the caller.
 */
async function checkKeyFree(ctx: TenantContext, current: DashboardView, scope: Scope) {
  const [holder] = await ctx.db
    .select({ id: dashboards.id })
    .from(dashboards)
    .where(
      tenantWhere(
        ctx,
        dashboards,
        eq(dashboards.dashboardKey, current.dashboard_id),
        ne(dashboards.id, current.id),
        scope === 'personal'
          ? and(eq(dashboards.scope, 'personal'), eq(dashboards.userId, current.user_id))
          : ne(dashboards.scope, 'personal'),
      ),
    )
    .limit(1);
  if (holder)
    throw new Conflict(`A dashboard with dashboard_id "${current.dashboard_id}" already exists`, 'dashboard_id_taken', {
      dashboard_id: current.dashboard_id,
      id: holder.id,
    });
}

/** A dashboard the caller can see: 404 for another organization's and for someone else's personal one. */
async function visibleDashboard(ctx: TenantContext, id: number): Promise<DashboardView> {
  const [row] = await ctx.db
    .select(dashboardFields.selection)
    .from(dashboards)
    .where(tenantWhere(ctx, dashboards, eq(dashboards.id, id), visibleTo(ctx, dashboards)));
  if (!row) throw new NotFound('Dashboard', id);
  return presentDashboard(row);
}

export async function viewDashboard(ctx: TenantContext, id: number) {
  return visibleDashboard(ctx, id);
}

/** A dashboard the caller may change: 404 when it cannot see it, 403 when not its owner or an admin. */
async function ownedDashboard(ctx: TenantContext, id: number): Promise<DashboardView> {
  const row = await visibleDashboard(ctx, id);
  if (!isUser(ctx.actor, row.user_id) && !isAdmin(ctx.actor))
    throw new Forbidden('Only the owner of a shared dashboard or an admin can change it', 'not_dashboard_owner');
  return row;
}

/** The unique indexes of a dashboard's key: among the shared ones, and among an owner's personal ones. */
const DASHBOARD_KEYS = ['dashboards_shared_key', 'dashboards_personal_key'];

export async function updateDashboard(ctx: TenantContext, id: number, input: UpdateDashboardInput) {
  const current = await ownedDashboard(ctx, id);
  checkScopeAllowed(ctx, input.scope);
  const scope = input.scope ?? current.scope;
  // A new definition is checked; so is the kept one when the dashboard becomes shared.
  const widgets = input.definition ?? (scope !== current.scope ? current.definition : []);
  await checkWidgets(ctx, widgets, scope);
  const update = (db: Queryable) =>
    db
      .update(dashboards)
      .set({ ...columnValues(dashboardFields.updateColumns, input), updatedAt: sql`now()` })
      .where(tenantWhere(ctx, dashboards, eq(dashboards.id, id)))
      .returning(dashboardFields.selection);
  if (scope === current.scope) return presentDashboard((await update(ctx.db))[0]);
  await checkKeyFree(ctx, current, scope);
  // A concurrent add (or scope change) of the key in the new scope takes no lock and may commit
  // after the check: the index refuses this one, answered as the check's 409 naming the holder.
  const [row] = await writeCheckedKey(ctx.db, DASHBOARD_KEYS, update, async () => {
    await checkKeyFree(ctx, current, scope);
    return new Error('dashboard scope change refused without a holder');
  });
  return presentDashboard(row);
}

export async function deleteDashboard(ctx: TenantContext, id: number): Promise<void> {
  // The delete is its own check; only when it deletes nothing is the dashboard read, for the 404 or the 403.
  const [deleted] = await ctx.db
    .delete(dashboards)
    .where(tenantWhere(ctx, dashboards, eq(dashboards.id, id), changeableBy(ctx, dashboards)))
    .returning({ id: dashboards.id });
  if (deleted) return;
  await ownedDashboard(ctx, id);
  throw new NotFound('Dashboard', id);
}
