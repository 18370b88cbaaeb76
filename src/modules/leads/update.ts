/**
 * Changing one lead (update, custom fields) and soft-deleting leads. custom_fields and
 * ai_information merge key by key into the stored objects (a key sent as null is removed);
 * every change writes a feed entry with before/after of the changed fields.
 *
 * An update's round trips (after the scope): the lead read and locked (BEGIN rides with it), the
 * update returning the lead as it now reads, the feed entry with the scoring job when a scored
 * field changed, COMMIT. Only what the input names adds one: its references (lookups, users,
 * companies), a company by name, new tags, a new email or profile URL, a new assignee.
 */
import { eq, sql, type SQL } from 'drizzle-orm';
import type { Queryable } from '../../db/client';
import { writeCheckedKey } from '../../db/key-locks';
import { leads, leadTags } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { NotFound, ValidationFailed } from '../../core/errors';
import { feedEntriesFrom, feedEntriesOf } from '../feed';
import { notifyLeadAssignments } from '../notifications';
import { assertEmailFree, assertProfileUrlFree, duplicateLead, emailKey, originalHolderSql } from './dedupe';
import { leadFilterWhere } from './filters';
import { type LeadColumnKey, leadFields } from './fields';
import { companyOf } from './lead-writes';
import { leadChanges, leadSelection, presentLead, readLeadForUpdate } from './present';
import { checkLeadReferences, ensureCompanies, type LeadReferences, loadLeadReferences } from './references';
import { leadRowLockClause } from './row-locks';
import type { LeadView, UpdateLeadInput } from './schemas';
import { leadScoringCtes, scoringOutboxRows } from '../../jobs/scoring-request';
import { sendRowsAfterCommit } from '../../jobs/outbox';
import type { JobMessage } from '../../jobs/messages';

/** The unique indexes of a live lead's email and profile URL (db/schema/leads.ts). */
const LIVE_EMAIL_KEY = 'leads_organization_live_email_key';
const LIVE_PROFILE_URL_KEY = 'leads_organization_live_profile_url_key';

/** The fields lead scoring reads (modules/lead-scoring/features.ts): a change to one asks for a rescoring. */
const SCORED_FIELDS = ['industry', 'job_title', 'country', 'lead_source', 'company', 'company_id'] as const;

/** The fields whose check reads the organization's lookups, users or companies. */
function namesReferences(input: UpdateLeadInput): boolean {
  return (
    input.status != null ||
    input.priority != null ||
    input.lead_source != null ||
    (input.tags?.length ?? 0) > 0 ||
    input.assigned_to != null ||
    input.company_id != null
  );
}

/** What `checkLeadReferences` and `companyOf` get for an input that names none. */
const NO_REFERENCES: LeadReferences = {
  status: new Set(),
  priority: new Set(),
  source: new Set(),
  tags: new Set(),
  defaultStatus: null,
  users: new Set(),
  companies: new Map(),
};

/** Stored fields by write rule (field table): a given value replaces, or merges key by key. */
const overwrittenFields = leadFields.updateColumns;
const mergedFields = leadFields
  .columns('update', ['merge_keys'])
  .map((column) => [column.key as keyof UpdateLeadInput, column.column as LeadColumnKey] as const);

/** `stored || patch - removed`: keys set to null are removed, others replace or add. */
function mergeJson(column: LeadColumnKey, patch: Record<string, unknown>): SQL {
  const set = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== null));
  const removed = Object.keys(patch).filter((key) => patch[key] === null);
  return sql`(${leads[column]} || ${JSON.stringify(set)}::jsonb) - ${sql.param(removed)}::text[]`;
}

/** The lead's tags become exactly `tags`, in one statement (the kept pairs are left alone). */
async function replaceTags(ctx: TenantContext, leadId: number, tags: number[]): Promise<void> {
  await ctx.db.execute(sql`
    with dropped as (
      delete from ${leadTags}
      where organization_id = ${ctx.orgId} and lead_id = ${leadId} and not (tag_id = any(${sql.param(tags)}::bigint[]))
    )
    insert into ${leadTags} (organization_id, lead_id, tag_id)
    select ${ctx.orgId}, ${leadId}, tag from unnest(${sql.param(tags)}::bigint[]) as tag
    on conflict do nothing`);
}

/** The `updated` feed entry, and in the same statement the scoring job when a scored field changed. */
async function recordUpdate(
  ctx: TenantContext,
  id: number,
  changes: Record<string, { from: unknown; to: unknown }>,
): Promise<void> {
  const feed = feedEntriesOf(ctx, [{ modelType: 'lead', modelId: id, action: 'updated', changes }]);
  if (!SCORED_FIELDS.some((field) => field in changes)) {
    await ctx.db.execute(feed);
    return;
  }
  const result = await ctx.db.execute<{ rows: { id: number; message: JobMessage }[] }>(sql`
    with ${leadScoringCtes(ctx, sql`array[${id}::bigint]`)}, feed as (${feed})
    select ${scoringOutboxRows} as rows`);
  sendRowsAfterCommit(ctx, result.rows[0]?.rows ?? [], { consumerDeletes: true });
}

function companyPatch(input: UpdateLeadInput, refs: LeadReferences, byName: Map<string, { id: number; name: string }>) {
  if (input.company_id != null || input.company) return companyOf(input, refs, byName);
  if (input.company === null || input.company_id === null) return { companyId: null, company: null };
  return undefined;
}

