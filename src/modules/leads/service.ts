/**
 * Creating leads. `createLeadsBatch` is the one creation path: POST /api/lead/add sends one row,
 * the spreadsheet import sends batches of hundreds. Whatever the batch size it runs a fixed
 * handful of set-based statements: check references, lock and look up emails, link/create
 * companies, allocate ids, insert leads, tags, feed entries and notifications.
 */
import { sql } from 'drizzle-orm';
import type { TenantContext } from '../../db/tenant';
import { ValidationFailed } from '../../core/errors';
import { feedEntriesFrom } from '../feed/service';
import { notifyLeadAssignments } from '../notifications/service';
import { mergeIntoExistingLeads } from './batch-merge';
import { duplicateLead, emailKey, findLiveLeadsByEmail, lockLeadEmails } from './dedupe';
import { readLead } from './present';
import { checkLeadReferences, ensureCompanies, loadLeadReferences, type LeadReferences } from './references';
import type { AddLeadInput, LeadView } from './schemas';
import { addLeadTags, companyOf, foldLeadInput, jsonFieldsToStore, type BatchRow } from './lead-writes';
import { columnList, LEAD_CREATE_COLUMNS, leadColumn, type LeadColumnRef, recordColumns, recordsetDefinition } from './field-derivations';

export type { BatchRow } from './lead-writes';

export interface BatchOptions {
  /** Set by the import: leads carry (import_job_id, import_row), so a redelivered batch inserts nothing twice. */
  importJobId?: number;
  /** What happens to a row whose email a live lead (or an earlier row of the batch) already has. */
  onDuplicate: 'skip' | 'merge';
}

export interface BatchResult {
  created: number;
  updated: number;
  skipped: { rowNumber: number; leadId: number }[];
  merged: { rowNumber: number; leadId: number }[];
  errors: { rowNumber: number; field: string; message: string }[];
  /** Which lead each created row became. */
  createdLeads: { rowNumber: number; leadId: number }[];
}

interface Plan {
  toCreate: BatchRow[];
  /** Existing lead id → the rows merged into it, in row order. */
  merges: Map<number, BatchRow[]>;
  /** Rows that repeat an earlier row's email: their lead is the one the earlier row creates. */
  repeats: { row: BatchRow; first: BatchRow }[];
  skipped: { rowNumber: number; leadId: number }[];
}

function planBatch(rows: BatchRow[], existing: Awaited<ReturnType<typeof findLiveLeadsByEmail>>, options: BatchOptions): Plan {
  const plan: Plan = { toCreate: [], merges: new Map(), repeats: [], skipped: [] };
  const firstByEmail = new Map<string, BatchRow>();
  // Copies, so folding repeats into a row never changes the caller's objects.
  for (const row of rows.map((given) => ({ rowNumber: given.rowNumber, input: given.input }))) {
    const key = emailKey(row.input.email);
    if (!key) {
      plan.toCreate.push(row);
      continue;
    }
    const holders = existing.get(key) ?? [];
    // A redelivered import row finds the lead it created the first time: nothing to do.
    if (options.importJobId && holders.some((lead) => lead.importJobId === options.importJobId && lead.importRow === row.rowNumber)) continue;
    const holder = holders[0];
    if (holder && options.onDuplicate === 'skip') plan.skipped.push({ rowNumber: row.rowNumber, leadId: holder.id });
    else if (holder) plan.merges.set(holder.id, [...(plan.merges.get(holder.id) ?? []), row]);
    else {
      const first = firstByEmail.get(key);
      if (first) plan.repeats.push({ row, first });
      else {
        firstByEmail.set(key, row);
        plan.toCreate.push(row);
      }
    }
  }
  return plan;
}

/**
 * The columns an insert fills from each JSON record (jsonb_to_recordset): the id allocated
 * beforehand, the stored fields a create sets (field table), and the import's provenance.
 * Records are keyed by the wire names (`import_job_id`, `import_row` for the provenance).
 */
export const LEAD_INSERT_COLUMNS: readonly LeadColumnRef[] = [
  leadColumn('id'),
  ...LEAD_CREATE_COLUMNS,
  leadColumn('importJobId', 'import_job_id'),
  leadColumn('importRow', 'import_row'),
];

