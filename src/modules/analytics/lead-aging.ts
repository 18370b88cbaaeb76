/**
 * GET /api/dashboard/lead-aging: open leads bucketed by whole days since creation and since
 * their last activity, in one statement. Open: live (not deleted), created by `now`, and a
 * status that is neither the Converted nor the Lost status lookup. Last activity is the lead's
 * `last_activity_at` (notes, follow-ups, meetings, calls and mail move it); a lead without one
 * counts under `never`.
 *
 * Read from the rollups kept by the writes, so the cost is days and keys, not leads: a bucket
 * bound (now − 8, 31 or 91 days, and now itself for creation) falls inside one UTC day, and every
 * other day lies wholly inside one bucket, so `lead_day_counts` (by creation day) and
 * `lead_activity_day_counts` (by day of last activity) answer for those days; only the leads of
 * the bound days are read, as index-only ranges, and bucketed by their instants. Leads created
 * after `now` (a clock in the past) are subtracted from the activity counts.
 */
import { leads, leadActivityDayCounts, leadDayCounts } from '../../db/schema';
import { sql, type SQL } from 'drizzle-orm';
import type { TenantContext } from '../../db/tenant';
import { statusValuesNamed } from './overview';
import { AGING_BUCKETS } from './period';

const DAY_MS = 86_400_000;
type Bucket = (typeof AGING_BUCKETS)[number];

/** Whole days before `now` at which a bucket starts or ends: 8, 31, 91. */
const BOUND_DAYS = [
  ...new Set(AGING_BUCKETS.flatMap((bucket) => [bucket.min, bucket.max === null ? 0 : bucket.max + 1])),
].filter((days) => days > 0);

/** The UTC day (YYYY-MM-DD) of `now` − `days` days. */
const dayBefore = (now: Date, days: number) => new Date(now.getTime() - days * DAY_MS).toISOString().slice(0, 10);

/**
 * `column`'s whole days before `now` fall in the bucket, as bounds on the column itself (so the
 * scan compares timestamps, with no arithmetic per row): days in [min, max] ⟺ now − (max + 1)
 * days < column <= now − min days. The first bucket has no upper bound: a time after `now`
 * (activity recorded after a fixed clock) counts as 0 days.
 */
function inBucket(column: SQL, bucket: Bucket, now: Date): SQL {
  const daysBefore = (days: number) => sql`${new Date(now.getTime() - days * DAY_MS).toISOString()}::timestamptz`;
  const parts = [sql`${column} is not null`];
  if (bucket.max !== null) parts.push(sql`${column} > ${daysBefore(bucket.max + 1)}`);
  if (bucket.min > 0) parts.push(sql`${column} <= ${daysBefore(bucket.min)}`);
  return sql.join(parts, sql` and `);
}

/**
 * The same for a UTC `day` that holds no bound: the day is after the day of now − (max + 1) days
 * and before the day of now − min days, so each of its instants is in the bucket.
 */
function dayInBucket(day: SQL, bucket: Bucket, now: Date): SQL {
  const parts = [sql`${day} is not null`];
  if (bucket.max !== null) parts.push(sql`${day} > ${dayBefore(now, bucket.max + 1)}::date`);
  if (bucket.min > 0) parts.push(sql`${day} < ${dayBefore(now, bucket.min)}::date`);
  return sql.join(parts, sql` and `);
}

/** The bucket's index (0..) by the bucket test given, or -1 (never: no value, or a bound day by day). */
const bucketIndex = (test: (bucket: Bucket) => SQL) =>
  sql`(case ${sql.join(
    AGING_BUCKETS.map((bucket, index) => sql`when ${test(bucket)} then ${index}`),
    sql` `,
  )} else -1 end)`;

export async function leadAging(ctx: TenantContext, now: Date) {
  const at = sql`${now.toISOString()}::timestamptz`;
  const today = dayBefore(now, 0);
  const activityBounds = BOUND_DAYS.map((days) => dayBefore(now, days));
  const createdBounds = [today, ...activityBounds];
  const days = (list: string[]) => sql`${`{${list.join(',')}}`}::date[]`;
  const exact = (column: SQL) => bucketIndex((bucket) => inBucket(column, bucket, now));
  const byDay = (day: SQL) => bucketIndex((bucket) => dayInBucket(day, bucket, now));
  /**
   * The live open leads whose `column` falls in one of the UTC days, as one index-only range per
   * day with constant bounds (a join against the days would hide the ranges from the planner).
   */
  const leadsOfDays = (column: SQL, list: string[], columns: SQL) =>
    sql`(${sql.join(
      list.map((day) => {
        const start = `${day}T00:00:00.000Z`;
        const end = new Date(Date.parse(start) + DAY_MS).toISOString();
        return sql`select ${columns} from ${leads} l
        where l.organization_id = ${ctx.orgId} and l.deleted_at is null
          and ${column} >= ${start}::timestamptz and ${column} < ${end}::timestamptz
          and l.created_at <= ${at} and l.status not in (select value from closed_status)`;
      }),
      sql` union all `,
    )}) l`;
  const result = await ctx.db.execute<{ kind: string; bucket: number; n: number }>(sql`
    with closed_status as ${statusValuesNamed(ctx, ['converted', 'lost'])},
    created as (
      select ${byDay(sql`r.day`)} as bucket, r.delta as n from ${leadDayCounts} r
      where r.organization_id = ${ctx.orgId} and r.day < ${today}::date and r.day <> all(${days(createdBounds)})
        and r.status not in (select value from closed_status)
      union all
      select ${exact(sql`l.created_at`)}, 1 from ${leadsOfDays(sql`l.created_at`, createdBounds, sql`l.created_at`)}
    ), activity as (
      select ${byDay(sql`r.day`)} as bucket, r.delta as n from ${leadActivityDayCounts} r
      where r.organization_id = ${ctx.orgId} and (r.day is null or r.day <> all(${days(activityBounds)}))
        and r.status not in (select value from closed_status)
      union all
      select ${exact(sql`l.last_activity_at`)}, 1
      from ${leadsOfDays(sql`l.last_activity_at`, activityBounds, sql`l.last_activity_at`)}
      union all
      -- Counted by day above, but created after now: taken back out.
      select ${exact(sql`l.last_activity_at`)}, -1 from ${leads} l
      where l.organization_id = ${ctx.orgId} and l.deleted_at is null and l.created_at > ${at}
        and l.status not in (select value from closed_status)
        and (l.last_activity_at is null or (l.last_activity_at at time zone 'UTC')::date <> all(${days(activityBounds)}))
    )
    select 'created' as kind, bucket, sum(n)::int as n from created group by bucket
    union all
    select 'activity', bucket, sum(n)::int from activity group by bucket`);
  const count = (kind: string, bucket: number) =>
    Number(result.rows.find((row) => row.kind === kind && Number(row.bucket) === bucket)?.n ?? 0);
  const buckets = (kind: string) =>
    AGING_BUCKETS.map((bucket, index) => ({
      bucket: bucket.name,
      min_days: bucket.min,
      max_days: bucket.max,
      count: count(kind, index),
    }));
  const byCreated = buckets('created');
  return {
    as_of: now.toISOString(),
    open_leads: byCreated.reduce((sum, bucket) => sum + bucket.count, 0),
    by_created: byCreated,
    by_last_activity: [
      ...buckets('activity'),
      { bucket: 'never', min_days: null, max_days: null, count: count('activity', -1) },
    ],
  };
}
