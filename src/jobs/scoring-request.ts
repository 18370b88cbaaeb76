/**
 * How a write asks for lead scoring (Events rule 4): CTEs of the writer's own statement insert a
 * 'lead-scoring' job for the leads it created or changed, and its outbox message (outbox.ts), so
 * asking costs no round trip and the job exists if and only if the write committed. The writer
 * returns the outbox rows (`scoringOutboxRows`) and hands them to `sendRowsAfterCommit` with
 * `consumerDeletes` (the scoring job deletes its own outbox row, so the writer spends no round
 * trip on it); without effects (a transaction outside requests and withTenantEffects) the cron
 * sweep sends them.
 */
import { type SQL, sql } from 'drizzle-orm';
import { leadScoringJobs } from '../db/schema';
import type { TenantContext } from '../db/tenant';
import type { JobMessage } from './messages';
import { jobOutboxCtes, sendRowsAfterCommit } from './outbox';

/**
 * CTEs `scoring_job` and `scoring_outbox` (without the leading WITH): a job for the lead ids of
 * `leadIds` (a bigint[] expression over earlier CTEs), none when it is empty or null.
 */
export function leadScoringCtes(ctx: Pick<TenantContext, 'orgId' | 'userId'>, leadIds: SQL): SQL {
  return jobOutboxCtes(
    ctx.orgId,
    'scoring',
    'lead-scoring',
    sql`insert into ${leadScoringJobs} (organization_id, lead_ids, created_by)
      select ${ctx.orgId}, x.ids, ${ctx.userId} from (select ${leadIds} as ids) x where cardinality(x.ids) > 0
      returning id`,
  );
}

/** A select-list expression: the outbox rows the scoring CTEs wrote, as a JSON array of {id, message}. */
export const scoringOutboxRows = sql`(select coalesce(jsonb_agg(jsonb_build_object('id', o.id, 'message', o.message)), '[]'::jsonb) from scoring_outbox o)`;

/**
 * Asks for scoring of these leads of the organization in a statement of its own (a change to a
 * scored field, a merge): one round trip, the message sent after the request's commit.
 */
export async function requestLeadScoring(ctx: TenantContext, leadIds: number[]): Promise<void> {
  const ids = [...new Set(leadIds.map((id) => Math.trunc(id)))];
  if (ids.length === 0) return;
  const result = await ctx.db.execute<{ rows: { id: number; message: JobMessage }[] }>(sql`
    with ${leadScoringCtes(ctx, sql`${`{${ids.join(',')}}`}::bigint[]`)}
    select ${scoringOutboxRows} as rows`);
  sendRowsAfterCommit(ctx, result.rows[0]?.rows ?? [], { consumerDeletes: true });
}
