/**
 * GET /api/dashboard/lead-aging: open leads bucketed by whole days since creation and since
 * their last activity, in one statement. Open: live (not deleted), created by `now`, and a
 * status that is neither the Converted nor the Lost status lookup. Last activity is the lead's
 * `last_activity_at` (notes, follow-ups, meetings, calls and mail move it); a lead without one
 * counts under `never`.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { TenantContext } from '../../db/tenant';
import { statusValuesNamed } from './overview';
import { AGING_BUCKETS } from './period';

const DAY_MS = 86_400_000;

/**
 * `column`'s whole days before `now` fall in the bucket, as bounds on the column itself (so the
 * scan compares timestamps, with no arithmetic per row): days in [min, max] ⟺ now − (max + 1)
 * days < column <= now − min days. The first bucket has no upper bound: a time after `now`
 * (activity recorded after a fixed clock) counts as 0 days.
 */
function inBucket(column: SQL, bucket: (typeof AGING_BUCKETS)[number], now: Date): SQL {
  const daysBefore = (days: number) => sql`${new Date(now.getTime() - days * DAY_MS).toISOString()}::timestamptz`;
  const parts = [sql`${column} is not null`];
  if (bucket.max !== null) parts.push(sql`${column} > ${daysBefore(bucket.max + 1)}`);
  if (bucket.min > 0) parts.push(sql`${column} <= ${daysBefore(bucket.min)}`);
  return sql.join(parts, sql` and `);
}

export async function leadAging(ctx: TenantContext, now: Date) {
  const at = sql`${now.toISOString()}::timestamptz`;
  const counts = (column: SQL, prefix: string) =>
    sql.join(
      AGING_BUCKETS.map(
        (bucket, index) =>
          sql`count(*) filter (where ${inBucket(column, bucket, now)})::int as ${sql.identifier(`${prefix}${index}`)}`,
      ),
      sql`, `,
    );
  const result = await ctx.db.execute<Record<string, number>>(sql`
    select count(*)::int as total, ${counts(sql`l.created_at`, 'created_')}, ${counts(sql`l.last_activity_at`, 'activity_')},
      count(*) filter (where l.last_activity_at is null)::int as never
    from leads l
    where l.organization_id = ${ctx.orgId} and l.deleted_at is null and l.created_at <= ${at}
      and l.status not in ${statusValuesNamed(ctx, ['converted', 'lost'])}`);
  const row = result.rows[0];
  const buckets = (prefix: string) =>
    AGING_BUCKETS.map((bucket, index) => ({
      bucket: bucket.name,
      min_days: bucket.min,
      max_days: bucket.max,
      count: Number(row[`${prefix}${index}`]),
    }));
  return {
    as_of: now.toISOString(),
    open_leads: Number(row.total),
    by_created: buckets('created_'),
    by_last_activity: [
      ...buckets('activity_'),
      { bucket: 'never', min_days: null, max_days: null, count: Number(row.never) },
    ],
  };
}
