/**
 * The organization's lead lookups (module `lead`: status, priority, source values and tags),
 * read one way: `leadLookups(ctx)` loads them for checks in TypeScript, and `leadLookupLabel`
 * resolves a label inside a statement (selections, exports). Both read the same rows: labels
 * resolve inactive lookups too (old records stay readable); only active ones may be written.
 */
import { eq, sql, type SQL } from 'drizzle-orm';
import { currentOrganization, lookups, leadTags } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { LEAD_LOOKUP_MODULE } from '../lookups';

/** Lookup types whose `value` a lead column holds (tags are referenced by lookup id instead). */
export type ValueLookupType = 'status' | 'priority' | 'source';

export interface LeadLookups {
  /** Active values per lookup type. */
  status: Set<number>;
  priority: Set<number>;
  source: Set<number>;
  /** Active tag lookup ids. */
  tags: Set<number>;
  /** The first active status (lowest value): the default when a lead gives none. */
  defaultStatus: number | null;
}

/** One query: the organization's active lead lookups. */
export async function leadLookups(ctx: Pick<TenantContext, 'db' | 'orgId'>): Promise<LeadLookups> {
  const rows = await ctx.db
    .select({ id: lookups.id, type: lookups.type, value: lookups.value })
    .from(lookups)
    .where(tenantWhere(ctx, lookups, eq(lookups.moduleName, LEAD_LOOKUP_MODULE), eq(lookups.isActive, true)))
    .orderBy(lookups.value, lookups.id);
  return leadLookupsFromRows(rows);
}

export interface LeadLookupRow {
  id: number;
  type: string;
  value: number | null;
}

/** The sets from active lookup rows in value order (so the first status is the default); also used by statements that read them with other things. */
export function leadLookupsFromRows(rows: LeadLookupRow[]): LeadLookups {
  const found: LeadLookups = {
    status: new Set(),
    priority: new Set(),
    source: new Set(),
    tags: new Set(),
    defaultStatus: null,
  };
  for (const row of rows) {
    if (row.type === 'tags') found.tags.add(row.id);
    else if ((row.type === 'status' || row.type === 'priority' || row.type === 'source') && row.value !== null) {
      found[row.type].add(row.value);
      if (row.type === 'status' && found.defaultStatus === null) found.defaultStatus = row.value;
    }
  }
  return found;
}

/**
 * The scope organization's status, priority and source labels as one JSON object keyed
 * `type:value` (the unique index on organization, module, type and value makes each key one
 * lookup). An uncorrelated sub-select, so PostgreSQL computes it once per statement (an InitPlan)
 * whatever the number of rows; a correlated sub-select per label per row cost a 100-lead page
 * 1.7 of its 3.2 ms on PostgreSQL 15 (docs/benchmarks.md, eighteenth round).
 */
const scopeLabels = sql`(select jsonb_object_agg(lk.type || ':' || lk.value, lk.name) from ${lookups} lk where lk.organization_id = ${currentOrganization} and lk.module_name = ${LEAD_LOOKUP_MODULE} and lk.type in ('status', 'priority', 'source') and lk.value is not null)`;

/**
 * SQL: the label of the lookup of `type` whose value is `value`, for a row of organization
 * `organizationId`. Labels are the statement's scope organization's (every lead read runs in a
 * tenant scope: a request's scoped statements, a job's `withTenant`); a row of any other
 * organization, or a read outside a scope, gets null, never another organization's label.
 */
export function leadLookupLabel(type: ValueLookupType, value: SQL, organizationId: SQL): SQL<string | null> {
  return sql<
    string | null
  >`case when ${organizationId} = (select ${currentOrganization}) then ${scopeLabels} ->> (${`${type}:`}::text || ${value}) end`;
}

/**
 * The scope organization's lookups as `{id, name, color}` JSON objects keyed by lookup id,
 * computed once per statement (an InitPlan) and only when some lead of the statement has a tag.
 */
const scopeTagRefs = sql`(select jsonb_object_agg(tg.id, jsonb_build_object('id', tg.id, 'name', tg.name, 'color', tg.color_code)) from ${lookups} tg where tg.organization_id = ${currentOrganization})`;

/**
 * SQL: the tags of the lead `leadId` as a JSON array of {id, name, color}, in id order. Per lead
 * it reads only the lead's own tag rows (the primary key's index) and takes each tag from
 * `scopeTagRefs`. Joined to the lookups per lead instead, the planner hashed every lookup of the
 * organization for each tagged lead: a 100-lead page of an organization with 300 tags took
 * 6.0 ms on PostgreSQL 15, 1.9 ms this way (docs/benchmarks.md, eighteenth round).
 */
export function leadTagRefs(
  leadId: SQL,
  /** Where the tag rows (lead_id, tag_id) are read: the table, or the RETURNING of a statement's own tag insert. */
  tagRows: SQL = sql`${leadTags}`,
): SQL<{ id: number; name: string; color: string | null }[]> {
  return sql`coalesce((select json_agg(${scopeTagRefs} -> lt.tag_id::text order by lt.tag_id) from ${tagRows} lt where lt.lead_id = ${leadId}), '[]'::json)`;
}
