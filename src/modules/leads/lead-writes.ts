/**
 * Pieces shared by the lead write paths (batch create, merge, update): folding rows, company
 * links, tag pairs and assignment grouping.
 */
import { sql } from 'drizzle-orm';
import type { TenantContext } from '../../db/tenant';
import type { LeadAssignment } from '../notifications/service';
import type { LeadReferences } from './references';
import type { AddLeadInput } from './schemas';

export interface BatchRow {
  rowNumber: number;
  input: AddLeadInput;
}

/** Later values win; custom_fields merge key by key; tags add up. */
export function foldLeadInput(base: AddLeadInput, next: AddLeadInput): AddLeadInput {
  const folded: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(next)) {
    if (value === null || value === undefined) continue;
    if (key === 'custom_fields') folded.custom_fields = { ...(base.custom_fields ?? {}), ...(value as object) };
    else if (key === 'tags') folded.tags = [...new Set([...(base.tags ?? []), ...(value as number[])])];
    else folded[key] = value;
  }
  return folded as AddLeadInput;
}

/** Company link of one input: company_id wins; a name links or creates by name (resolved beforehand). */
export function companyOf(input: Pick<AddLeadInput, 'company' | 'company_id'>, refs: LeadReferences, byName: Map<string, { id: number; name: string }>) {
  if (input.company_id != null) return { companyId: input.company_id, company: refs.companies.get(input.company_id) ?? null };
  if (input.company) {
    const linked = byName.get(input.company.toLowerCase());
    return { companyId: linked?.id ?? null, company: linked?.name ?? input.company };
  }
  return { companyId: null, company: null };
}

/** Adds tags to leads in one statement (existing pairs are kept). */
export async function addLeadTags(ctx: Pick<TenantContext, 'db' | 'orgId'>, pairs: { leadId: number; tagId: number }[]): Promise<void> {
  if (pairs.length === 0) return;
  await ctx.db.execute(sql`
    insert into lead_tags (organization_id, lead_id, tag_id)
    select ${ctx.orgId}, p.lead_id, p.tag_id from jsonb_to_recordset(${JSON.stringify(pairs.map((p) => ({ lead_id: p.leadId, tag_id: p.tagId })))}::jsonb)
      as p(lead_id bigint, tag_id bigint)
    on conflict do nothing`);
}

export function groupAssignments(entries: { assignedTo: number | null | undefined; leadId: number; name: string }[]): LeadAssignment[] {
  const byUser = new Map<number, { leadIds: number[]; names: string[] }>();
  for (const entry of entries) {
    if (entry.assignedTo == null) continue;
    const group = byUser.get(entry.assignedTo) ?? { leadIds: [], names: [] };
    group.leadIds.push(entry.leadId);
    group.names.push(entry.name);
    byUser.set(entry.assignedTo, group);
  }
  return [...byUser].map(([userId, group]) => ({ userId, leadIds: group.leadIds, leadName: group.leadIds.length === 1 ? group.names[0] : undefined }));
}

