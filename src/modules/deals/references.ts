/**
 * What a deal write points at, checked in one statement: the lead (live, of the organization),
 * the pipeline and the stage (of the organization, else 404), the stage inside that pipeline
 * the value within the pipeline's max_deal_limit, and an active pipeline for a deal entering it
 * (else 422 naming the field).
 */
import { sql } from 'drizzle-orm';
import type { TenantContext } from '../../db/tenant';
import { NotFound, ValidationFailed } from '../../core/errors';

export interface DealTarget {
  pipelineId: number;
  stageId: number;
  isWon: boolean;
  isLost: boolean;
}

export async function checkDealTarget(
  ctx: TenantContext,
  refs: { leadId?: number; pipelineId: number; stageId: number; value: number; enteringPipeline: boolean },
): Promise<DealTarget> {
  const result = await ctx.db.execute<{
    lead_found: boolean;
    pipeline_id: number | null;
    state_id: number | null;
    max_deal_limit: string | null;
    stage_id: number | null;
    stage_pipeline_id: number | null;
    is_won: boolean | null;
    is_lost: boolean | null;
  }>(sql`
    select
      ${
        refs.leadId === undefined
          ? sql`true`
          : sql`exists (select 1 from leads l where l.organization_id = ${ctx.orgId} and l.id = ${refs.leadId} and l.deleted_at is null)`
      } as lead_found,
      p.id as pipeline_id, p.state_id, p.max_deal_limit, s.id as stage_id, s.pipeline_id as stage_pipeline_id, s.is_won, s.is_lost
    from (select 1) as one
    left join pipelines p on p.organization_id = ${ctx.orgId} and p.id = ${refs.pipelineId}
    left join stages s on s.organization_id = ${ctx.orgId} and s.id = ${refs.stageId}`);
  const row = result.rows[0];
  if (!row.lead_found) throw new NotFound('Lead', refs.leadId);
  if (row.pipeline_id === null) throw new NotFound('Pipeline', refs.pipelineId);
  if (row.stage_id === null) throw new NotFound('Stage', refs.stageId);
  if (refs.enteringPipeline && Number(row.state_id) !== 1)
    throw ValidationFailed.field(
      'pipeline_id',
      `pipeline ${refs.pipelineId} is inactive (state_id 0): it takes no new deals`,
    );
  if (Number(row.stage_pipeline_id) !== Number(row.pipeline_id))
    throw ValidationFailed.field('stage_id', `stage ${refs.stageId} is not a stage of pipeline ${refs.pipelineId}`);
  if (row.max_deal_limit !== null && refs.value > Number(row.max_deal_limit))
    throw ValidationFailed.field(
      'value',
      `must be at most ${Number(row.max_deal_limit)}, the max_deal_limit of pipeline ${refs.pipelineId}`,
    );
  return {
    pipelineId: Number(row.pipeline_id),
    stageId: Number(row.stage_id),
    isWon: row.is_won === true,
    isLost: row.is_lost === true,
  };
}

export function outcomeOf(target: DealTarget): 'open' | 'won' | 'lost' {
  return target.isWon ? 'won' : target.isLost ? 'lost' : 'open';
}
