/**
 * GET /api/lead/list and the leads section of global search: the standard list parameters
 * plus every lead filter, all through `leadFilterWhere`.
 */
import { count, sql } from 'drizzle-orm';
import { leads } from '../../db/schema';
import type { TenantContext } from '../../db/tenant';
import { listPage, listQuery, type ListParams } from '../../core/list';
import { leadFilterShape, leadFilterWhere, type LeadFilters } from './filters';
import { leadSelection, presentLead } from './present';

export const LEAD_ORDER_BY = [
  'id',
  'first_name',
  'last_name',
  'email',
  'company',
  'status',
  'priority',
  'lead_source',
  'score',
  'estimated_value',
  'last_activity_at',
  'created_at',
  'updated_at',
] as const;

export const LeadListQuery = listQuery(LEAD_ORDER_BY, leadFilterShape);

/** Keyset paging needs non-null sort keys, so nullable columns sort with a fallback. */
const sortColumns = {
  id: leads.id,
  first_name: leads.firstName,
  last_name: leads.lastName,
  email: sql`coalesce(${leads.email}, '')`,
  company: sql`coalesce(${leads.company}, '')`,
  status: leads.status,
  priority: sql`coalesce(${leads.priority}, 0)`,
  lead_source: sql`coalesce(${leads.leadSource}, 0)`,
  score: leads.score,
  estimated_value: sql`coalesce(${leads.estimatedValue}, 0)`,
  last_activity_at: sql`coalesce(${leads.lastActivityAt}, '-infinity'::timestamptz)`,
  created_at: leads.createdAt,
  updated_at: leads.updatedAt,
} satisfies Record<(typeof LEAD_ORDER_BY)[number], unknown>;

export async function listLeads(ctx: TenantContext, params: ListParams & LeadFilters) {
  const page = await listPage({
    params,
    sortColumns,
    idColumn: leads.id,
    where: leadFilterWhere(ctx, params),
    fetch: (q) =>
      ctx.db
        .select({ ...leadSelection, sortKey: q.sortKey })
        .from(leads)
        .where(q.where)
        .orderBy(...q.orderBy)
        .limit(q.limit)
        .offset(q.offset),
    count: async (where) => (await ctx.db.select({ n: count() }).from(leads).where(where))[0].n,
  });
  return { ...page, rows: page.rows.map(presentLead) };
}

export async function searchLeads(ctx: TenantContext, term: string, limit = 10) {
  const rows = await ctx.db
    .select(leadSelection)
    .from(leads)
    .where(leadFilterWhere(ctx, { search_value: term }))
    .orderBy(sql`${leads.id} desc`)
    .limit(limit);
  return rows.map(presentLead);
}
