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

export interface DealTargetRefs {
  leadId?: number;
  pipelineId: number;
  stageId: number;
  value?: number;
  enteringPipeline: boolean;
  /** A condition taking locks first (leads/row-locks.ts leadRowsLocked), in this statement. */
  locks?: SQL;
}

/** What dealTargetQuery reads: raw values, as the driver or `row_to_json` gives them. */
export interface DealTargetRow {
  lead_found: boolean | null;
  pipeline_id: number | string | null;
  state_id: number | string | null;
  max_deal_limit: number | string | null;
  stage_id: number | string | null;
  stage_pipeline_id: number | string | null;
  is_won: boolean | null;
  is_lost: boolean | null;
}

/**
 * The one row of what a deal write points at (always one row: the pipeline and stage are left
 * joined to a constant), its columns named as DealTargetRow, so that a deal's add can read it as a
 * CTE of its own write (`target`, with `dealTargetHolds`).
 */
export function dealTargetQuery(ctx: TenantContext, refs: DealTargetRefs) {
  const lead = { lead_id: refs.leadId };
  return ctx.db
    .select({
      lead_found: sql<boolean>`${referenceChecks(ctx, lead).lead_id ?? sql`true`}`.as('lead_found'),
      pipeline_id: sql<string | null>`${pipelines.id}`.as('pipeline_id'),
      state_id: sql<number | null>`${pipelines.stateId}`.as('state_id'),
      max_deal_limit: sql<string | null>`${pipelines.maxDealLimit}`.as('max_deal_limit'),
      stage_id: sql<string | null>`${stages.id}`.as('stage_id'),
      stage_pipeline_id: sql<string | null>`${stages.pipelineId}`.as('stage_pipeline_id'),
      is_won: sql<boolean | null>`${stages.isWon}`.as('is_won'),
      is_lost: sql<boolean | null>`${stages.isLost}`.as('is_lost'),
    })
    .from(sql`(select 1) as one`)
    .leftJoin(pipelines, tenantWhere(ctx, pipelines, eq(pipelines.id, refs.pipelineId)))
    .leftJoin(stages, tenantWhere(ctx, stages, eq(stages.id, refs.stageId)))
    .where(refs.locks);
}

/**
 * True where judgeDealTarget accepts the row `t` (a dealTargetQuery row): the same tests, so a
 * write guarded by it happens exactly when the judgement passes. Keep the two in step.
 */
export function dealTargetHolds(t: string, refs: DealTargetRefs): SQL {
  const row = sql.raw(t);
  return sql`(${row}.lead_found is true and ${row}.pipeline_id is not null and ${row}.stage_id is not null
    ${refs.enteringPipeline ? sql`and ${row}.state_id = 1` : sql``}
    and ${row}.stage_pipeline_id = ${row}.pipeline_id
    ${
      refs.value !== undefined
        ? sql`and (${row}.max_deal_limit is null or ${refs.value}::numeric <= ${row}.max_deal_limit)`
        : sql``
    })`;
}

/** The target of a dealTargetQuery row, or the failure it calls for (404 or 422 naming the field). */
export function judgeDealTarget(row: DealTargetRow, refs: DealTargetRefs): DealTarget {
  const lead = { lead_id: refs.leadId };
  referenceIssues(lead, { lead_id: row.lead_found === true }, { notFound: ['lead_id'] });
  if (row.pipeline_id === null) throw new NotFound('Pipeline', refs.pipelineId);
  if (row.stage_id === null) throw new NotFound('Stage', refs.stageId);
  if (refs.enteringPipeline && Number(row.state_id) !== 1)
    throw ValidationFailed.field(
      'pipeline_id',
      `pipeline ${refs.pipelineId} is inactive (state_id 0): it takes no new deals`,
    );
  if (Number(row.stage_pipeline_id) !== Number(row.pipeline_id))
    throw ValidationFailed.field('stage_id', `stage ${refs.stageId} is not a stage of pipeline ${refs.pipelineId}`);
  if (refs.value !== undefined && row.max_deal_limit !== null && refs.value > Number(row.max_deal_limit))
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

/** Reads and judges what a deal write points at, in a statement of its own. */
export async function checkDealTarget(ctx: TenantContext, refs: DealTargetRefs): Promise<DealTarget> {
  const [row] = await dealTargetQuery(ctx, refs);
  return judgeDealTarget(row as DealTargetRow, refs);
}

export function outcomeOf(target: DealTarget): 'open' | 'won' | 'lost' {
  return target.isWon ? 'won' : target.isLost ? 'lost' : 'open';
}