export async function updateLead(ctx: TenantContext, id: number, input: UpdateLeadInput): Promise<LeadView> {
  // The company the lead moves into is locked FOR SHARE before the lead (companies before leads,
  // as a company delete locks them: row-locks.ts): a delete holding it makes the move wait and then
  // find it gone (422 company_id, or a new company of the name); a move holding it makes the delete
  // wait and then see the lead.
  const byName = input.company_id == null && input.company ? await ensureCompanies(ctx, [input.company]) : new Map();
  const refs = namesReferences(input) ? await loadLeadReferences(ctx, [input]) : NO_REFERENCES;
  const before = await readLeadForUpdate(ctx, id);
  const issues = checkLeadReferences(input, refs, 'update');
  if (issues.length > 0) throw new ValidationFailed(issues);
  const newEmail = input.email && emailKey(input.email) !== emailKey(before.email) ? input.email : null;
  const newProfileUrl = input.profile_url && input.profile_url !== before.profile_url ? input.profile_url : null;
  if (newEmail) await assertEmailFree(ctx, newEmail, id);
  if (newProfileUrl) await assertProfileUrlFree(ctx, newProfileUrl, id);

  const set: Record<string, unknown> = { updatedAt: sql`now()` };
  for (const [wire, column] of overwrittenFields) {
    if (input[wire] !== undefined) set[column] = input[wire];
  }
  const company = companyPatch(input, refs, byName);
  if (company) Object.assign(set, company);
  for (const [wire, column] of mergedFields) {
    const patch = input[wire];
    if (patch) set[column] = mergeJson(column, patch as Record<string, unknown>);
  }
  // The tags first, so that the update's answer reads them as they now are.
  if (input.tags !== undefined) await replaceTags(ctx, id, [...new Set(input.tags ?? [])]);
  // The lead as it reads after the change, from the update itself: no second read.
  const update = (db: Queryable) =>
    db
      .update(leads)
      .set(set)
      .where(tenantWhere(ctx, leads, eq(leads.id, id)))
      .returning(leadSelection);
  // A concurrent create takes no key lock (its insert settles on the unique indexes) and may
  // commit the email or profile URL after the check: the index refuses this update, answered as
  // the check's 409 naming the holder (writeCheckedKey).
  const [row] =
    newEmail || newProfileUrl
      ? await writeCheckedKey(ctx.db, [LIVE_EMAIL_KEY, LIVE_PROFILE_URL_KEY], update, async (constraint) => {
          const key =
            constraint === LIVE_EMAIL_KEY && newEmail ? { email: newEmail } : { url: newProfileUrl as string };
          const holder = await ctx.db.execute<{ id: string }>(originalHolderSql(ctx.orgId, key, id));
          return holder.rows[0]
            ? duplicateLead(Number(holder.rows[0].id), 'email' in key ? 'email' : 'profile_url')
            : new Error('lead update refused without a holder');
        })
      : await update(ctx.db);
  if (!row) throw new NotFound('Lead', id);
  const after = presentLead(row);
  const changes = leadChanges(before, after);
  const assigned = after.assigned_to !== null && after.assigned_to !== before.assigned_to;
  // The request's last statement (the feed entry, or the assignee's notice after it) carries its COMMIT.
  if (Object.keys(changes).length > 0) {
    if (!assigned) ctx.commitWithNext?.();
    await recordUpdate(ctx, id, changes);
  }
  if (assigned) {
    ctx.commitWithNext?.();
    await notifyLeadAssignments(ctx, [
      { userId: after.assigned_to, leadId: id, leadName: `${after.first_name} ${after.last_name}` },
    ]);
  }
  return after;
}

export function updateLeadCustomFields(
  ctx: TenantContext,
  leadId: number,
  customFields: Record<string, unknown>,
): Promise<LeadView> {
  return updateLead(ctx, leadId, { custom_fields: customFields as UpdateLeadInput['custom_fields'] });
}

/** Sets one custom field; no value (or null) removes it. */
export function setLeadCustomField(
  ctx: TenantContext,
  leadId: number,
  name: string,
  value: unknown,
): Promise<LeadView> {
  return updateLeadCustomFields(ctx, leadId, { [name]: value ?? null });
}

/**
 * Soft delete in one statement, feed entries included. Unknown, deleted and other organizations' ids
 * are not counted. The leads are locked FOR UPDATE (in id order) before they are written, as a
 * company change locks its lead (row-locks.ts): a signal, meeting or deal inserted meanwhile waits
 * and carries no company, and a deal write waits instead of deadlocking.
 */
export async function deleteLeads(ctx: TenantContext, ids: number[]): Promise<number> {
  const result = await ctx.db.execute<{ deleted: number }>(sql`
    with locked as (
      select ${leads.id} as id from ${leads}
      where ${leadFilterWhere(ctx, {})} and ${leads.id} = any(${sql.param(ids)}::bigint[])
      order by ${leads.id} ${leadRowLockClause('update')}
    ), deleted as (
      update ${leads} set deleted_at = now(), updated_at = now()
      where ${leads.organizationId} = ${ctx.orgId} and ${leads.id} in (select id from locked)
      returning id
    ), feed as (
      ${feedEntriesFrom(ctx, { from: sql`deleted`, modelType: 'lead', modelId: sql`id`, action: 'deleted' })}
    )
    select count(*)::int as deleted from deleted`);
  return Number(result.rows[0]?.deleted ?? 0);
}
