/**
 * What a deal write points at, checked in one statement: the lead (live, of the organization),
 * the pipeline and the stage (of the organization, else 404), the stage inside that pipeline
 * the value within the pipeline's max_deal_limit, and an active pipeline for a deal entering it
 * (else 422 naming the field). `value` is the value to check against the cap: a different one, or
 * the deal's value when it enters another pipeline; left out (an update that keeps the value, sent
 * again or not, inside the same pipeline) the cap is not checked, so lowering max_deal_limit leaves
 * existing deals as they are.
 */
import { eq, type SQL, sql } from 'drizzle-orm';
import { referenceChecks, referenceIssues } from '../../db/references';
import { pipelines, stages } from '../../db/schema';
import { type TenantContext, tenantWhere } from '../../db/tenant';
import { NotFound, ValidationFailed } from '../../core/errors';

export interface DealTarget {
  pipelineId: number;
  stageId: number;
  isWon: boolean;
  isLost: boolean;
}

export async function checkDealTarget(
  ctx: TenantContext,
  refs: {
    leadId?: number;
    pipelineId: number;
    stageId: number;
    value?: number;
    enteringPipeline: boolean;
    /** A condition taking locks first (leads/row-locks.ts leadRowsLocked), in this statement. */
    locks?: SQL;
  },
): Promise<DealTarget> {
  const lead = { lead_id: refs.leadId };
  const [row] = await ctx.db
    .select({
      leadFound: referenceChecks(ctx, lead).lead_id ?? sql<boolean>`true`,
      pipelineId: pipelines.id,
      stateId: pipelines.stateId,
      maxDealLimit: pipelines.maxDealLimit,
      stageId: stages.id,
      stagePipelineId: stages.pipelineId,
      isWon: stages.isWon,
      isLost: stages.isLost,
    })
    .from(sql`(select 1) as one`)
    .leftJoin(pipelines, tenantWhere(ctx, pipelines, eq(pipelines.id, refs.pipelineId)))
    .leftJoin(stages, tenantWhere(ctx, stages, eq(stages.id, refs.stageId)))
    .where(refs.locks);
  referenceIssues(lead, { lead_id: row.leadFound }, { notFound: ['lead_id'] });
  if (row.pipelineId === null) throw new NotFound('Pipeline', refs.pipelineId);
  if (row.stageId === null) throw new NotFound('Stage', refs.stageId);
  if (refs.enteringPipeline && Number(row.stateId) !== 1)
    throw ValidationFailed.field(
      'pipeline_id',
      `pipeline ${refs.pipelineId} is inactive (state_id 0): it takes no new deals`,
    );
  if (Number(row.stagePipelineId) !== Number(row.pipelineId))
    throw ValidationFailed.field('stage_id', `stage ${refs.stageId} is not a stage of pipeline ${refs.pipelineId}`);
  if (refs.value !== undefined && row.maxDealLimit !== null && refs.value > Number(row.maxDealLimit))
    throw ValidationFailed.field(
      'value',
      `must be at most ${Number(row.maxDealLimit)}, the max_deal_limit of pipeline ${refs.pipelineId}`,
    );
  return {
    pipelineId: Number(row.pipelineId),
    stageId: Number(row.stageId),
    isWon: row.isWon === true,
    isLost: row.isLost === true,
  };
}

export function outcomeOf(target: DealTarget): 'open' | 'won' | 'lost' {
  return target.isWon ? 'won' : target.isLost ? 'lost' : 'open';
}