async function insertLeads(ctx: TenantContext, rows: BatchRow[], refs: LeadReferences, byName: Map<string, { id: number; name: string }>, options: BatchOptions) {
  const allocated = await ctx.db.execute<{ id: string }>(sql`select nextval(pg_get_serial_sequence('leads', 'id')) as id from generate_series(1, ${rows.length})`);
  const ids = allocated.rows.map((row) => Number(row.id));
  const records = rows.map((row, index) => {
    const input = row.input;
    return {
      ...input,
      ...(({ companyId, company }) => ({ company_id: companyId, company }))(companyOf(input, refs, byName)),
      id: ids[index],
      status: input.status ?? refs.defaultStatus,
      tags: undefined,
      ...jsonFieldsToStore(input),
      import_job_id: options.importJobId ?? null,
      import_row: options.importJobId ? row.rowNumber : null,
    };
  });
  const inserted = await ctx.db.execute<{ id: string }>(sql`
    insert into leads (organization_id, created_by, ${columnList(LEAD_INSERT_COLUMNS)})
    overriding system value
    select ${ctx.orgId}, ${ctx.userId}, ${recordColumns('r', LEAD_INSERT_COLUMNS)}
    from jsonb_to_recordset(${JSON.stringify(records)}::jsonb) as r(${recordsetDefinition(LEAD_INSERT_COLUMNS)})
    on conflict (import_job_id, import_row) do nothing
    returning id`);
  const insertedIds = new Set(inserted.rows.map((row) => Number(row.id)));
  return rows.map((row, index) => ({ row, leadId: ids[index] })).filter((entry) => insertedIds.has(entry.leadId));
}

export async function createLeadsBatch(ctx: TenantContext, rows: BatchRow[], options: BatchOptions): Promise<BatchResult> {
  const result: BatchResult = { created: 0, updated: 0, skipped: [], merged: [], errors: [], createdLeads: [] };
  if (rows.length === 0) return result;
  const refs = await loadLeadReferences(ctx, rows.map((row) => row.input));
  const valid: BatchRow[] = [];
  for (const row of rows) {
    const issues = checkLeadReferences(row.input, refs, 'create');
    if (issues.length > 0) result.errors.push(...issues.map((issue) => ({ rowNumber: row.rowNumber, ...issue })));
    else valid.push(row);
  }
  const keys = [...new Set(valid.map((row) => emailKey(row.input.email)).filter((key): key is string => key !== null))];
  await lockLeadEmails(ctx, keys);
  const plan = planBatch(valid, await findLiveLeadsByEmail(ctx, keys), options);
  if (options.onDuplicate === 'merge') {
    // Repeats of a new email fold into the row that creates the lead.
    for (const repeat of plan.repeats) repeat.first.input = foldLeadInput(repeat.first.input, repeat.row.input);
  }
  const mergeInputs = [...plan.merges.values()].flat().map((row) => row.input);
  const names = [...plan.toCreate.map((row) => row.input), ...mergeInputs].filter((input) => input.company_id == null && input.company).map((input) => input.company as string);
  const byName = await ensureCompanies(ctx, names);

  const created = plan.toCreate.length > 0 ? await insertLeads(ctx, plan.toCreate, refs, byName, options) : [];
  result.created = created.length;
  result.createdLeads = created.map((entry) => ({ rowNumber: entry.row.rowNumber, leadId: entry.leadId }));
  const idByRow = new Map(created.map((entry) => [entry.row, entry.leadId]));
  for (const repeat of plan.repeats) {
    const leadId = idByRow.get(repeat.first);
    if (leadId === undefined) continue;
    (options.onDuplicate === 'merge' ? result.merged : result.skipped).push({ rowNumber: repeat.row.rowNumber, leadId });
  }
  result.skipped.push(...plan.skipped);
  result.skipped.sort((a, b) => a.rowNumber - b.rowNumber);

  const merge = await mergeIntoExistingLeads(ctx, plan.merges, refs, byName);
  result.updated = merge.updated;
  result.merged.push(...merge.merged);
  result.merged.sort((a, b) => a.rowNumber - b.rowNumber);

  await addLeadTags(ctx, created.flatMap((entry) => (entry.row.input.tags ?? []).map((tagId) => ({ leadId: entry.leadId, tagId }))));
  const createdIds = created.map((entry) => entry.leadId);
  if (createdIds.length > 0) {
    const changes = options.importJobId ? { import_job_id: { from: null, to: options.importJobId } } : {};
    await ctx.db.execute(
      feedEntriesFrom(ctx, { from: sql`unnest(${sql.param(createdIds)}::bigint[]) as id`, modelType: 'lead', modelId: sql`id`, action: 'created', changes: sql`${JSON.stringify(changes)}::jsonb` }),
    );
  }
  // Created and merged leads notify apart (each is its own notification per assignee), as before.
  await notifyLeadAssignments(
    ctx,
    created.map((entry) => ({ userId: entry.row.input.assigned_to, leadId: entry.leadId, leadName: `${entry.row.input.first_name} ${entry.row.input.last_name}` })),
  );
  await notifyLeadAssignments(ctx, merge.assignments);
  return result;
}

/** POST /api/lead/add: one lead, or 422 naming the field, or 409 `duplicate_lead` with the existing id. */
export async function createLead(ctx: TenantContext, input: AddLeadInput): Promise<LeadView> {
  const result = await createLeadsBatch(ctx, [{ rowNumber: 1, input }], { onDuplicate: 'skip' });
  if (result.errors.length > 0) throw new ValidationFailed(result.errors.map(({ field, message }) => ({ field, message })));
  if (result.skipped[0]) throw duplicateLead(result.skipped[0].leadId);
  return readLead(ctx, result.createdLeads[0].leadId);
}
