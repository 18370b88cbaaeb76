/**
 * The merge half of `createLeadsBatch`: rows whose email a live lead already has update that
 * lead instead, by the field table's write rules (given values win, custom_fields merge key by
 * key, tags add up). All merged leads are updated by one statement; feed entries record
 * before/after per lead.
 */
import { leads } from '../../db/schema';
import { sql } from 'drizzle-orm';
import type { TenantContext } from '../../db/tenant';
import { recordFeed } from '../feed';
import type { LeadAssignment } from '../notifications';
import { leadChanges, readLeads } from './present';
import type { LeadReferences } from './references';
import { addLeadTags, companyOf, foldLeadInput, jsonFieldsToStore, type BatchRow } from './lead-writes';
import { leadRowLockClause } from './row-locks';
import { recordsetDefinition, tableColumn } from '../../core/field-columns';
import { leadFields } from './fields';
import { requestLeadScoring } from '../../jobs/scoring-request';

/** Stored fields an import merge overwrites when the row gives a value (company links resolved beforehand). */
const overwritten = leadFields.columns('create', ['overwrite', 'resolved']);
/** Stored JSON fields an import merge merges key by key. */
const mergedKeys = leadFields.columns('create', ['merge_keys']);
/** The record of one merged lead: its id, then the stored fields a row overwrites or merges (field table). */
const provenance = [
  tableColumn(leads, 'externalSource', 'external_source'),
  tableColumn(leads, 'externalId', 'external_id'),
];
const patchColumns = [tableColumn(leads, 'id'), ...overwritten, ...mergedKeys, ...provenance];

/** Given values win; JSON objects merge key by key into the stored ones. */
const patchAssignments = sql.join(
  [
    ...overwritten.map(
      (c) =>
        sql`${sql.identifier(c.sqlName)} = coalesce(p.${sql.identifier(c.key)}, leads.${sql.identifier(c.sqlName)})`,
    ),
    ...mergedKeys.map(
      (c) =>
        sql`${sql.identifier(c.sqlName)} = leads.${sql.identifier(c.sqlName)} || coalesce(p.${sql.identifier(c.key)}, '{}'::jsonb)`,
    ),
    // A lead keeps the first CRM record it came from (a CRM import merging a duplicate into it adds none).
    ...provenance.map(
      (c) =>
        sql`${sql.identifier(c.sqlName)} = case when leads.external_id is null then p.${sql.identifier(c.key)} else leads.${sql.identifier(c.sqlName)} end`,
    ),
  ],
  sql`, `,
);

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
    const link =
      input.company_id != null || input.company ? companyOf(input, refs, byName) : { companyId: null, company: null };
    return {
      leadId,
      rows,
      input,
      record: {
        ...input,
        id: leadId,
        company: link.company,
        company_id: link.companyId,
        tags: undefined,
        ...jsonFieldsToStore(input),
        external_source: rows.find((row) => row.external)?.external?.source ?? null,
        external_id: rows.find((row) => row.external)?.external?.id ?? null,
      },
    };
  });
  const before = await readLeads(ctx, ids);
  // Locked FOR UPDATE in id order first, as every change of a lead's company (row-locks.ts).
  await ctx.db.execute(sql`
    with locked as (
      select id from ${leads} where organization_id = ${ctx.orgId} and id = any(${sql.param(ids)}::bigint[])
      order by id ${leadRowLockClause('update')}
    )
    update ${leads} set ${patchAssignments}, updated_at = now()
    from jsonb_to_recordset(${JSON.stringify(patches.map((patch) => patch.record))}::jsonb) as p(${recordsetDefinition(patchColumns)})
    where leads.id = p.id and leads.organization_id = ${ctx.orgId} and leads.deleted_at is null
      and leads.id in (select id from locked)`);
  await addLeadTags(
    ctx,
    patches.flatMap((patch) => (patch.input.tags ?? []).map((tagId) => ({ leadId: patch.leadId, tagId }))),
  );
  const after = new Map((await readLeads(ctx, ids)).map((lead) => [lead.id, lead]));
  const feed = before.flatMap((old) => {
    const now = after.get(old.id);
    return now ? [{ modelType: 'lead', modelId: old.id, action: 'merged', changes: leadChanges(old, now) }] : [];
  });
  await recordFeed(ctx, feed);
  // A merge may fill scored fields (industry, title, country, source, company): rescore the leads.
  await requestLeadScoring(ctx, [...after.keys()]);
  outcome.updated = after.size;
  outcome.merged = patches.flatMap((patch) =>
    patch.rows.map((row) => ({ rowNumber: row.rowNumber, leadId: patch.leadId })),
  );
  outcome.assignments = before
    .filter((old) => {
      const now = after.get(old.id);
      return now && now.assigned_to !== null && now.assigned_to !== old.assigned_to;
    })
    .map((old) => ({
      userId: after.get(old.id)?.assigned_to,
      leadId: old.id,
      leadName: `${old.first_name} ${old.last_name}`,
    }));
  return outcome;
}
