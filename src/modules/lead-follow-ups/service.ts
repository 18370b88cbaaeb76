/**
 * Follow-ups on a lead (statuses in schemas.ts). Adding or changing one is sales activity: a
 * feed entry on the lead and a newer `last_activity_at`. A lead of another organization, or a
 * deleted lead, is a 404, and so are its follow-ups.
 */
import type { z } from '@hono/zod-openapi';
import { eq, gte, ilike, inArray, isNull, lt, lte, type SQL, sql } from 'drizzle-orm';
import { leadFollowUps, leads } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { BadRequest, NotFound } from '../../core/errors';
import { containsPattern, defineList } from '../../core/list';
import { isoTimestamp, isoTimestampSql } from '../../core/schemas';
import { changedFieldsSql, changesSql, diffFields, feedEntriesFrom } from '../feed';
import { leadActivityAfter, requireLead } from '../leads';
import {
  FOLLOW_UP_STATUSES,
  isDateOnly,
  followUpListFilters,
  type AddFollowUpInput,
  type UpdateFollowUpInput,
} from './schemas';

const followUpFields = {
  id: leadFollowUps.id,
  leadId: leadFollowUps.leadId,
  followUpDate: leadFollowUps.followUpDate,
  notes: leadFollowUps.notes,
  status: leadFollowUps.status,
  createdBy: leadFollowUps.createdBy,
  createdAt: leadFollowUps.createdAt,
  updatedAt: leadFollowUps.updatedAt,
};

type FollowUpRow = {
  id: number;
  leadId: number;
  followUpDate: Date;
  notes: string | null;
  status: number;
  createdBy: number | null;
  createdAt: Date;
  updatedAt: Date;
};

function statusText(status: number): string {
  return FOLLOW_UP_STATUSES[status as keyof typeof FOLLOW_UP_STATUSES] ?? 'Unknown';
}

function presentFollowUp(row: FollowUpRow) {
  return {
    id: row.id,
    lead_id: row.leadId,
    follow_up_date: isoTimestamp(row.followUpDate) as string,
    notes: row.notes,
    status: row.status,
    status_text: statusText(row.status),
    created_by: row.createdBy,
    created_at: isoTimestamp(row.createdAt) as string,
    updated_at: isoTimestamp(row.updatedAt) as string,
  };
}

/** A follow-up as a statement of ours returns it (`returning id, lead_id, …`). */
interface FollowUpWire extends Record<string, unknown> {
  id: string | number;
  lead_id: string | number;
  follow_up_date: string | Date;
  notes: string | null;
  status: string | number;
  created_by: string | number | null;
  created_at: string | Date;
  updated_at: string | Date;
}

