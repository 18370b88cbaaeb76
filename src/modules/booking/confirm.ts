/**
 * POST /api/v1/booking/{slug}/confirm in four statements (round trips), inside one transaction:
 *
 * 1. BEGIN.
 * 2. The scope statement, carrying the caller check: the rep's row `for update` (the race guard:
 *    concurrent confirmations of one rep queue on this lock until the first commits) with its
 *    schedule, and the leads module's write context for the visitor's email (lookups, the live
 *    lead holding the email, a new lead id), all read as the rep's organization.
 * 3. One write, in a fresh snapshot taken after the lock, so it sees every booking committed
 *    before: the slot is free (no live meeting of the rep within the buffer), and only then the
 *    new lead (the one creation path's CTEs, with its feed entry and the rep's assignment
 *    notification), the meeting (source `booking`), the lead's activity, a feed entry
 *    `meeting_booked` on the lead, and the booking version bump (the edge cache's key). For a rep
 *    with a calendar connected, the slot must also be clear of the calendar's synced busy times,
 *    and the meeting's calendar_event_writes row and its outbox row are written too (the event is
 *    inserted into the calendar after the commit, once: modules/calendar/event-queue.ts, event-job.ts).
 *    The booking.confirmed webhook and chat deliveries (and the new lead's lead.created and
 *    lead.assigned) are CTEs of this write too (modules/webhooks), so the events cost no round trip.
 * 4. COMMIT.
 *
 * Whether the slot is on the rep's grid, inside working hours, past the minimum notice and of the
 * rep's own meeting length is decided in TypeScript from the schedule read in 2 (no meeting
 * changes that). A booking by the email of an existing lead links the meeting to that lead and
 * changes none of the lead's fields (the visitor is not verified); the submitted name, company
 * and phone are kept on the meeting (attendees, feed entry) instead.
 */
import { sql, type SQL } from 'drizzle-orm';
import { Conflict, ValidationFailed } from '../../core/errors';
import { calendarBusyBlocks, LIVE_MEETING_STATUSES, leads, meetings, users } from '../../db/schema';
import { BOOKED_EVENT_IDS, bookedEventCtes, bookedEventQueued } from '../calendar';
import type { TenantContext } from '../../db/tenant';
import { feedEntriesFrom } from '../feed';
import { emailKey, liveLeadsHoldingSql } from '../leads';
import { type LeadWriteContextRow, leadWriteContextFrom, leadWriteContextSql } from '../leads';
import type { AddLeadInput } from '../leads';
import { planOneLead } from '../leads';
import { deliveryIdsOf, sendWebhookDeliveries, webhookDeliveriesSql } from '../webhooks';
import { freeSlots } from './availability';
import { liveCalendar, scheduleOf } from './availability-query';
import { invalidateBookingCache } from './booking-version';
import { SLOT_UNAVAILABLE } from './edge-cache';
import type { ConfirmBookingInput } from './schemas';
import { type BookingRep, liveRep, repJson } from './service';
import { dayIn, dayString, isoInZone } from './time-zones';
import { leadNameOf } from './visitor-name';

export interface ConfirmScope {
  rep: BookingRep;
  lead: LeadWriteContextRow;
}

/** The caller check of statement 2: the live rep of the slug, locked, with the lead write context. */
export function confirmScopeRead(slug: string, email: string): SQL {
  const key = emailKey(email);
  const lead = leadWriteContextSql({ orgId: sql`${users.organizationId}` }, [], key ? [key] : [], 1);
  return sql`(select json_build_object('rep', ${repJson()}, 'lead', ${lead})
    from ${users} where ${liveRep(slug)} for update of ${users}) as caller`;
}

const unavailable = () => new Conflict('This slot is no longer available', SLOT_UNAVAILABLE);

