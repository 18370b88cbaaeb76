/**
 * Pipelines and their stages: list, add (with stages, in one statement), update (fields and the
 * full stage list), delete (refused while deals remain), the stage board with per-stage deal
 * count and value, and the default pipeline every organization starts with.
 */
import { and, asc, eq, getTableName, ilike, inArray, sql, type SQL } from 'drizzle-orm';
import type { Queryable } from '../../db/client';
import { pipelines, stages, deals } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { Conflict, NotFound } from '../../core/errors';
import { containsPattern, defineList } from '../../core/list';
import { pipelineFields, stageFields } from './fields';
import {
  pipelineListFilters,
  type AddPipelineInput,
  type PipelineViewValue,
  type StageViewValue,
  type UpdatePipelineInput,
} from './schemas';
import { type CurrentStage, type PlannedStage, planNewStages, planStageChanges } from './stages';

/** The stages of the default pipeline (and of a pipeline added without stages). */
export const DEFAULT_STAGES: PlannedStage[] = [
  ['Prospecting', '#64748B', 0.1, 14],
  ['Qualification', '#3B82F6', 0.25, 14],
  ['Proposal', '#8B5CF6', 0.5, 21],
  ['Negotiation', '#F59E0B', 0.75, 14],
].map(([name, color, probability, maxDays], position) => ({
  name: name as string,
  color: color as string,
  position,
  isWon: false,
  isLost: false,
  probability: probability as number,
  maxDaysInStage: maxDays as number,
}));
DEFAULT_STAGES.push(
  { name: 'Won', color: '#22C55E', position: 4, isWon: true, isLost: false, probability: 1, maxDaysInStage: null },
  { name: 'Lost', color: '#EF4444', position: 5, isWon: false, isLost: true, probability: 0, maxDaysInStage: null },
);

/** `(values (…), (…))` rows of planned stages, for a set-based insert. */
function stageValues(planned: PlannedStage[], protectedFlags = false): SQL {
  return sql.join(
    planned.map(
      (stage) =>
        sql`(${stage.name}, ${stage.color}, ${stage.position}::int, ${stage.isWon}::boolean, ${stage.isLost}::boolean, ${stage.probability}::float8, ${stage.maxDaysInStage}::int, ${protectedFlags && (stage.isWon || stage.isLost)}::boolean)`,
    ),
    sql`, `,
  );
}

const stageColumns = sql`(organization_id, pipeline_id, name, color, position, is_won, is_lost, probability, max_days_in_stage, is_protected)`;
const valuesColumns = sql`v(name, color, position, is_won, is_lost, probability, max_days_in_stage, is_protected)`;

/**
 * Signup's default pipeline, in one statement (in signup's transaction): Prospecting,
 * Qualification, Proposal, Negotiation, then Won and Lost, which are protected.
 */
export async function seedDefaultPipeline(db: Queryable, organizationId: number): Promise<void> {
  await db.execute(sql`
    with p as (
      insert into ${pipelines} (organization_id, name, description, is_default)
      values (${organizationId}, 'Sales pipeline', 'The default pipeline', true)
      returning id
    )
    insert into ${stages} ${stageColumns}
    select ${organizationId}, p.id, v.* from p, (values ${stageValues(DEFAULT_STAGES, true)}) as ${valuesColumns}`);
}

/** The pipeline with its stages in position order, in one statement (the stages joined to it). */
async function readPipeline(ctx: TenantContext, id: number) {
  const rows = await ctx.db
    .select({ pipeline: pipelineFields.selection, stage: stageFields.selection })
    .from(pipelines)
    .leftJoin(stages, eq(stages.pipelineId, pipelines.id))
    .where(tenantWhere(ctx, pipelines, eq(pipelines.id, id)))
    .orderBy(asc(stages.position));
  if (rows.length === 0) throw new NotFound('Pipeline', id);
  return presentPipeline(rows);
}

type PipelineRows = { pipeline: Record<string, unknown>; stage: Record<string, unknown> | null }[];

function presentPipeline(rows: PipelineRows) {
  return {
    ...(pipelineFields.present(rows[0].pipeline) as PipelineViewValue),
    stages: rows.flatMap((row) => (row.stage?.id != null ? [stageFields.present(row.stage) as StageViewValue] : [])),
  };
}

/**
 * The pipeline and its stages written, and answered as readPipeline reads them, in one statement:
 * the statement's snapshot shows neither through the tables, so CTEs named after them hold the
 * inserted rows (as a deal's write answers, deals/service.ts writtenDeal).
 */
