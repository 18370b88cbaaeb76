/**
 * Follow-up reminders (notification type 4, `followUpDue`): the minute cron tells someone when a
 * follow-up falls due. Set-based, across organizations, as the tables' owner (like the credits and
 * lease sweeps): one statement a batch picks the due follow-ups, marks them reminded and writes
 * their notices, so a follow-up is reminded once however often the cron runs or overlaps.
 *
 * Due: status pending (1) or rescheduled (3), `follow_up_date` reached and at most
 * REMINDER_LOOKBACK_HOURS ago (a follow-up logged long after its date reminds nobody; the partial
 * index `lead_follow_ups_reminder_due_idx` reads that range), `reminded_at` still null, on a live lead.
 *
 * Who: the lead's assignee when an active user, else the follow-up's creator when an active user;
 * nobody otherwise (the follow-up is still marked, so it is not looked at again).
 *
 * Once: the batch's rows are picked `for update skip locked`, so an overlapping run skips them, and
 * the update re-checks `reminded_at is null` after any wait; the notices are written from the
 * update's own RETURNING, in the same statement, so a run that fails writes neither. Moving a
 * follow-up's date clears `reminded_at` (service.ts `updateFollowUp`): the new date reminds again.
 */
import { sql } from 'drizzle-orm';
import { log } from '../../core/log';
import { isoTimestampSql } from '../../core/schemas';
import { withOwnDatabase, type Queryable } from '../../db/client';
import { leadFollowUps, leads, notifications, users } from '../../db/schema';
import { readConfig, type Bindings } from '../../env';
import { NOTIFICATION_TYPES } from '../notifications';

export const REMINDER_LOOKBACK_HOURS = 24;
/** Follow-ups reminded a statement; a run takes at most REMINDER_MAX_BATCHES of them. */
const REMINDER_BATCH = 1000;
const REMINDER_MAX_BATCHES = 10;

/** Statuses still to be done: pending, rescheduled (schemas.ts FOLLOW_UP_STATUSES). */
const OPEN_STATUSES = sql`(1, 3)`;

/** Reminds one batch of due follow-ups; answers how many follow-ups it marked and how many notices it wrote. */
async function remindBatch(db: Queryable, batch: number, lookbackHours: number) {
  const result = await db.execute<{ marked: string; notified: string }>(sql`
    with picked as (
      select f.id
      from ${leadFollowUps} f
      join ${leads} l on l.organization_id = f.organization_id and l.id = f.lead_id and l.deleted_at is null
      where f.reminded_at is null and f.status in ${OPEN_STATUSES}
        and f.follow_up_date <= now()
        and f.follow_up_date >= now() - make_interval(hours => ${lookbackHours})
      order by f.follow_up_date, f.id
      limit ${batch}
      for update of f skip locked
    ),
    due as (
      update ${leadFollowUps} f set reminded_at = now()
      from picked p, ${leads} l
      where f.id = p.id and f.reminded_at is null and f.status in ${OPEN_STATUSES}
        and l.organization_id = f.organization_id and l.id = f.lead_id
      returning f.id, f.organization_id, f.lead_id, f.follow_up_date, f.created_by, l.assigned_to,
        trim(l.first_name || ' ' || l.last_name) as lead_name
    ),
    notices as (
      insert into ${notifications} (organization_id, user_id, type_id, title, data)
      select d.organization_id, r.id, ${NOTIFICATION_TYPES.followUpDue}::int,
        'Follow-up due' || coalesce(': ' || nullif(d.lead_name, ''), ''),
        jsonb_build_object('follow_up_id', d.id, 'lead_id', d.lead_id,
          'follow_up_date', ${isoTimestampSql(sql`d.follow_up_date`)})
      from due d
      cross join lateral (
        select u.id from ${users} u
        where u.organization_id = d.organization_id and u.id in (d.assigned_to, d.created_by)
          and u.deleted_at is null and u.state_id = 1
        order by (u.id = d.assigned_to) desc nulls last
        limit 1
      ) r
      returning id
    )
    select (select count(*) from due) as marked, (select count(*) from notices) as notified`);
  const row = result.rows[0];
  return { marked: Number(row.marked), notified: Number(row.notified) };
}

/** Reminds every due follow-up (a batch a statement); answers how many notices it wrote. */
export async function sweepFollowUpReminders(
  db: Queryable,
  options: { batch?: number; maxBatches?: number; lookbackHours?: number } = {},
): Promise<number> {
  const batch = options.batch ?? REMINDER_BATCH;
  let notified = 0;
  for (let round = 0; round < (options.maxBatches ?? REMINDER_MAX_BATCHES); round++) {
    const done = await remindBatch(db, batch, options.lookbackHours ?? REMINDER_LOOKBACK_HOURS);
    notified += done.notified;
    if (done.marked < batch) break;
  }
  return notified;
}

/** The minute cron's entry (wrangler.toml [triggers]): the sweep on a connection of its own. */
export async function runFollowUpReminders(env: Bindings): Promise<number> {
  return withOwnDatabase(readConfig(env), async (db) => {
    const notified = await sweepFollowUpReminders(db);
    if (notified > 0) log.info('follow-ups: due reminders sent', { notified });
    return notified;
  });
}
