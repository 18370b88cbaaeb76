/**
 * The one check every lead-scoped module makes: the lead exists, is not deleted and belongs to
 * the caller's organization (otherwise 404, never 403, so other organizations stay invisible).
 */
import { and, eq, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import { leads } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { NotFound } from '../../core/errors';
import { feedEntriesFrom } from '../feed';

export async function requireLead(ctx: Pick<TenantContext, 'db' | 'orgId'>, leadId: number): Promise<{ id: number }> {
  const [lead] = await ctx.db
    .select({ id: leads.id })
    .from(leads)
    .where(tenantWhere(ctx, leads, eq(leads.id, leadId), isNull(leads.deletedAt)));
  if (!lead) throw new NotFound('Lead', leadId);
  return lead;
}

/** Sales activity (notes, follow-ups, meetings, calls, mail) moves `last_activity_at` forward. */
export async function touchLeadActivity(ctx: Pick<TenantContext, 'db' | 'orgId'>, leadIds: number[]): Promise<void> {
  if (leadIds.length === 0) return;
  await ctx.db
    .update(leads)
    .set({ lastActivityAt: sql`now()` })
    .where(tenantWhere(ctx, leads, and(inArray(leads.id, leadIds), isNull(leads.deletedAt))));
}

/**
 * The same as a CTE (`touched_leads as (…),`, with its trailing comma) for a writer's own statement
 * that goes on with more CTEs: the activity costs no round trip of its own. Nothing for no leads.
 */
export function touchLeadActivityCte(ctx: Pick<TenantContext, 'orgId'>, leadIds: number[]): SQL {
  if (leadIds.length === 0) return sql``;
  return sql`touched_leads as (
      update ${leads} set last_activity_at = now()
      where ${leads.organizationId} = ${ctx.orgId} and ${leads.id} = any(${sql.param(leadIds)}::bigint[]) and ${leads.deletedAt} is null
    ), `;
}

/**
 * Sales activity with its feed entry on the lead, inside the statement of the write it follows, so
 * that the two cost one round trip: after a data-modifying CTE named `from` that returns the lead's `lead_id` (and whatever
 * `changes` reads of it), CTEs that move those leads' `last_activity_at` and write one lead feed
 * entry per returned row. When the write returned no row, nothing is touched or recorded.
 */
export function leadActivityAfter(
  ctx: Pick<TenantContext, 'orgId' | 'userId' | 'apiKeyId'>,
  from: string,
  entry: { action: string | SQL; changes: SQL },
): SQL {
  const source = sql`${sql.identifier(from)}`;
  return sql`touched_leads as (
      update ${leads} set last_activity_at = now()
      where ${leads.organizationId} = ${ctx.orgId} and ${leads.id} in (select lead_id from ${source}) and ${leads.deletedAt} is null
    ), lead_activity as (${feedEntriesFrom(ctx, {
      from: source,
      modelType: 'lead',
      modelId: sql`${source}.lead_id`,
      action: entry.action,
      changes: entry.changes,
    })})`;
}
