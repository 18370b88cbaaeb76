/**
 * Pieces shared by the lead write paths (batch create, merge, update): folding rows, company
 * links and tag pairs.
 */
import { leadTags } from '../../db/schema';
import { sql } from 'drizzle-orm';
import type { TenantContext } from '../../db/tenant';
import { type LeadFieldName, leadFields } from './fields';
import type { LeadReferences } from './references';
import type { AddLeadInput } from './schemas';

export interface BatchRow {
  rowNumber: number;
  input: AddLeadInput;
  /** A CRM import's record: kept on the lead it becomes (external_source, external_id), so a re-run finds it. */
  external?: { source: string; id: string };
  /** The live lead this row updates, found by the caller by a key of its own (the CRM record id): merged into it whatever onDuplicate says. */
  holderId?: number;
}

/** Later values win, except where the field table's write rule says otherwise: JSON objects merge key by key, tags add up. */
export function foldLeadInput(base: AddLeadInput, next: AddLeadInput): AddLeadInput {
  const folded: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(next)) {
    if (value === null || value === undefined) continue;
    const rule = leadFields.writeRules[key as LeadFieldName];
    if (rule === 'merge_keys')
      folded[key] = { ...((folded[key] as object | null | undefined) ?? {}), ...(value as object) };
    else if (rule === 'relation')
      folded[key] = [...new Set([...((folded[key] as number[] | null | undefined) ?? []), ...(value as number[])])];
    else folded[key] = value;
  }
  return folded as AddLeadInput;
}

/** The input's JSON-object fields (merged key by key) as a create or import merge stores them: null values dropped, {} when absent. */
export function jsonFieldsToStore(input: AddLeadInput): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    leadFields.columns('create', ['merge_keys']).map((column) => {
      const given = (input[column.key as keyof AddLeadInput] as Record<string, unknown> | null | undefined) ?? {};
      return [column.key, Object.fromEntries(Object.entries(given).filter(([, value]) => value !== null))];
    }),
  );
}

/** Company link of one input: company_id wins; a name links or creates by name (resolved beforehand). */
export function companyOf(
  input: Pick<AddLeadInput, 'company' | 'company_id'>,
  refs: LeadReferences,
  byName: Map<string, { id: number; name: string }>,
) {
  if (input.company_id != null)
    return { companyId: input.company_id, company: refs.companies.get(input.company_id) ?? null };
  if (input.company) {
    const linked = byName.get(input.company);
    return { companyId: linked?.id ?? null, company: linked?.name ?? input.company };
  }
  return { companyId: null, company: null };
}

/** Adds tags to leads in one statement (existing pairs are kept). */
export async function addLeadTags(
  ctx: Pick<TenantContext, 'db' | 'orgId'>,
  pairs: { leadId: number; tagId: number }[],
): Promise<void> {
  if (pairs.length === 0) return;
  await ctx.db.execute(sql`
    insert into ${leadTags} (organization_id, lead_id, tag_id)
    select ${ctx.orgId}, p.lead_id, p.tag_id from jsonb_to_recordset(${JSON.stringify(pairs.map((p) => ({ lead_id: p.leadId, tag_id: p.tagId })))}::jsonb)
      as p(lead_id bigint, tag_id bigint)
    on conflict do nothing`);
}