export async function addPipeline(ctx: TenantContext, input: AddPipelineInput) {
  const planned = input.stages ? planNewStages(input.stages) : DEFAULT_STAGES;
  const written = ctx.db.$with('written_pipeline', {}).as(sql`
    insert into ${pipelines} (organization_id, name, description, max_deal_limit, region, state_id, created_by)
    values (${ctx.orgId}, ${input.name}, ${input.description ?? null}, ${input.max_deal_limit ?? null}, ${input.region ?? null}, ${input.state_id}, ${ctx.userId})
    returning *`);
  // At least one stage: an empty list is refused by the body's schema.
  const writtenStages = ctx.db.$with('written_stages', {}).as(sql`
    insert into ${stages} ${stageColumns}
    select ${ctx.orgId}, p.id, v.* from written_pipeline p, (values ${stageValues(planned)}) as ${valuesColumns}
    returning *`);
  const asStages = ctx.db.$with(getTableName(stages), {}).as(sql`select * from written_stages`);
  const asPipelines = ctx.db.$with(getTableName(pipelines), {}).as(sql`select * from written_pipeline`);
  // The write is the request's last statement: its COMMIT goes with it.
  ctx.commitWithNext?.();
  const rows = await ctx.db
    .with(written, writtenStages, asStages, asPipelines)
    .select({ pipeline: pipelineFields.selection, stage: stageFields.selection })
    .from(pipelines)
    .leftJoin(stages, eq(stages.pipelineId, pipelines.id))
    .orderBy(asc(stages.position));
  return presentPipeline(rows as PipelineRows);
}

/**
 * The pipeline and its stages (locked against concurrent stage edits, and against deals moving
 * into a stage: a deal write's foreign-key check holds its stage KEY SHARE, which FOR UPDATE
 * waits for), then, in a statement of its own that sees a deal committed meanwhile, its stages
 * with their deal counts.
 */
async function lockPipelineStages(ctx: TenantContext, id: number): Promise<CurrentStage[]> {
  const locked = await ctx.db
    .select({
      id: pipelines.id,
      stages: sql<number>`(select count(*)::int from (select 1 from ${stages} s
        where s.organization_id = ${ctx.orgId} and s.pipeline_id = ${id} for update) as locked)`,
    })
    .from(pipelines)
    .where(tenantWhere(ctx, pipelines, eq(pipelines.id, id)))
    .for('update');
  if (locked.length === 0) throw new NotFound('Pipeline', id);
  return ctx.db
    .select({
      id: stages.id,
      name: stages.name,
      color: stages.color,
      position: stages.position,
      isWon: stages.isWon,
      isLost: stages.isLost,
      probability: stages.probability,
      maxDaysInStage: stages.maxDaysInStage,
      isProtected: stages.isProtected,
      // The organization and pipeline lead deals_organization_pipeline_stage_idx: a stage's deals, not the organization's.
      dealCount: sql<number>`(select count(*)::int from ${deals} d
        where d.organization_id = "stages"."organization_id" and d.pipeline_id = "stages"."pipeline_id" and d.stage_id = "stages"."id")`.mapWith(
        Number,
      ),
    })
    .from(stages)
    .where(tenantWhere(ctx, stages, eq(stages.pipelineId, id)));
}

/**
 * Replaces the stage list: removes the stages left out, parks the kept ones at negative
 * positions without flags (so the unique position and won/lost indexes never see a transient
 * duplicate), then writes every kept stage and inserts the new ones.
 */
async function writeStages(ctx: TenantContext, pipelineId: number, planned: PlannedStage[], removed: number[]) {
  const scope = tenantWhere(ctx, stages, eq(stages.pipelineId, pipelineId));
  if (removed.length > 0) await ctx.db.delete(stages).where(and(scope, inArray(stages.id, removed)));
  await ctx.db
    .update(stages)
    .set({ position: sql`-1 - ${stages.position}`, isWon: false, isLost: false })
    .where(scope);
  const kept = planned.filter((stage) => stage.id !== undefined);
  if (kept.length > 0) {
    const rows = sql.join(
      kept.map(
        (stage) =>
          sql`(${stage.id}::bigint, ${stage.name}, ${stage.color}, ${stage.position}::int, ${stage.isWon}::boolean, ${stage.isLost}::boolean, ${stage.probability}::float8, ${stage.maxDaysInStage}::int)`,
      ),
      sql`, `,
    );
    await ctx.db.execute(sql`
      update ${stages} set name = v.name, color = v.color, position = v.position, is_won = v.is_won,
        is_lost = v.is_lost, probability = v.probability, max_days_in_stage = v.max_days_in_stage, updated_at = now()
      from (values ${rows}) as v(id, name, color, position, is_won, is_lost, probability, max_days_in_stage)
      where stages.id = v.id and stages.organization_id = ${ctx.orgId} and stages.pipeline_id = ${pipelineId}`);
  }
  const added = planned.filter((stage) => stage.id === undefined);
  if (added.length > 0)
    await ctx.db.execute(sql`
      insert into ${stages} ${stageColumns}
      select ${ctx.orgId}, ${pipelineId}::bigint, v.* from (values ${stageValues(added)}) as ${valuesColumns}`);
}