export async function confirmBooking(
  ctx: TenantContext,
  scope: ConfirmScope,
  input: ConfirmBookingInput,
  now = Date.now(),
) {
  const { rep } = scope;
  const start = input.start.getTime();
  const end = input.end.getTime();
  const minutes = (end - start) / 60_000;
  if (!Number.isInteger(minutes) || minutes < 5 || minutes > 480)
    throw ValidationFailed.field('end', 'must be 5 to 480 whole minutes after start');
  // Visitors book the rep's own meeting length only: a longer one would take the rep's day.
  if (end - start !== rep.meeting_duration * 60_000) throw unavailable();
  const schedule = scheduleOf(rep, now);
  const day = dayString(dayIn(start, schedule.timezone));
  const request = { from: day, to: day, timezone: schedule.timezone, durationMinutes: rep.meeting_duration };
  if (!freeSlots(schedule, request, [], now).some((slot) => slot.start === start && slot.end === end))
    throw unavailable();

  const refs = leadWriteContextFrom(scope.lead);
  // The rep is a live user of this organization: the scope statement found it so.
  refs.users.add(rep.id);
  const { first, last } = leadNameOf(input.name);
  const leadInput = {
    first_name: first,
    last_name: last,
    email: input.email,
    phone_number: input.phone ?? null,
    company: input.company ?? null,
    assigned_to: rep.id,
  } as AddLeadInput;
  const lead = planOneLead(ctx, leadInput, refs, sql`(select ok from free)`);

  const buffer = schedule.bufferMinutes * 60_000;
  const live = sql.join(
    LIVE_MEETING_STATUSES.map((status) => sql`${status}`),
    sql`, `,
  );
  const title = `Meeting with ${input.name}`;
  const attendees = JSON.stringify([{ email: input.email, name: input.name }]);
  const visitor = JSON.stringify({
    visitor_name: { from: null, to: input.name },
    visitor_email: { from: null, to: input.email },
    ...(input.company ? { visitor_company: { from: null, to: input.company } } : {}),
    ...(input.phone ? { visitor_phone: { from: null, to: input.phone } } : {}),
  });
  const linkedLead =
    lead.kind === 'create'
      ? sql`coalesce((select id from inserted), (select h.id from (${liveLeadsHoldingSql(ctx.orgId, [emailKey(input.email) as string], [])}) h order by h.flagged, h.id limit 1))`
      : sql`${lead.leadId}::bigint`;
  const booked = JSON.stringify({
    user_id: rep.id,
    title,
    start: input.start.toISOString(),
    end: input.end.toISOString(),
    timezone: schedule.timezone,
    name: input.name,
    email: input.email,
  });
  const hookCtes = lead.kind === 'create' ? ['hooks_booked', 'hooks_created', 'hooks_assigned'] : ['hooks_booked'];
  const until = new Date(end + buffer).toISOString();
  const since = new Date(start - buffer).toISOString();
  // A rep with a calendar connected: its synced busy times hold the slot too (as in availability).
  // The meeting's event is queued for the calendar in this same statement (bookedEventCtes), which
  // reads for itself whether the rep has one: this statement's snapshot sees a connect that
  // committed while the scope statement waited for the rep's row.
  const calendar = rep.has_calendar === true;
  const calendarFree = calendar
    ? sql` and not exists (
        select 1 from ${calendarBusyBlocks}
        where ${calendarBusyBlocks.organizationId} = ${ctx.orgId} and ${calendarBusyBlocks.userId} = ${rep.id}
          and ${calendarBusyBlocks.startsAt} < ${until}::timestamptz and ${calendarBusyBlocks.endsAt} > ${since}::timestamptz
          and ${liveCalendar()}
      )`
    : sql``;
  type Written = { ok: boolean; meeting_id: string | null; lead_id: string | null; webhook_ids: number[] };
  // The request's last statement: its COMMIT goes with it. A slot taken meanwhile writes nothing
  // (every write here waits on `free`), so the 409 that follows has nothing to undo.
  ctx.commitWithNext?.();
  const result = await ctx.db.execute<
    Written & { calendar_write_id: string | null; calendar_outbox_id: string | null }
  >(sql`
    with free as (
      select not exists (
        select 1 from ${meetings} m
        where m.organization_id = ${ctx.orgId} and m.user_id = ${rep.id} and m.status in (${live})
          and m.start_time < ${until}::timestamptz
          and m.end_time > ${since}::timestamptz
      )${calendarFree} as ok
    ), ${lead.kind === 'create' ? sql`${lead.ctes},` : sql``}
    meeting as (
      insert into ${meetings} (organization_id, user_id, lead_id, title, description, start_time, end_time, timezone,
        attendees, meeting_tool, status, source, created_by)
      select ${ctx.orgId}, ${rep.id}, ${linkedLead}, ${title}, ${input.notes ?? null}, ${input.start.toISOString()}::timestamptz,
        ${input.end.toISOString()}::timestamptz, ${schedule.timezone}, ${attendees}::jsonb, ${rep.booking_meeting_tool},
        1, 'booking', ${rep.id}
      where (select ok from free)
      returning id, lead_id
    ), touched as (
      update ${leads} set last_activity_at = now()
      where organization_id = ${ctx.orgId} and id = (select lead_id from meeting) and deleted_at is null
    ), booked as (
      ${feedEntriesFrom(ctx, {
        from: sql`meeting`,
        modelType: 'lead',
        modelId: sql`lead_id`,
        action: 'meeting_booked',
        changes: sql`${visitor}::jsonb || jsonb_build_object('meeting_id', jsonb_build_object('from', null, 'to', id))`,
      })}
      where lead_id is not null
    ), bumped as (
      update ${users} set booking_version = booking_version + 1
      where organization_id = ${ctx.orgId} and id = ${rep.id} and (select ok from free)
    ), hooks_booked as (
      ${webhookDeliveriesSql(ctx, 'booking.confirmed', {
        from: sql`meeting`,
        data: sql`jsonb_build_object('meeting_id', id, 'lead_id', lead_id) || ${booked}::jsonb`,
      })}
    ), ${bookedEventCtes(ctx.orgId, rep.id)}
    select (select ok from free) as ok, (select id from meeting) as meeting_id, (select lead_id from meeting) as lead_id,
      ${deliveryIdsOf(...hookCtes)} as webhook_ids
      , ${BOOKED_EVENT_IDS}`);
  const row = result.rows[0];
  if (!row?.ok || row.meeting_id === null) throw unavailable();
  bookedEventQueued(ctx, row);
  sendWebhookDeliveries(ctx, row.webhook_ids);
  await invalidateBookingCache(ctx, [rep.booking_slug]);
  return {
    meeting_id: Number(row.meeting_id),
    title,
    start: isoInZone(start, schedule.timezone),
    end: isoInZone(end, schedule.timezone),
    timezone: schedule.timezone,
    with: rep.name,
  };
}
