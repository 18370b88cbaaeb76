/**
 * The merge half of `createLeadsBatch`: rows whose email a live lead already has update that
 * lead instead (given values win, custom_fields merge key by key, tags add up). All merged
 * leads are updated by one statement; feed entries record before/after per lead.
 */
import { sql } from 'drizzle-orm';
import type { TenantContext } from '../../db/tenant';
import { recordFeed } from '../feed/service';
import type { LeadAssignment } from '../notifications/service';
import { leadChanges, readLeads } from './present';
import type { LeadReferences } from './references';
import { addLeadTags, companyOf, foldLeadInput, groupAssignments, type BatchRow } from './lead-writes';

const patchColumns = sql.raw(`id bigint, first_name text, last_name text, email text, phone_number text, company text, company_id bigint,
  job_title text, industry text, website text, address text, city text, state text, country text, pin_code text, status integer,
  priority smallint, lead_source smallint, estimated_value numeric, assigned_to bigint, profile_url text, custom_fields jsonb, notes text`);

const overwritten = [
  'first_name', 'last_name', 'email', 'phone_number', 'company', 'company_id', 'job_title', 'industry', 'website', 'address', 'city', 'state',
  'country', 'pin_code', 'status', 'priority', 'lead_source', 'estimated_value', 'assigned_to', 'profile_url', 'notes',
];

export interface MergeOutcome {
  updated: number;
  merged: { rowNumber: number; leadId: number }[];
  assignments: LeadAssignment[];
}

export async function mergeIntoExistingLeads(
  ctx: TenantContext,
  merges: Map<number, BatchRow[]>,
  refs: LeadReferences,
  byName: Map<string, { id: number; name: string }>,
): Promise<MergeOutcome> {
  const outcome: MergeOutcome = { updated: 0, merged: [], assignments: [] };
  if (merges.size === 0) return outcome;
  const ids = [...merges.keys()];
  const patches = [...merges].map(([leadId, rows]) => {
    const input = rows.slice(1).reduce((folded, row) => foldLeadInput(folded, row.input), rows[0].input);
    const link = input.company_id != null || input.company ? companyOf(input, refs, byName) : { companyId: null, company: null };
    const customFields = Object.fromEntries(Object.entries(input.custom_fields ?? {}).filter(([, value]) => value !== null));
    return { leadId, rows, input, record: { ...input, id: leadId, company: link.company, company_id: link.companyId, tags: undefined, custom_fields: customFields } };
  });
  const before = await readLeads(ctx, ids);
  const assignments = overwritten.map((column) => sql`${sql.identifier(column)} = coalesce(p.${sql.identifier(column)}, leads.${sql.identifier(column)})`);
  await ctx.db.execute(sql`
    update leads set ${sql.join(assignments, sql`, `)},
      custom_fields = leads.custom_fields || coalesce(p.custom_fields, '{}'::jsonb),
      updated_at = now()
    from jsonb_to_recordset(${JSON.stringify(patches.map((patch) => patch.record))}::jsonb) as p(${patchColumns})
    where leads.id = p.id and leads.organization_id = ${ctx.orgId} and leads.deleted_at is null`);
  await addLeadTags(ctx, patches.flatMap((patch) => (patch.input.tags ?? []).map((tagId) => ({ leadId: patch.leadId, tagId }))));
  const after = new Map((await readLeads(ctx, ids)).map((lead) => [lead.id, lead]));
  const feed = before.flatMap((old) => {
    const now = after.get(old.id);
    return now ? [{ modelType: 'lead', modelId: old.id, action: 'merged', changes: leadChanges(old, now) }] : [];
  });
  await recordFeed(ctx, feed);
  outcome.updated = after.size;
  outcome.merged = patches.flatMap((patch) => patch.rows.map((row) => ({ rowNumber: row.rowNumber, leadId: patch.leadId })));
  outcome.assignments = groupAssignments(
    before
      .filter((old) => {
        const now = after.get(old.id);
        return now && now.assigned_to !== null && now.assigned_to !== old.assigned_to;
      })
      .map((old) => ({ assignedTo: after.get(old.id)?.assigned_to, leadId: old.id, name: `${old.first_name} ${old.last_name}` })),
  );
  return outcome;
}
