/**
 * Reads of the lead rollups (src/db/schema/counters.ts, kept by triggers on leads): live leads by
 * UTC day of creation, status, source and whether they have a won deal. A key may have a few rows (one per writer in flight),
 * so every read sums `delta`. Periods are whole UTC days, so a day range is exactly the same
 * leads as the creation-time range.
 */
import { leadDayCounts } from '../../db/schema';
import { sql, type SQL } from 'drizzle-orm';
import type { TenantContext } from '../../db/tenant';
import type { ResolvedPeriods } from './period';

/**
 * `(day, status, lead_source, won_deal, current, n)` rows of the organization's live leads created in the
 * previous or the current period (`current` tells which); `n` is a count per row, sum it.
 */
export function periodLeadCounts(ctx: Pick<TenantContext, 'orgId'>, periods: ResolvedPeriods): SQL {
  return sql`(select r.day, r.status, r.lead_source, r.won_deal, r.day >= ${periods.current.start_date}::date as current, r.delta as n
    from ${leadDayCounts} r
    where r.organization_id = ${ctx.orgId} and r.day >= ${periods.previous.start_date}::date
      and r.day <= ${periods.current.end_date}::date)`;
}
