/**
 * Creating leads. `createLeadsBatch` is the one creation path: POST /api/lead/add sends one row,
 * the spreadsheet import sends batches of hundreds. Whatever the batch size it runs a fixed
 * handful of set-based statements: check references, lock and look up emails, link/create
 * companies, allocate ids, insert leads, tags, feed entries and notifications.
 */
import { sql } from 'drizzle-orm';
import type { TenantContext } from '../../db/tenant';
import { ValidationFailed } from '../../core/errors';
import { leadAssignmentNotices, notifyLeadAssignments } from '../notifications/service';
import { mergeIntoExistingLeads } from './batch-merge';
import { duplicateLead, emailKey, findLiveLeadsByEmail, type LiveLeadByEmail } from './dedupe';
import { readLead } from './present';
import { checkLeadReferences, ensureCompanies, loadLeadWriteContext, type LeadWriteContext } from './references';
import type { AddLeadInput, LeadView } from './schemas';
import { foldLeadInput, groupAssignments, type BatchRow } from './lead-writes';

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

function planBatch(rows: BatchRow[], existing: Map<string, LiveLeadByEmail[]>, options: BatchOptions): Plan {
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
  notes text, import_job_id bigint, import_row integer, tag_ids bigint[]`);

function withoutNulls(fields: Record<string, unknown> | null | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields ?? {}).filter(([, value]) => value !== null));
}

/**
 * Inserts the rows with everything that goes with a new lead, in ONE statement: companies named
 * by the rows are linked case-insensitively or created (an upsert, so a concurrent creator of the
 * same name is found, not duplicated), then the leads, their tags, their feed entries and the
 * assignees' notifications. A row whose email a live lead already holds (or whose import row was
 * already inserted) is not inserted: the unique indexes make that race-free without a lock.
 * Returns the rows that were inserted with their ids (allocated beforehand).
 */
async function insertLeads(ctx: TenantContext, rows: { row: BatchRow; id: number }[], refs: LeadWriteContext, options: BatchOptions) {
  const records = rows.map(({ row, id }) => {
    const input = row.input;
    const linked = input.company_id != null;
    return {
      ...input,
      id,
      company_id: linked ? input.company_id : null,
      company: linked ? (refs.companies.get(input.company_id as number) ?? null) : (input.company ?? null),
      status: input.status ?? refs.defaultStatus,
      tags: undefined,
      tag_ids: [...new Set(input.tags ?? [])],
      custom_fields: withoutNulls(input.custom_fields),
      import_job_id: options.importJobId ?? null,
      import_row: options.importJobId ? row.rowNumber : null,
    };
  });
  const notices = leadAssignmentNotices(
    ctx,
    groupAssignments(rows.map(({ row, id }) => ({ assignedTo: row.input.assigned_to, leadId: id, name: `${row.input.first_name} ${row.input.last_name}` }))),
  ).map((notice) => ({ organization_id: notice.organizationId, user_id: notice.userId, type_id: notice.typeId, title: notice.title, data: notice.data }));
  const feedChanges = JSON.stringify(options.importJobId ? { import_job_id: { from: null, to: options.importJobId } } : {});
  const inserted = await ctx.db.execute<{ id: string }>(sql`
    with input as (
      select * from jsonb_to_recordset(${JSON.stringify(records)}::jsonb) as r(${insertColumns})
    ), named_companies as (
      insert into companies (organization_id, company_name, created_by)
      select distinct on (lower(company)) ${ctx.orgId}, company, ${ctx.userId} from input
      where company_id is null and company is not null
      order by lower(company), id
      on conflict (organization_id, lower(company_name)) where deleted_at is null do update set company_name = companies.company_name
      returning id, company_name
    ), inserted as (
      insert into leads (id, organization_id, first_name, last_name, email, phone_number, company, company_id, job_title, industry, website,
        address, city, state, country, pin_code, status, priority, lead_source, estimated_value, assigned_to, profile_url, custom_fields,
        notes, import_job_id, import_row, created_by)
      overriding system value
      select r.id, ${ctx.orgId}, r.first_name, r.last_name, r.email, r.phone_number, coalesce(c.company_name, r.company), coalesce(r.company_id, c.id),
        r.job_title, r.industry, r.website, r.address, r.city, r.state, r.country, r.pin_code, r.status, r.priority, r.lead_source,
        r.estimated_value, r.assigned_to, r.profile_url, coalesce(r.custom_fields, '{}'::jsonb), r.notes, r.import_job_id, r.import_row, ${ctx.userId}
      from input r left join named_companies c on r.company_id is null and lower(c.company_name) = lower(r.company)
      -- In email order, so two concurrent batches wait on each other's emails in one order, never in a cycle.
      order by lower(r.email), r.id
      on conflict do nothing
      returning id
    ), tagged as (
      insert into lead_tags (organization_id, lead_id, tag_id)
      select ${ctx.orgId}, r.id, tag from input r join inserted i on i.id = r.id cross join unnest(r.tag_ids) as tag
      on conflict do nothing
    ), feed as (
      insert into feed_entries (organization_id, model_type, model_id, action, actor_user_id, actor_api_key_id, changes)
      select ${ctx.orgId}, 'lead', id, 'created', ${ctx.userId}, ${ctx.apiKeyId ?? null}, ${feedChanges}::jsonb from inserted
    ), notified as (
      insert into notifications (organization_id, user_id, type_id, title, data)
      select n.organization_id, n.user_id, n.type_id, n.title, n.data
      from jsonb_to_recordset(${JSON.stringify(notices)}::jsonb) as n(organization_id bigint, user_id bigint, type_id smallint, title text, data jsonb)
      where exists (select 1 from inserted i where i.id in (select (jsonb_array_elements_text(n.data -> 'lead_ids'))::bigint))
    )
    select id from inserted`);
  const insertedIds = new Set(inserted.rows.map((row) => Number(row.id)));
  return rows.filter((entry) => insertedIds.has(entry.id)).map((entry) => ({ row: entry.row, leadId: entry.id }));
}

/**
 * Creates leads: one read (references, the live leads holding the emails, new ids) and, for rows
 * that create, one write. Rows that merge into an existing lead (imports with onDuplicate: merge)
 * take the separate merge path. A row that loses a race for its email to a concurrent writer is
 * reported as skipped with the winner's id.
 */
export async function createLeadsBatch(ctx: TenantContext, rows: BatchRow[], options: BatchOptions): Promise<BatchResult> {
  const result: BatchResult = { created: 0, updated: 0, skipped: [], merged: [], errors: [], createdLeads: [] };
  if (rows.length === 0) return result;
  const keys = [...new Set(rows.map((row) => emailKey(row.input.email)).filter((key): key is string => key !== null))];
  const refs = await loadLeadWriteContext(ctx, rows.map((row) => row.input), keys, rows.length);
  const valid: BatchRow[] = [];
  for (const row of rows) {
    const issues = checkLeadReferences(row.input, refs, 'create');
    if (issues.length > 0) result.errors.push(...issues.map((issue) => ({ rowNumber: row.rowNumber, ...issue })));
    else valid.push(row);
  }
  const plan = planBatch(valid, refs.existing, options);
  if (options.onDuplicate === 'merge') {
    // Repeats of a new email fold into the row that creates the lead.
    for (const repeat of plan.repeats) repeat.first.input = foldLeadInput(repeat.first.input, repeat.row.input);
  }

  const toCreate = plan.toCreate.map((row, index) => ({ row, id: refs.allocatedIds[index] }));
  const created = toCreate.length > 0 ? await insertLeads(ctx, toCreate, refs, options) : [];
  result.created = created.length;
  result.createdLeads = created.map((entry) => ({ rowNumber: entry.row.rowNumber, leadId: entry.leadId }));
  const idByRow = new Map(created.map((entry) => [entry.row, entry.leadId]));
  // Not inserted: a redelivered import row (its (job, row) key exists; nothing to report), or a
  // row whose email a concurrent writer took after the read (reported as skipped).
  const lost = plan.toCreate.filter((row) => !idByRow.has(row) && emailKey(row.input.email) !== null);
  result.skipped.push(...(await holdersOf(ctx, lost)));
  for (const repeat of plan.repeats) {
    const leadId = idByRow.get(repeat.first);
    if (leadId === undefined) continue;
    (options.onDuplicate === 'merge' ? result.merged : result.skipped).push({ rowNumber: repeat.row.rowNumber, leadId });
  }
  result.skipped.push(...plan.skipped);
  result.skipped.sort((a, b) => a.rowNumber - b.rowNumber);

  if (plan.merges.size > 0) {
    const mergeInputs = [...plan.merges.values()].flat().map((row) => row.input);
    const byName = await ensureCompanies(ctx, mergeInputs.filter((input) => input.company_id == null && input.company).map((input) => input.company as string));
    const merge = await mergeIntoExistingLeads(ctx, plan.merges, refs, byName);
    result.updated = merge.updated;
    result.merged.push(...merge.merged);
    result.merged.sort((a, b) => a.rowNumber - b.rowNumber);
    await notifyLeadAssignments(ctx, merge.assignments);
  }
  return result;
}

/** Rows whose insert lost to a concurrent writer of the same email: the lead that holds it now. */
async function holdersOf(ctx: TenantContext, rows: BatchRow[]): Promise<{ rowNumber: number; leadId: number }[]> {
  const keys = rows.map((row) => emailKey(row.input.email)).filter((key): key is string => key !== null);
  if (keys.length === 0) return [];
  const holders = await findLiveLeadsByEmail(ctx, keys);
  return rows.flatMap((row) => {
    const holder = holders.get(emailKey(row.input.email) as string)?.[0];
    return holder ? [{ rowNumber: row.rowNumber, leadId: holder.id }] : [];
  });
}

/** POST /api/lead/add: one lead, or 422 naming the field, or 409 `duplicate_lead` with the existing id. */
export async function createLead(ctx: TenantContext, input: AddLeadInput): Promise<LeadView> {
  const result = await createLeadsBatch(ctx, [{ rowNumber: 1, input }], { onDuplicate: 'skip' });
  if (result.errors.length > 0) throw new ValidationFailed(result.errors.map(({ field, message }) => ({ field, message })));
  if (result.skipped[0]) throw duplicateLead(result.skipped[0].leadId);
  return readLead(ctx, result.createdLeads[0].leadId);
}
