import { eq, getTableColumns, ilike, isNull, type SQL, sql } from 'drizzle-orm';
import { NotFound, ValidationFailed } from '../../core/errors';
import { containsPattern, defineList } from '../../core/list';
import { meetingFilters, meetingFilterWhere } from './filters';
import { isoTimestamp } from '../../core/schemas';
import { referencesExist } from '../../db/references';
import { meetings, users } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { bumpBookingVersion } from '../booking';
import { enqueueMeetingEvent, requeueMeetingEvent } from '../calendar';
import { touchLeadActivity, touchLeadActivityCte } from '../leads';
import { type AddMeetingInput, statusText, type UpdateMeetingInput } from './schemas';

type MeetingRow = typeof meetings.$inferSelect;
const meetingColumns = getTableColumns(meetings);

export function presentMeeting(row: MeetingRow) {
  return {
    id: row.id,
    user_id: row.userId,
    lead_id: row.leadId,
    contact_id: row.contactId,
    company_id: row.companyId,
    title: row.title,
    description: row.description,
    location: row.location,
    start_time: isoTimestamp(row.startTime) as string,
    end_time: isoTimestamp(row.endTime) as string,
    timezone: row.timezone,
    attendees: row.attendees.map((attendee) => ({ email: attendee.email, name: attendee.name ?? null })),
    meeting_url: row.meetingUrl,
    meeting_tool: row.meetingTool,
    status: row.status,
    status_text: statusText(row.status),
    source: row.source as 'app' | 'booking',
    created_by: row.createdBy,
    created_at: isoTimestamp(row.createdAt) as string,
    updated_at: isoTimestamp(row.updatedAt) as string,
    latest_summary: row.summary ?? null,
  };
}

export const meetingList = defineList({
  sort: { id: meetings.id, start_time: meetings.startTime, created_at: meetings.createdAt },
  filters: meetingFilters,
  search: (term) => ilike(meetings.title, containsPattern(term)),
  createdAt: meetings.createdAt,
  // Pages in id order read the organization's own ids (its (organization_id, id desc nulls last) index; migration 0078).
  tenantIdOrder: true,
  // Unfiltered, the total is the organization's meetings counter (migration 0079).
  counter: 'meetings',
  base: (ctx, params) => ({
    rows: (columns) =>
      ctx.db
        .select({ ...meetingColumns, ...columns })
        .from(meetings)
        .$dynamic(),
    where: meetingFilterWhere(ctx, params),
  }),
  present: (row) => presentMeeting(row),
});

export const MeetingListQuery = meetingList.query;

export const listMeetings = meetingList.run;

async function findMeeting(ctx: TenantContext, id: number): Promise<MeetingRow> {
  const [row] = await ctx.db
    .select()
    .from(meetings)
    .where(tenantWhere(ctx, meetings, eq(meetings.id, id)));
  if (!row) throw new NotFound('Meeting', id);
  return row;
}

export async function readMeeting(ctx: TenantContext, id: number) {
  return presentMeeting(await findMeeting(ctx, id));
}

interface References {
  user_id?: number;
  lead_id?: number | null;
  contact_id?: number | null;
  company_id?: number | null;
}

/**
 * One statement: each referenced record must be a live record of the organization (404 naming it
 * otherwise, as for any record of another organization); answers the owner's timezone.
 */
async function checkReferences(ctx: TenantContext, refs: References, ownerId: number): Promise<string> {
  // An API key whose creator is gone names no owner: no user to find.
  if (ownerId == null) throw new NotFound('User', ownerId);
  const { ownerTimezone } = await referencesExist(
    ctx,
    { user_id: ownerId, lead_id: refs.lead_id, contact_id: refs.contact_id, company_id: refs.company_id },
    { notFound: ['user_id', 'lead_id', 'contact_id', 'company_id'] },
    {
      ownerTimezone: sql<
        string | null
      >`(select ${users.timezone} from ${users} where ${tenantWhere(ctx, users, eq(users.id, ownerId), isNull(users.deletedAt))})`,
    },
  );
  return ownerTimezone ?? 'UTC';
}

/** The meeting's lead, as the ids whose activity it moves. */
function leadIdsOf(row: { leadId: number | null }): number[] {
  return row.leadId ? [row.leadId] : [];
}

function assertEndAfterStart(start: Date, end: Date): void {
  if (end.getTime() <= start.getTime()) throw ValidationFailed.field('end_time', 'must be after start_time');
}

