/**
 * Creating leads. `createLeadsBatch` is the one creation path: POST /api/lead/add sends one row,
 * the spreadsheet import sends batches of hundreds. Whatever the batch size it runs a fixed
 * handful of set-based statements: check references, lock and look up emails, link/create
 * companies, allocate ids, insert leads, tags, feed entries and notifications.
 */
import { sql } from 'drizzle-orm';
import type { TenantContext } from '../../db/tenant';
import { ValidationFailed } from '../../core/errors';
import { notifyLeadAssignments } from '../notifications/service';
import { mergeIntoExistingLeads } from './batch-merge';
import { duplicateLead, emailKey, findLiveLeadsByEmail, lockLeadEmails } from './dedupe';
import { readLead } from './present';
import { checkLeadReferences, ensureCompanies, loadLeadReferences, type LeadReferences } from './references';
import type { AddLeadInput, LeadView } from './schemas';
import { addLeadTags, companyOf, foldLeadInput, groupAssignments, type BatchRow } from './lead-writes';

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

const insertColumns = sql.raw(`id bigint, first_name text, last_name text, email text, phone_number text, company text, company_id bigint,
  job_title text, industry text, website text, address text, city text, state text, country text, pin_code text, status integer,
  priority smallint, lead_source smallint, estimated_value numeric, assigned_to bigint, profile_url text, custom_fields jsonb,
  notes text, import_job_id bigint, import_row integer`);

function withoutNulls(fields: Record<string, unknown> | null | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields ?? {}).filter(([, value]) => value !== null));
}

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
      custom_fields: withoutNulls(input.custom_fields),
      import_job_id: options.importJobId ?? null,
      import_row: options.importJobId ? row.rowNumber : null,
    };
  });
  const inserted = await ctx.db.execute<{ id: string }>(sql`
    insert into leads (id, organization_id, first_name, last_name, email, phone_number, company, company_id, job_title, industry, website,
      address, city, state, country, pin_code, status, priority, lead_source, estimated_value, assigned_to, profile_url, custom_fields,
      notes, import_job_id, import_row, created_by)
    overriding system value
    select r.id, ${ctx.orgId}, r.first_name, r.last_name, r.email, r.phone_number, r.company, r.company_id, r.job_title, r.industry, r.website,
      r.address, r.city, r.state, r.country, r.pin_code, r.status, r.priority, r.lead_source, r.estimated_value, r.assigned_to, r.profile_url,
      coalesce(r.custom_fields, '{}'::jsonb), r.notes, r.import_job_id, r.import_row, ${ctx.userId}
    from jsonb_to_recordset(${JSON.stringify(records)}::jsonb) as r(${insertColumns})
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
    await ctx.db.execute(sql`
      insert into feed_entries (organization_id, model_type, model_id, action, actor_user_id, actor_api_key_id, changes)
      select ${ctx.orgId}, 'lead', id, 'created', ${ctx.userId}, ${ctx.apiKeyId ?? null}, ${JSON.stringify(options.importJobId ? { import_job_id: { from: null, to: options.importJobId } } : {})}::jsonb
      from unnest(${sql.param(createdIds)}::bigint[]) as id`);
  }
  await notifyLeadAssignments(ctx, [
    ...groupAssignments(created.map((entry) => ({ assignedTo: entry.row.input.assigned_to, leadId: entry.leadId, name: `${entry.row.input.first_name} ${entry.row.input.last_name}` }))),
    ...merge.assignments,
  ]);
  return result;
}

/** POST /api/lead/add: one lead, or 422 naming the field, or 409 `duplicate_lead` with the existing id. */
export async function createLead(ctx: TenantContext, input: AddLeadInput): Promise<LeadView> {
  const result = await createLeadsBatch(ctx, [{ rowNumber: 1, input }], { onDuplicate: 'skip' });
  if (result.errors.length > 0) throw new ValidationFailed(result.errors.map(({ field, message }) => ({ field, message })));
  if (result.skipped[0]) throw duplicateLead(result.skipped[0].leadId);
  return readLead(ctx, result.createdLeads[0].leadId);
}
