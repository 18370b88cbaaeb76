/**
 * Follow-ups on a lead (statuses in schemas.ts). Adding or changing one is sales activity: a
 * feed entry on the lead and a newer `last_activity_at`. A lead of another organization, or a
 * deleted lead, is a 404, and so are its follow-ups.
 */
import type { z } from '@hono/zod-openapi';
import { and, eq, exists, gte, ilike, inArray, isNull, lt, lte, sql } from 'drizzle-orm';
import { leadFollowUps, leads } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { BadRequest, NotFound } from '../../core/errors';
import { containsPattern, defineList } from '../../core/list';
import { isoTimestamp } from '../../core/schemas';
import { diffFields, recordFeed } from '../feed';
import { leadActivityAfter, recordLeadActivity, requireLead } from '../leads';
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

/** The fields a feed entry compares, in wire form. */
function auditable(row: FollowUpRow) {
  return { follow_up_date: isoTimestamp(row.followUpDate), notes: row.notes, status: row.status };
}

async function findFollowUp(ctx: TenantContext, id: number): Promise<FollowUpRow> {
  const [row] = await ctx.db
    .select(followUpFields)
    .from(leadFollowUps)
    .innerJoin(leads, and(eq(leads.id, leadFollowUps.leadId), isNull(leads.deletedAt)))
    .where(tenantWhere(ctx, leadFollowUps, eq(leadFollowUps.id, id)));
  if (!row) throw new NotFound('Follow-up', id);
  return row;
}

export async function addFollowUp(ctx: TenantContext, input: AddFollowUpInput) {
  // One statement: the lead's check is the insert's own (no row is inserted, and none comes back,
  // for a lead that is not a live lead of the organization), and the lead's activity follows it.
  const followUpDate = input.follow_up_date.toISOString();
  const given = diffFields(
    {},
    { follow_up_date: isoTimestamp(followUpDate), notes: input.notes ?? null, status: input.status },
  );
  const result = await ctx.db.execute<{
    id: string | number;
    lead_id: string | number;
    follow_up_date: string | Date;
    notes: string | null;
    status: string | number;
    created_by: string | number | null;
    created_at: string | Date;
    updated_at: string | Date;
  }>(sql`
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
  return presentFollowUp({
    id: Number(inserted.id),
    leadId: Number(inserted.lead_id),
    followUpDate: new Date(inserted.follow_up_date),
    notes: inserted.notes,
    status: Number(inserted.status),
    createdBy: inserted.created_by === null ? null : Number(inserted.created_by),
    createdAt: new Date(inserted.created_at),
    updatedAt: new Date(inserted.updated_at),
  });
}

export async function updateFollowUp(ctx: TenantContext, id: number, input: UpdateFollowUpInput) {
  const before = await findFollowUp(ctx, id);
  const [row] = await ctx.db
    .update(leadFollowUps)
    .set({
      // A new date is a new reminder (reminders.ts): the one sent for the old date does not cover it.
      ...(input.follow_up_date !== undefined
        ? {
            followUpDate: input.follow_up_date,
            ...(input.follow_up_date.getTime() !== before.followUpDate.getTime() ? { remindedAt: null } : {}),
          }
        : {}),
      ...(input.notes !== undefined ? { notes: input.notes } : {}),
      ...(input.status !== undefined ? { status: input.status } : {}),
      updatedAt: sql`now()`,
    })
    .where(tenantWhere(ctx, leadFollowUps, eq(leadFollowUps.id, id)))
    .returning(followUpFields);
  const changes = diffFields(auditable(before), auditable(row));
  const action = 'status' in changes ? 'follow_up_status_changed' : 'follow_up_updated';
  await recordLeadActivity(ctx, [
    { modelId: row.leadId, action, changes: { follow_up_id: { from: id, to: id }, ...changes } },
  ]);
  return presentFollowUp(row);
}

export async function deleteFollowUp(ctx: TenantContext, id: number) {
  // The delete is its own check: a follow-up of another organization, or of a deleted lead, deletes nothing.
  const [followUp] = await ctx.db
    .delete(leadFollowUps)
    .where(
      tenantWhere(
        ctx,
        leadFollowUps,
        eq(leadFollowUps.id, id),
        exists(
          ctx.db
            .select({ id: leads.id })
            .from(leads)
            .where(and(eq(leads.id, leadFollowUps.leadId), isNull(leads.deletedAt))),
        ),
      ),
    )
    .returning(followUpFields);
  if (!followUp) throw new NotFound('Follow-up', id);
  const removed = { follow_up_id: id, ...auditable(followUp) };
  const changes = Object.fromEntries(
    Object.entries(removed).map(([field, value]) => [field, { from: value, to: null }]),
  );
  await recordFeed(ctx, [{ modelType: 'lead', modelId: followUp.leadId, action: 'follow_up_deleted', changes }]);
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