export async function addMeeting(ctx: TenantContext, input: AddMeetingInput) {
  assertEndAfterStart(input.start_time, input.end_time);
  const ownerId = input.user_id ?? (ctx.userId as number);
  const ownerTimezone = await checkReferences(ctx, input, ownerId);
  await bumpBookingVersion(ctx, [ownerId]);
  const [row] = await ctx.db
    .insert(meetings)
    .values({
      organizationId: ctx.orgId,
      userId: ownerId,
      leadId: input.lead_id ?? null,
      contactId: input.contact_id ?? null,
      companyId: input.company_id ?? null,
      title: input.title,
      description: input.description ?? null,
      location: input.location ?? null,
      startTime: input.start_time,
      endTime: input.end_time,
      timezone: input.timezone ?? ownerTimezone,
      attendees: input.attendees ?? [],
      meetingUrl: input.meeting_url ?? null,
      meetingTool: input.meeting_tool ?? 'none',
      status: input.status ?? 1,
      createdBy: ctx.userId,
    })
    .returning();
  // Written into the rep's connected calendar after the commit, as a booked meeting is; the lead's
  // activity moves in the same statement, the request's last: its COMMIT goes with it.
  ctx.commitWithNext?.();
  await enqueueMeetingEvent(ctx, { id: row.id, userId: row.userId }, touchLeadActivityCte(ctx, leadIdsOf(row)));
  return presentMeeting(row);
}

export async function updateMeeting(ctx: TenantContext, id: number, input: UpdateMeetingInput) {
  const before = await findMeeting(ctx, id);
  assertEndAfterStart(input.start_time ?? before.startTime, input.end_time ?? before.endTime);
  const ownerId = input.user_id ?? before.userId;
  await checkReferences(ctx, input, ownerId);
  await bumpBookingVersion(ctx, [before.userId, ownerId]);
  const [row] = await ctx.db
    .update(meetings)
    .set({
      userId: input.user_id,
      leadId: input.lead_id,
      contactId: input.contact_id,
      companyId: input.company_id,
      title: input.title,
      description: input.description,
      location: input.location,
      startTime: input.start_time,
      endTime: input.end_time,
      timezone: input.timezone,
      attendees: input.attendees,
      meetingUrl: input.meeting_url,
      meetingTool: input.meeting_tool,
      status: input.status,
      updatedAt: sql`now()`,
    })
    .where(tenantWhere(ctx, meetings, eq(meetings.id, id)))
    .returning();
  // The lead's activity rides with the first calendar statement below, or goes alone.
  let touch: SQL | undefined = touchLeadActivityCte(ctx, leadIdsOf(row));
  // The last of the statements below carries the request's COMMIT (ctx.commitWithNext).
  const newRep = row.userId !== before.userId;
  // A booked meeting's event in the rep's calendar follows it: moved, changed, or deleted when cancelled.
  if (EVENT_FIELDS.some((field) => input[field] !== undefined)) {
    if (!newRep) ctx.commitWithNext?.();
    await requeueMeetingEvent(ctx, id, touch);
    touch = undefined;
  }
  // Given to a rep with a calendar: written there even when its former rep had none (no write row yet).
  if (newRep) {
    ctx.commitWithNext?.();
    await enqueueMeetingEvent(ctx, { id: row.id, userId: row.userId }, touch);
    touch = undefined;
  }
  if (touch !== undefined && row.leadId) {
    ctx.commitWithNext?.();
    await touchLeadActivity(ctx, [row.leadId]);
  }
  return presentMeeting(row);
}

/** The fields a meeting's calendar event carries (or that decide whether it has one, and whose calendar). */
const EVENT_FIELDS = [
  'title',
  'description',
  'location',
  'start_time',
  'end_time',
  'timezone',
  'attendees',
  'status',
  'user_id',
] as const satisfies readonly (keyof UpdateMeetingInput)[];

export async function deleteMeeting(ctx: TenantContext, id: number): Promise<void> {
  const before = await findMeeting(ctx, id);
  await bumpBookingVersion(ctx, [before.userId]);
  // Before the delete, which unlinks the meeting's calendar write: the job deletes its event.
  await requeueMeetingEvent(ctx, id);
  await ctx.db.delete(meetings).where(tenantWhere(ctx, meetings, eq(meetings.id, id)));
}
