/**
 * Reading leads in their wire form: one select resolves status_text, priority_text,
 * lead_source_text (from the organization's lookups, inactive ones included, so old records
 * stay readable) and tags as {id, name, color}, for any number of leads in one query.
 */
import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { leads, type lookups as lookupsTable } from '../../db/schema';
import type { TenantContext } from '../../db/tenant';
import { NotFound } from '../../core/errors';
import { isoTimestamp } from '../../core/schemas';
import { LEAD_LOOKUP_MODULE } from '../lookups/defaults';
import { diffFields } from '../feed/service';
import { leadFilterWhere } from './filters';
import type { LeadView } from './schemas';

type LookupType = (typeof lookupsTable.$inferSelect)['type'];

/**
 * Drizzle renders columns inside selected `sql` unqualified, which a correlated subquery would
 * resolve against its own tables: name the outer lead's columns explicitly.
 */
function outer(column: string): SQL {
  return sql.raw(`"leads"."${column}"`);
}

function lookupName(type: LookupType, column: string) {
  return sql<string | null>`(select lk.name from lookups lk where lk.organization_id = ${outer('organization_id')} and lk.module_name = ${LEAD_LOOKUP_MODULE} and lk.type = ${type} and lk.value = ${outer(column)} limit 1)`;
}

interface TagRefRow {
  id: number;
  name: string;
  color: string | null;
}

export const leadSelection = {
  id: leads.id,
  firstName: leads.firstName,
  lastName: leads.lastName,
  email: leads.email,
  phoneNumber: leads.phoneNumber,
  company: leads.company,
  companyId: leads.companyId,
  jobTitle: leads.jobTitle,
  industry: leads.industry,
  website: leads.website,
  address: leads.address,
  city: leads.city,
  state: leads.state,
  country: leads.country,
  pinCode: leads.pinCode,
  status: leads.status,
  statusText: lookupName('status', 'status'),
  priority: leads.priority,
  priorityText: lookupName('priority', 'priority'),
  leadSource: leads.leadSource,
  leadSourceText: lookupName('source', 'lead_source'),
  score: leads.score,
  estimatedValue: leads.estimatedValue,
  assignedTo: leads.assignedTo,
  profileUrl: leads.profileUrl,
  tags: sql<TagRefRow[]>`coalesce((select json_agg(json_build_object('id', tg.id, 'name', tg.name, 'color', tg.color_code) order by tg.id) from lead_tags lt join lookups tg on tg.id = lt.tag_id where lt.lead_id = ${outer('id')}), '[]'::json)`,
  customFields: leads.customFields,
  notes: leads.notes,
  aiInformation: leads.aiInformation,
  lastActivityAt: leads.lastActivityAt,
  createdAt: leads.createdAt,
  updatedAt: leads.updatedAt,
};

type LeadColumns = typeof leads.$inferSelect;
export type LeadRow = Pick<
  LeadColumns,
  | 'id' | 'firstName' | 'lastName' | 'email' | 'phoneNumber' | 'company' | 'companyId' | 'jobTitle' | 'industry' | 'website' | 'address' | 'city'
  | 'state' | 'country' | 'pinCode' | 'status' | 'priority' | 'leadSource' | 'score' | 'estimatedValue' | 'assignedTo' | 'profileUrl'
  | 'customFields' | 'notes' | 'aiInformation' | 'lastActivityAt' | 'createdAt' | 'updatedAt'
> & { statusText: string | null; priorityText: string | null; leadSourceText: string | null; tags: TagRefRow[] };

function numberOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}

export function presentLead(row: LeadRow): LeadView {
  return {
    id: row.id,
    first_name: row.firstName,
    last_name: row.lastName,
    email: row.email,
    phone_number: row.phoneNumber,
    company: row.company,
    company_id: row.companyId,
    job_title: row.jobTitle,
    industry: row.industry,
    website: row.website,
    address: row.address,
    city: row.city,
    state: row.state,
    country: row.country,
    pin_code: row.pinCode,
    status: row.status,
    status_text: row.statusText,
    priority: row.priority,
    priority_text: row.priorityText,
    lead_source: row.leadSource,
    lead_source_text: row.leadSourceText,
    score: row.score ?? 0,
    estimated_value: numberOrNull(row.estimatedValue),
    assigned_to: row.assignedTo,
    profile_url: row.profileUrl,
    tags: (row.tags ?? []).map((tag) => ({ id: Number(tag.id), name: tag.name, color: tag.color })),
    custom_fields: row.customFields ?? {},
    notes: row.notes,
    ai_information: row.aiInformation ?? {},
    last_activity_at: isoTimestamp(row.lastActivityAt),
    created_at: isoTimestamp(row.createdAt) as string,
    updated_at: isoTimestamp(row.updatedAt) as string,
  };
}

/** Live leads of the organization with these ids, in id order. */
export async function readLeads(ctx: Pick<TenantContext, 'db' | 'orgId' | 'userId'>, ids: number[]): Promise<LeadView[]> {
  if (ids.length === 0) return [];
  const rows = await ctx.db
    .select(leadSelection)
    .from(leads)
    .where(and(leadFilterWhere(ctx, {}), inArray(leads.id, ids)))
    .orderBy(leads.id);
  return rows.map(presentLead);
}

export async function readLead(ctx: Pick<TenantContext, 'db' | 'orgId' | 'userId'>, id: number): Promise<LeadView> {
  const [row] = await ctx.db.select(leadSelection).from(leads).where(and(leadFilterWhere(ctx, {}), eq(leads.id, id)));
  if (!row) throw new NotFound('Lead', id);
  return presentLead(row);
}

const derivedFields = new Set(['updated_at', 'status_text', 'priority_text', 'lead_source_text']);

/** Before/after of the fields a write changed, for the activity feed (labels and timestamps left out). */
export function leadChanges(before: LeadView, after: LeadView): Record<string, { from: unknown; to: unknown }> {
  const changes = diffFields(before as unknown as Record<string, unknown>, after as unknown as Record<string, unknown>);
  for (const key of Object.keys(changes)) if (derivedFields.has(key)) delete changes[key];
  return changes;
}
