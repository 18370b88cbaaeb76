/**
 * GET /api/lead/list and the leads section of global search: the standard list parameters
 * plus every lead filter, all through `leadFilterWhere`.
 */
import { sql } from 'drizzle-orm';
import { leads } from '../../db/schema';
import type { TenantContext } from '../../db/tenant';
import { defineList } from '../../core/list';
import { leadFilterShape, leadFilterWhere, leadSearchMatches } from './filters';
import { leadSelection, presentLead } from './present';

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
};

/** The `order_by` allow-list (saved views check their sort against it too). */
export const LEAD_ORDER_BY = Object.keys(sortColumns) as (keyof typeof sortColumns)[];

/**
 * search_value and start/end_date are applied by the list runner, through leadFilterWhere like
 * every other lead filter (search via the lead_search_scope view); the base takes the rest.
 * Unfiltered, the total is the organization's live-lead counter; searched and otherwise
 * unfiltered, the page and its total share one scan of the search's matches in lead_search_scope
 * (its live leads), which the runner puts in the statement's CTE.
 */
export const leadList = defineList({
  sort: sortColumns,
  filters: leadFilterShape,
  search: (term, ctx) => leadFilterWhere(ctx, { search_value: term }),
  searchTotal: (term, ctx) => leadSearchMatches(ctx, term),
  createdAt: leads.createdAt,
  counter: 'leads',
  // leads_organization_live_id_order_idx (every lead list keeps live leads only).
  tenantIdOrder: true,
  base: (ctx, params) => ({
    rows: (columns, db) =>
      db
        .select({ ...leadSelection, ...columns })
        .from(leads)
        .$dynamic(),
    where: leadFilterWhere(ctx, { ...params, search_value: undefined, start_date: undefined, end_date: undefined }),
  }),
  present: (row) => presentLead(row),
});
export const LeadListQuery = leadList.query;

export const listLeads = leadList.run;

export async function searchLeads(ctx: TenantContext, term: string, limit = 10) {
  const rows = await ctx.db
    .select(leadSelection)
    .from(leads)
    .where(leadFilterWhere(ctx, { search_value: term }))
    .orderBy(sql`${leads.id} desc`)
    .limit(limit);
  return rows.map(presentLead);
}
