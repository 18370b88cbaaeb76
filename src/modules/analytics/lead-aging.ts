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

const inBucket = (column: SQL, bucket: (typeof AGING_BUCKETS)[number]) =>
  bucket.max === null ? sql`${column} >= ${bucket.min}` : sql`${column} between ${bucket.min} and ${bucket.max}`;

export async function leadAging(ctx: TenantContext, now: Date) {
  const at = sql`${now.toISOString()}::timestamptz`;
  const age = sql.raw('age');
  const idle = sql.raw('idle');
  const counts = (column: SQL, prefix: string) =>
    sql.join(
      AGING_BUCKETS.map(
        (bucket, index) =>
          sql`count(*) filter (where ${inBucket(column, bucket)})::int as ${sql.identifier(`${prefix}${index}`)}`,
      ),
      sql`, `,
    );
  const result = await ctx.db.execute<Record<string, number>>(sql`
    select count(*)::int as total, ${counts(age, 'created_')}, ${counts(idle, 'activity_')},
      count(*) filter (where idle is null)::int as never
    from (
      select greatest(floor(extract(epoch from ${at} - l.created_at) / 86400), 0)::int as age,
        -- greatest() skips nulls: a lead without activity must stay null (never).
        case when l.last_activity_at is not null then greatest(floor(extract(epoch from ${at} - l.last_activity_at) / 86400), 0)::int end as idle
      from leads l
      where l.organization_id = ${ctx.orgId} and l.deleted_at is null and l.created_at <= ${at}
        and l.status not in ${statusValuesNamed(ctx, 'converted')} and l.status not in ${statusValuesNamed(ctx, 'lost')}
    ) open_leads`);
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
