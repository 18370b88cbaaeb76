/**
 * The scope rules shared by saved queries and dashboards: personal rows are their owner's alone,
 * team and workspace rows are the organization's; workspace scope is given by admins and
 * managers only.
 */
import { eq, inArray, or, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { Forbidden } from '../../core/errors';
import { actingUser, hasRole, isAdmin, type TenantContext } from '../../db/tenant';

export type Scope = 'personal' | 'team' | 'workspace';

/** Rows the caller sees: its own, and every shared one. */
export function visibleTo(ctx: TenantContext, table: { userId: PgColumn; scope: PgColumn }): SQL {
  return or(eq(table.userId, actingUser(ctx).userId), inArray(table.scope, ['team', 'workspace'])) as SQL;
}

/**
 * Rows the caller may change (the 403 rule as a condition): its own, and for an admin every row it
 * sees. A write with this in its WHERE is its own check; only when it touches nothing does the
 * caller read the row to tell 404 from 403.
 */
export function changeableBy(ctx: TenantContext, table: { userId: PgColumn; scope: PgColumn }): SQL {
  return isAdmin(ctx.actor) ? visibleTo(ctx, table) : eq(table.userId, actingUser(ctx).userId);
}

/** 403 `workspace_scope_forbidden` for a caller other than an admin or manager asking for workspace scope. */
export function checkScopeAllowed(ctx: TenantContext, scope: Scope | undefined) {
  if (scope === 'workspace' && !hasRole(ctx.actor, ['admin', 'manager']))
    throw new Forbidden('Only admins and managers can share at workspace scope', 'workspace_scope_forbidden');
}