function followUpFromWire(row: FollowUpWire): FollowUpRow {
  return {
    id: Number(row.id),
    leadId: Number(row.lead_id),
    followUpDate: new Date(row.follow_up_date),
    notes: row.notes,
    status: Number(row.status),
    createdBy: row.created_by === null ? null : Number(row.created_by),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

/** The follow-up's lead is a live lead (a condition on a statement over lead_follow_ups). */
function ofLiveLead(): SQL {
  return sql`exists (select 1 from ${leads} where ${leads.id} = ${leadFollowUps.leadId} and ${leads.deletedAt} is null)`;
}

export async function addFollowUp(ctx: TenantContext, input: AddFollowUpInput) {
  // One statement: the lead's check is the insert's own (no row is inserted, and none comes back,
  // for a lead that is not a live lead of the organization), and the lead's activity follows it.
  const followUpDate = input.follow_up_date.toISOString();
  const given = diffFields(
    {},
    { follow_up_date: isoTimestamp(followUpDate), notes: input.notes ?? null, status: input.status },
  );
  const result = await ctx.db.execute<FollowUpWire>(sql`
    with inserted as (
      insert into ${leadFollowUps} (organization_id, lead_id, follow_up_date, notes, status, created_by)
      select ${ctx.orgId}::bigint, ${leads.id}, ${followUpDate}::timestamptz, ${input.notes ?? null}::text,
        ${input.status}::smallint, ${ctx.userId}::bigint
      from ${leads}
      where ${tenantWhere(ctx, leads, eq(leads.id, input.lead_id), isNull(leads.deletedAt))}
      returning id, lead_id, follow_up_date, notes, status, created_by, created_at, updated_at
    ), ${leadActivityAfter(ctx, 'inserted', {
      action: 'follow_up_added',
      changes: sql`${JSON.stringify(given)}::jsonb
        || jsonb_build_object('follow_up_id', jsonb_build_object('from', null, 'to', inserted.id))`,
    })}
    select * from inserted`);
  const inserted = result.rows[0];
  if (!inserted) throw new NotFound('Lead', input.lead_id);
  return presentFollowUp(followUpFromWire(inserted));
}

/** What a follow-up's feed entries compare, in wire form, of the row `row` names (a table or CTE). */
function auditableSql(row: string): SQL {
  const of = (column: string) => sql`${sql.identifier(row)}.${sql.identifier(column)}`;
  return sql`jsonb_build_object('follow_up_date', ${isoTimestampSql(of('follow_up_date'))}, 'notes', ${of('notes')}, 'status', ${of('status')})`;
}

export async function updateFollowUp(ctx: TenantContext, id: number, input: UpdateFollowUpInput) {
  // One statement: the follow-up (of a live lead of the organization, else 404) locked and read as
  // it was, the update, the lead's activity and the feed entry of what changed. A new date is a new
  // reminder (reminders.ts): the one sent for the old date does not cover it.
  const date = input.follow_up_date?.toISOString();
  const sets = [
    date !== undefined ? sql`follow_up_date = ${date}::timestamptz` : undefined,
    date !== undefined
      ? sql`reminded_at = case when locked.follow_up_date = ${date}::timestamptz then ${leadFollowUps.remindedAt} end`
      : undefined,
    input.notes !== undefined ? sql`notes = ${input.notes}::text` : undefined,
    input.status !== undefined ? sql`status = ${input.status}::smallint` : undefined,
    sql`updated_at = now()`,
  ].filter((set) => set !== undefined);
  const result = await ctx.db.execute<FollowUpWire>(sql`
    with locked as (
      select ${leadFollowUps.id} as id, ${leadFollowUps.followUpDate} as follow_up_date, ${auditableSql('lead_follow_ups')} as was
      from ${leadFollowUps}
      where ${tenantWhere(ctx, leadFollowUps, eq(leadFollowUps.id, id), ofLiveLead())}
      for no key update
    ), updated as (
      update ${leadFollowUps} set ${sql.join(sets, sql`, `)}
      from locked where ${leadFollowUps.id} = locked.id
      returning ${leadFollowUps.id}, ${leadFollowUps.leadId}, ${leadFollowUps.followUpDate}, ${leadFollowUps.notes},
        ${leadFollowUps.status}, ${leadFollowUps.createdBy}, ${leadFollowUps.createdAt}, ${leadFollowUps.updatedAt}, locked.was
    ), ${leadActivityAfter(ctx, 'updated', {
      action: sql`case when updated.was -> 'status' is distinct from to_jsonb(updated.status)
        then 'follow_up_status_changed' else 'follow_up_updated' end`,
      changes: sql`jsonb_build_object('follow_up_id', jsonb_build_object('from', updated.id, 'to', updated.id))
        || ${changedFieldsSql(sql`updated.was`, auditableSql('updated'))}`,
    })}
    select id, lead_id, follow_up_date, notes, status, created_by, created_at, updated_at from updated`);
  const updated = result.rows[0];
  if (!updated) throw new NotFound('Follow-up', id);
  return presentFollowUp(followUpFromWire(updated));
}

export async function deleteFollowUp(ctx: TenantContext, id: number) {
  // One statement: the delete is its own check (a follow-up of another organization, or of a
  // deleted lead, deletes nothing and records nothing), and its feed entry follows it.
  const result = await ctx.db.execute<{ id: string }>(sql`
    with deleted as (
      delete from ${leadFollowUps}
      where ${tenantWhere(ctx, leadFollowUps, eq(leadFollowUps.id, id), ofLiveLead())}
      returning id, lead_id, follow_up_date, notes, status
    ), feed as (${feedEntriesFrom(ctx, {
      from: sql`deleted`,
      modelType: 'lead',
      modelId: sql`deleted.lead_id`,
      action: 'follow_up_deleted',
      changes: changesSql({
        follow_up_id: { from: sql`deleted.id` },
        follow_up_date: { from: isoTimestampSql(sql`deleted.follow_up_date`) },
        notes: { from: sql`deleted.notes` },
        status: { from: sql`deleted.status` },
      }),
    })})
    select id from deleted`);
  if (!result.rows[0]) throw new NotFound('Follow-up', id);
  return { id };
}

/** The day after a bare date (`follow_up_to` covers its whole UTC day). */
function dayAfter(value: string): Date {
  const nextDay = new Date(`${value}T00:00:00Z`);
  nextDay.setUTCDate(nextDay.getUTCDate() + 1);
  return nextDay;
}

/** The end of a `follow_up_to` bound: a bare date covers its whole (UTC) day. */
function followUpUpperBound(value: string) {
  if (!isDateOnly(value)) return lte(leadFollowUps.followUpDate, new Date(value));
  return lt(leadFollowUps.followUpDate, dayAfter(value));
}

/** 400 for a range that ends before it starts: it would answer an empty page, as if nothing were due. */
function checkFollowUpRange(from: string | undefined, to: string | undefined) {
  if (!from || !to) return;
  const start = new Date(from).getTime();
  const inverted = isDateOnly(to) ? start >= dayAfter(to).getTime() : start > new Date(to).getTime();
  if (inverted) throw new BadRequest('follow_up_from: must not be after follow_up_to', 'follow_up_from');
}

export const followUpList = defineList({
  sort: {
    id: leadFollowUps.id,
    follow_up_date: leadFollowUps.followUpDate,
    created_at: leadFollowUps.createdAt,
    status: leadFollowUps.status,
  },
  filters: followUpListFilters,
  search: (term) => ilike(leadFollowUps.notes, containsPattern(term)),
  createdAt: leadFollowUps.createdAt,
  base: (ctx, params) => ({
    rows: (columns) =>
      ctx.db
        .select({ ...followUpFields, ...columns })
        .from(leadFollowUps)
        .$dynamic(),
    where: tenantWhere(
      ctx,
      leadFollowUps,
      eq(leadFollowUps.leadId, params.lead_id),
      params.status ? inArray(leadFollowUps.status, params.status) : undefined,
      params.follow_up_from ? gte(leadFollowUps.followUpDate, new Date(params.follow_up_from)) : undefined,
      params.follow_up_to ? followUpUpperBound(params.follow_up_to) : undefined,
    ),
  }),
  present: (row) => presentFollowUp(row),
});
export const FollowUpListQuery = followUpList.query;

export async function listFollowUps(ctx: TenantContext, params: z.output<typeof FollowUpListQuery>) {
  checkFollowUpRange(params.follow_up_from, params.follow_up_to);
  await requireLead(ctx, params.lead_id);
  return followUpList.run(ctx, params);
}
