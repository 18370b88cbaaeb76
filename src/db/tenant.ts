/**
 * The tenant-scoped data-access helpers. Services receive a TenantContext whose `db` is a
 * transaction already scoped by RLS; these helpers add `organization_id` to every filter and
 * insert so isolation never depends on memory alone.
 */
import { and, eq, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { TransactionEffects } from '../core/transaction-effects';
import type { Transaction } from './client';

export interface TenantContext {
  db: Transaction;
  orgId: number;
  /** The acting user; null when the caller is an API key. */
  userId: number | null;
  roleName: string;
  apiKeyId?: number;
  /** The bearer token in use, so logout can revoke it. */
  jti?: string;
  tokenExpiresAt?: Date;
  /** Effects to run after this transaction commits or rolls back (set for API requests; jobs have none). */
  effects?: TransactionEffects;
}

interface TenantTable {
  organizationId: PgColumn;
}

/** `organization_id = ctx.orgId AND …conditions`. */
export function tenantWhere(ctx: Pick<TenantContext, 'orgId'>, table: TenantTable, ...conditions: (SQL | undefined)[]): SQL {
  return and(eq(table.organizationId, ctx.orgId), ...conditions) as SQL;
}

/** Adds the caller's organization to values about to be inserted; any organization_id in input is overwritten. */
export function tenantValues<V extends object>(ctx: Pick<TenantContext, 'orgId'>, values: V): V & { organizationId: number } {
  return { ...values, organizationId: ctx.orgId };
}

export function isAdmin(ctx: Pick<TenantContext, 'roleName'>): boolean {
  return ctx.roleName === 'admin';
}
