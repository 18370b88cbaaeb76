/**
 * Lead ingestion (POST /api/v1/lead and hosted web-form submissions) through the one creation
 * path, `createLeadsBatch`. A new lead costs two statements after the scope: the batch's read
 * (references, live holders of the email / profile URL, a new id) and its insert; tag names add
 * one statement that finds or creates their tag lookups. Races are settled by the uniqueness
 * indexes: of two concurrent identical submissions one inserts and the other finds the holder.
 */
import { lookups } from '../../db/schema';
import { sql } from 'drizzle-orm';
import type { TenantContext } from '../../db/tenant';
import { ValidationFailed } from '../../core/errors';
import { LEAD_LOOKUP_MODULE } from '../lookups';
import { duplicateLead } from '../leads';
import { readLead } from '../leads';
import type { LeadWriteContext } from '../leads';
import type { AddLeadInput, LeadView } from '../leads';
import { type BatchOptions, type BatchResult, type CreatedLeadRecord, createOneLead, duplicateModeOf } from '../leads';
import { INGEST_FIELDS, type IngestLeadInput } from './schemas';

/**
 * Defaults of spec rule "status (integer, default 1), priority (1 to 4, default 2)". Status 1 only
 * while it is an active status of the organization, else its first active one (as POST
 * /api/lead/add): chosen by createLeadsBatch from the read it makes anyway (`preferredStatus`).
 */
const DEFAULT_STATUS = 1;
const DEFAULT_PRIORITY = 2;

export type IngestOutcome =
  | { kind: 'created'; lead: CreatedLeadRecord }
  | { kind: 'merged'; lead: LeadView }
  /** onDuplicate 'report': a live lead holds the email or profile URL; nothing was written to it. */
  | { kind: 'existing'; leadId: number };

/**
 * The ids of the organization's active tag lookups with these names (any case), creating the
 * missing ones, in one statement. Active tag names are unique without case (migration 0082,
 * `lookups_organization_active_tag_name_key`): of concurrent first uses of one new name, the
 * statement's snapshot sees none of the others' inserts, so each tries to insert it; the first
 * creates it and the others wait on the index and take the committed row's id (the no-op DO UPDATE
 * returns it, where DO NOTHING would return no row). A name only an inactive tag has gets a new tag.
 */
export async function tagIdsFor(ctx: Pick<TenantContext, 'db' | 'orgId'>, names: string[]): Promise<number[]> {
  const unique = [...new Map(names.toReversed().map((name) => [name.toLowerCase(), name])).values()];
  if (unique.length === 0) return [];
  const result = await ctx.db.execute<{ id: string }>(sql`
    with wanted as (select name from unnest(${sql.param(unique)}::text[]) as name),
    found as (
      select distinct on (lower(l.name)) l.id, lower(l.name) as key from ${lookups} l
      where l.organization_id = ${ctx.orgId} and l.module_name = ${LEAD_LOOKUP_MODULE} and l.type = 'tags' and l.is_active
        and lower(l.name) in (select lower(name) from wanted)
      order by lower(l.name), l.id
    ), created as (
      insert into ${lookups} (organization_id, module_name, type, name)
      select ${ctx.orgId}, ${LEAD_LOOKUP_MODULE}, 'tags', name from wanted where lower(name) not in (select key from found)
      on conflict (organization_id, module_name, type, lower(name)) where type = 'tags' and is_active
      do update set name = ${lookups}.name
      returning id
    )
    select id from found union all select id from created`);
  return result.rows.map((row) => Number(row.id));
}

/** The lead-creation input of an ingested lead: listed fields as given, unlisted ones into custom_fields. */
export function toLeadInput(input: IngestLeadInput, tagIds: number[]): AddLeadInput {
  const unlisted = Object.fromEntries(Object.entries(input).filter(([key]) => !Object.hasOwn(INGEST_FIELDS, key)));
  return {
    // Absent names stay absent: a merge keeps the stored ones, a create stores '' (leads/create-leads.ts).
    first_name: input.first_name,
    last_name: input.last_name,
    email: input.email ?? null,
    phone_number: input.phone_number ?? null,
    profile_url: input.profile_url ?? null,
    company: input.company ?? null,
    job_title: input.job_title ?? null,
    // Absent stays absent: the create takes DEFAULT_STATUS or the first active status, a merge keeps the stored one.
    status: input.status,
    priority: input.priority ?? DEFAULT_PRIORITY,
    lead_source: input.lead_source ?? null,
    tags: tagIds,
    custom_fields: { ...unlisted, ...input.custom_fields },
  } as AddLeadInput;
}

/**
 * Creates the lead, or, when a live lead holds its email or profile URL: 409 `duplicate_lead`
 * (onDuplicate 'skip'), a flagged duplicate (`create`), or a merge into the holder (`merge`).
 * The create is tried first in every mode (one read, one insert, no transaction); only a
 * duplicate goes on to its mode's path, which also settles a create lost to a concurrent writer
 * (`createOneLead`, shared with POST /api/lead/add).
 */
export async function ingestLead(
  ctx: TenantContext,
  input: IngestLeadInput,
  extra: {
    tags?: string[];
    assignedTo?: number | null;
    /** 'report': a duplicate writes nothing and answers the holder (public submissions, web-forms/existing-lead.ts). */
    onDuplicate?: BatchOptions['onDuplicate'] | 'report';
    /** The batch's read, carried by the scope statement (prefetch.ts); made for this input. */
    context?: LeadWriteContext;
  } = {},
): Promise<IngestOutcome> {
  const onDuplicate = extra.onDuplicate ?? duplicateModeOf(input);
  const tagIds = await tagIdsFor(ctx, [...(input.tags ?? []), ...(extra.tags ?? [])]);
  const row = {
    rowNumber: 1,
    input: { ...toLeadInput(input, tagIds), ...(extra.assignedTo ? { assigned_to: extra.assignedTo } : {}) },
  };
  // Tags found or created just now are active tag lookups: the prefetched read predates them.
  for (const id of tagIds) extra.context?.tags.add(id);
  const result = await createOneLead(ctx, row, onDuplicate === 'report' ? 'skip' : onDuplicate, {
    context: extra.context,
    preferredStatus: DEFAULT_STATUS,
  });
  const settled = outcomeOf(result);
  if (settled) return present(ctx, settled);
  if (onDuplicate === 'report' && result.skipped[0]) return { kind: 'existing', leadId: result.skipped[0].leadId };
  return refuse(result);
}

async function present(ctx: TenantContext, settled: Settled): Promise<IngestOutcome> {
  return settled.kind === 'merged' ? { kind: 'merged', lead: await readLead(ctx, settled.leadId) } : settled;
}

type Settled = { kind: 'created'; lead: CreatedLeadRecord } | { kind: 'merged'; leadId: number };

function outcomeOf(result: BatchResult): Settled | null {
  if (result.errors.length > 0)
    throw new ValidationFailed(result.errors.map(({ field, message }) => ({ field, message })));
  if (result.createdLeads[0]) return { kind: 'created', lead: result.createdLeads[0].record };
  if (result.merged[0]) return { kind: 'merged', leadId: result.merged[0].leadId };
  return null;
}

function refuse(result: BatchResult): never {
  const skipped = result.skipped[0];
  throw duplicateLead(skipped.leadId, skipped.field);
}