export async function updatePipeline(ctx: TenantContext, id: number, input: UpdatePipelineInput) {
  if (input.stages) {
    const current = await lockPipelineStages(ctx, id);
    const { planned, removed } = planStageChanges(current, input.stages);
    await writeStages(ctx, id, planned, removed);
  }
  const set: Record<string, unknown> = {};
  for (const [wire, column] of pipelineFields.updateColumns) {
    const value = (input as Record<string, unknown>)[wire];
    if (value !== undefined) set[column] = value;
  }
  const updated = await ctx.db
    .update(pipelines)
    .set({ ...set, updatedAt: sql`now()` })
    .where(tenantWhere(ctx, pipelines, eq(pipelines.id, id)))
    .returning({ id: pipelines.id });
  if (updated.length === 0) throw new NotFound('Pipeline', id);
  ctx.commitWithNext?.();
  return readPipeline(ctx, id);
}

/**
 * Deletes pipelines of the organization (their stages with them); unknown ids change nothing.
 * Refused as a whole (409) when one is the default pipeline or still holds deals.
 */
export async function deletePipelines(ctx: TenantContext, ids: number[]): Promise<number> {
  // Locked first, in a statement of its own: a deal moving into one of them (its foreign-key
  // check holds the pipeline KEY SHARE) commits before the count below, which then sees it.
  await ctx.db
    .select({ id: pipelines.id })
    .from(pipelines)
    .where(tenantWhere(ctx, pipelines, inArray(pipelines.id, ids)))
    .orderBy(pipelines.id)
    .for('update');
  const blockers = await ctx.db
    .select({
      id: pipelines.id,
      isDefault: pipelines.isDefault,
      dealCount: sql<number>`(select count(*)::int from ${deals} d
        where d.organization_id = "pipelines"."organization_id" and d.pipeline_id = "pipelines"."id")`.mapWith(Number),
    })
    .from(pipelines)
    .where(tenantWhere(ctx, pipelines, inArray(pipelines.id, ids)));
  const withDeals = blockers.filter((row) => row.dealCount > 0);
  if (withDeals.length > 0)
    throw new Conflict(
      `Pipeline ${withDeals.map((row) => row.id).join(', ')} still has deals: move them to another pipeline (or delete them) first`,
      'pipeline_has_deals',
      { pipeline_ids: withDeals.map((row) => row.id) },
    );
  const defaults = blockers.filter((row) => row.isDefault);
  if (defaults.length > 0)
    throw new Conflict(
      `Pipeline ${defaults[0].id} is the default pipeline, whose Won and Lost stages are protected: it cannot be deleted`,
      'pipeline_protected',
    );
  if (blockers.length === 0) return 0;
  const deleted = await ctx.db
    .delete(pipelines)
    .where(
      tenantWhere(
        ctx,
        pipelines,
        inArray(
          pipelines.id,
          blockers.map((row) => row.id),
        ),
      ),
    )
    .returning({ id: pipelines.id });
  return deleted.length;
}

/** The stages of a pipeline in position order, each with its deal count and total value: one statement. */
export async function pipelineStages(ctx: TenantContext, id: number) {
  const rows = await ctx.db
    .select({
      pipelineId: pipelines.id,
      stage: stageFields.selection,
      dealCount: sql<number>`coalesce(t.deal_count, 0)`.mapWith(Number),
      totalValue: sql<number>`coalesce(t.total_value, 0)`.mapWith(Number),
    })
    .from(pipelines)
    .leftJoin(stages, eq(stages.pipelineId, pipelines.id))
    .leftJoin(
      sql`lateral (select count(*) as deal_count, sum(d.value) as total_value from ${deals} d
        where d.organization_id = ${ctx.orgId} and d.pipeline_id = "stages"."pipeline_id" and d.stage_id = "stages"."id") t`,
      sql`true`,
    )
    .where(tenantWhere(ctx, pipelines, eq(pipelines.id, id)))
    .orderBy(asc(stages.position));
  if (rows.length === 0) throw new NotFound('Pipeline', id);
  return rows.flatMap((row) =>
    row.stage?.id != null
      ? [
          {
            ...(stageFields.present(row.stage) as StageViewValue),
            deal_count: row.dealCount,
            total_value: row.totalValue,
          },
        ]
      : [],
  );
}

export const pipelineList = defineList({
  sort: { id: pipelines.id, name: pipelines.name, created_at: pipelines.createdAt },
  filters: pipelineListFilters,
  search: (term) => ilike(pipelines.name, containsPattern(term)),
  createdAt: pipelines.createdAt,
  base: (ctx, params) => ({
    rows: (columns) =>
      ctx.db
        .select({ ...pipelineFields.selection, ...columns })
        .from(pipelines)
        .$dynamic(),
    where: tenantWhere(
      ctx,
      pipelines,
      params.state_id !== undefined ? eq(pipelines.stateId, Number(params.state_id)) : undefined,
    ),
  }),
  present: (row) => pipelineFields.present(row) as PipelineViewValue,
});
export const PipelineListQuery = pipelineList.query;

export const listPipelines = pipelineList.run;
