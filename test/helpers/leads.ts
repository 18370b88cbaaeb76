/**
 * Leads for tests of lead-scoped modules: through POST /api/lead/add when that route exists,
 * otherwise inserted through the app's own database access (RLS-scoped to the organization).
 */
import { env } from 'cloudflare:workers';
import { and, asc, eq, sql } from 'drizzle-orm';
import { withOwnDatabase, withTenant, type Transaction } from '../../src/db/client';
import { feedEntries, leads } from '../../src/db/schema';
import type { StatisticsTable } from '../../src/db/statistics';
import { actorContext, type TenantContext } from '../../src/db/tenant';
import { readConfig } from '../../src/env';
import { call, type SignedUp } from './api';

/** Runs `work` in a transaction scoped to the organization, on the test database. */
export async function inOrganization<T>(orgId: number, work: (tx: Transaction) => Promise<T>): Promise<T> {
  return withOwnDatabase(readConfig(env), (db) => withTenant(db, orgId, work));
}

/** ANALYZE of `table` by its owner, as autovacuum runs it: the planner's statistics as of now. */
export async function analyzeTable(table: StatisticsTable): Promise<void> {
  await withOwnDatabase(readConfig(env), (db) => db.execute(sql`analyze ${sql.identifier(table)}`));
}

/** The planner's estimate of the organization's rows of `table`, read in the tenant transaction `tx`. */
export async function plannedRowsIn(tx: Transaction, orgId: number, table: StatisticsTable): Promise<number> {
  const result = await tx.execute<{ 'QUERY PLAN': unknown }>(
    sql`explain (format json) select 1 from ${sql.identifier(table)} where organization_id = ${sql.raw(String(orgId))}`,
  );
  const plan = result.rows[0]['QUERY PLAN'];
  const parsed = (typeof plan === 'string' ? JSON.parse(plan) : plan) as { Plan: { 'Plan Rows': number } }[];
  return parsed[0].Plan['Plan Rows'];
}

/** The planner's estimate of the organization's rows of `table`, read inside its tenant scope. */
export function plannedRows(orgId: number, table: StatisticsTable): Promise<number> {
  return inOrganization(orgId, (tx) => plannedRowsIn(tx, orgId, table));
}

/** Runs a service function as the organization's admin, inside its tenant scope. */
export function asTenant<T>(org: SignedUp, work: (ctx: TenantContext) => Promise<T>): Promise<T> {
  return inOrganization(org.orgId, (tx) =>
    work({ db: tx, orgId: org.orgId, ...actorContext({ kind: 'user', userId: org.userId, role: 'admin' }) }),
  );
}

export async function createLead(owner: SignedUp, firstName = 'Grace', lastName = 'Hopper'): Promise<number> {
  const response = await call('POST', '/api/lead/add', {
    token: owner.token,
    body: { first_name: firstName, last_name: lastName },
  });
  if (response.status === 201) return response.body.data.id;
  if (response.status !== 404 || !String(response.body?.error?.message).startsWith('No route')) {
    throw new Error(`lead add: ${response.status} ${response.text}`);
  }
  const [row] = await inOrganization(owner.orgId, (tx) =>
    tx
      .insert(leads)
      .values({ organizationId: owner.orgId, firstName, lastName, status: 1 })
      .returning({ id: leads.id }),
  );
  return row.id;
}

/** Soft-deletes a lead the way DELETE /api/lead/delete does. */
export async function softDeleteLead(owner: SignedUp, leadId: number): Promise<void> {
  await inOrganization(owner.orgId, (tx) =>
    tx.update(leads).set({ deletedAt: sql`now()` }).where(eq(leads.id, leadId)),
  );
}

/** Undoes softDeleteLead (the API has no restore route yet; an operator restores in the database). */
export async function restoreLead(owner: SignedUp, leadId: number): Promise<void> {
  await inOrganization(owner.orgId, (tx) => tx.update(leads).set({ deletedAt: null }).where(eq(leads.id, leadId)));
}

export async function leadActivity(owner: SignedUp, leadId: number): Promise<Date | null> {
  const [row] = await inOrganization(owner.orgId, (tx) =>
    tx.select({ at: leads.lastActivityAt }).from(leads).where(eq(leads.id, leadId)),
  );
  return row?.at ?? null;
}

/** Feed entries of a record, oldest first (read from the table: the feed routes may not exist yet). */
export async function feedOf(owner: SignedUp, modelType: string, modelId: number) {
  return inOrganization(owner.orgId, (tx) =>
    tx
      .select({ action: feedEntries.action, changes: feedEntries.changes, actorUserId: feedEntries.actorUserId })
      .from(feedEntries)
      .where(and(eq(feedEntries.modelType, modelType), eq(feedEntries.modelId, modelId)))
      .orderBy(asc(feedEntries.id)),
  );
}
