/**
 * Deals: add, update (moving stages is recorded in deal_stage_history with the time spent in the
 * stage left; a won or lost stage closes the deal), delete, view and list. Every write records
 * the deal's forecast snapshot for the day (modules/forecast/snapshots.ts). `now` is the
 * request's clock, passed in so tests can fix it. Every write is an activity-feed entry
 * (model_type deal: deal_added, deal_updated, deal_stage_changed, deal_deleted).
 */
import { isoTimestampSql } from '../../core/schemas';
import { deliveryIdsOf, sendWebhookDeliveries, webhookDeliveriesSql } from '../webhooks';
import { eq, ilike, inArray, sql, type SQL } from 'drizzle-orm';
import { isForeignKeyViolation } from '../../db/errors';
import { deals, dealStageHistory, stages } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { NotFound, ValidationFailed } from '../../core/errors';
import { containsPattern, defineList } from '../../core/list';
import { isoTimestamp } from '../../core/schemas';
import { feedEntriesFrom } from '../feed';
import { forecastWrite } from '../forecast';
import { leadRowsLocked, lockLeadRows } from '../leads';
import { dealFields } from './fields';
import {
  checkDealTarget,
  dealTargetHolds,
  dealTargetQuery,
  type DealTargetRefs,
  type DealTargetRow,
  judgeDealTarget,
  outcomeOf,
} from './references';
import { dealFilterWhere, dealListFilters } from './filters';
import type { AddDealInput, DealViewValue, UpdateDealInput } from './schemas';

const present = (row: Record<string, unknown>) => dealFields.present(row) as DealViewValue;

interface HistoryRow {
  id: number;
  from_stage_id: number | null;
  from_stage_name: string | null;
  to_stage_id: number;
  to_stage_name: string | null;
  changed_at: string;
  changed_by: number | null;
  seconds: number | null;
}

const stageHistory = sql<HistoryRow[]>`(select coalesce(json_agg(json_build_object(
    'id', h.id, 'from_stage_id', h.from_stage_id, 'from_stage_name', fs.name, 'to_stage_id', h.to_stage_id,
    'to_stage_name', ts.name, 'changed_at', h.changed_at, 'changed_by', h.changed_by, 'seconds', h.seconds_in_from_stage
  ) order by h.id), '[]'::json)
  from ${dealStageHistory} h
  left join ${stages} fs on fs.id = h.from_stage_id
  left join ${stages} ts on ts.id = h.to_stage_id
  where h.deal_id = "deals"."id")`;

export async function viewDeal(ctx: TenantContext, id: number) {
  const [row] = await ctx.db
    .select({ ...dealFields.selection, history: stageHistory })
    .from(deals)
    .where(tenantWhere(ctx, deals, eq(deals.id, id)));
  if (!row) throw new NotFound('Deal', id);
  const { history, ...fields } = row as Record<string, unknown> & { history: HistoryRow[] };
  return {
    ...present(fields),
    stage_history: history.map(({ seconds, ...change }) => ({
      ...change,
      id: Number(change.id),
      from_stage_id: change.from_stage_id === null ? null : Number(change.from_stage_id),
      to_stage_id: Number(change.to_stage_id),
      changed_by: change.changed_by === null ? null : Number(change.changed_by),
      changed_at: isoTimestamp(change.changed_at) as string,
      days_in_from_stage: seconds === null ? null : Math.round((Number(seconds) / 86400) * 100) / 100,
    })),
  };
}

/**
 * A deal write and everything that follows from it, in one statement (one round trip): `write`
 * (an insert or update of one deal, `returning *`) as the CTE `written`; `after`, CTEs reading
 * `written` (its stage history row, its feed entry); the deal.won / deal.lost deliveries of a
 * deal it closes; the day's forecast snapshot; and the deal as it now reads, with the deliveries'
 * ids to send after the commit.
 *
 * Every part of a statement reads the tables as they were when it began, so the snapshot and the
 * answer read the written row from `written`, not from `deals`: the snapshot through
 * forecastWrite's `source`, the answer through a last CTE named `deals` that stands for the table
 * in the field table's selection (which names "deals"). Nothing else either reads is written by
 * this statement or its triggers: the row triggers on deals (lead_company_id, lead_created_at) are
 * in `returning`; the statement triggers write other tables (the lead's deal counts, rollups) and,
 * from the snapshot, the deal's internal forecast columns, which neither the snapshot nor the
 * wire fields read; the lead's activity (last_activity_at, intent signals, the lead's feed) is not
 * touched by a deal write (its feed entry is the deal's). So the snapshot is the one a statement
 * after the write would record, and the answer the deal a read after it would see.
 */
function dealWriteParts(
  ctx: TenantContext,
  now: Date,
  change: { write: SQL; after: Record<string, SQL>; closing: 'open' | 'won' | 'lost' | 'as_written' },
) {
  const written = ctx.db.$with('written', {}).as(change.write);
  const after = Object.entries(change.after).map(([name, query]) => ctx.db.$with(name, {}).as(query));
  // A deal that closes announces it (deal.won / deal.lost); `as_written`: whichever its outcome is.
  const closings: ('won' | 'lost')[] =
    change.closing === 'open' ? [] : change.closing === 'as_written' ? ['won', 'lost'] : [change.closing];
  const hooks = closings.map((outcome) =>
    ctx.db
      .$with(`hooks_${outcome}`, {})
      .as(closedDealDeliveries(ctx, outcome, sql`written as d`, sql`d.outcome = ${outcome}::text`)),
  );
  const forecast = ctx.db.$with('forecast', {}).as(forecastWrite(now, sql`true`, true, sql`written`));
  const asWritten = ctx.db.$with('deals', {}).as(sql`select * from written`);
  return {
    ctes: [written, ...after, ...hooks, forecast, asWritten],
    selection: {
      ...dealFields.selection,
      webhookIds: (hooks.length
        ? deliveryIdsOf(...closings.map((outcome) => `hooks_${outcome}`))
        : sql`'{}'::bigint[]`) as SQL<number[]>,
    },
  };
}

async function writtenDeal(
  ctx: TenantContext,
  now: Date,
  change: { write: SQL; after: Record<string, SQL>; closing: 'open' | 'won' | 'lost' },
): Promise<{ deal: DealViewValue; webhookIds: number[] } | undefined> {
  const { ctes, selection } = dealWriteParts(ctx, now, change);
  const [row] = await ctx.db
    .with(...ctes)
    .select(selection)
    .from(deals)
    .where(tenantWhere(ctx, deals));
  if (!row) return undefined;
  const { webhookIds, ...fields } = row as Record<string, unknown> & { webhookIds: number[] };
  return { deal: present(fields), webhookIds };
}

/**
 * A deal write whose pipeline or stage was deleted (a pipeline update or delete that committed
 * after checkDealTarget read them) fails on the foreign key: answered as the check would have
 * answered it a moment later (404 naming it), not as an anonymous 422.
 */
async function writingToTarget<T>(
  target: { pipelineId: number; stageId: number },
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isForeignKeyViolation(error, 'deals_stage_id_stages_id_fk')) throw new NotFound('Stage', target.stageId);
    if (isForeignKeyViolation(error, 'deals_pipeline_id_pipelines_id_fk'))
      throw new NotFound('Pipeline', target.pipelineId);
    throw error;
  }
}

/**
 * A deal's add in one statement: what it points at (`target`: the lead locked first, then read,
 * with its pipeline and stage, dealTargetQuery), the insert only where that target holds
 * (dealTargetHolds), and everything writtenDeal adds to a write. The outcome and `closed_at` come
 * from the stage in the statement; a deal added into a won or lost stage announces it. When the
 * target does not hold, nothing is written and its row says why (judgeDealTarget's 404 or 422).
 */
export async function addDeal(ctx: TenantContext, input: AddDealInput, now: Date) {
  const refs: DealTargetRefs = {
    leadId: input.lead_id,
    pipelineId: input.pipeline_id,
    stageId: input.stage_id,
    value: input.value,
    enteringPipeline: true,
    // The lead first (leads/row-locks.ts), in the check: its deal counts change with this deal, and
    // a change of its company in progress commits before the deal reads it.
    locks: leadRowsLocked(ctx.orgId, sql`select ${input.lead_id}::bigint`, 'no key update'),
  };
  const target = ctx.db.$with('target').as(dealTargetQuery(ctx, refs));
  const at = now.toISOString();
  const outcome = sql`case when t.is_won then 'won' when t.is_lost then 'lost' else 'open' end`;
  const { ctes, selection } = dealWriteParts(ctx, now, {
    write: sql`insert into ${deals} (organization_id, lead_id, pipeline_id, stage_id, title, value, expected_close_date,
        priority, description, outcome, closed_at, stage_entered_at, owner_id, created_at, updated_at)
      select ${ctx.orgId}, ${input.lead_id}, t.pipeline_id, t.stage_id, ${input.title}, ${input.value},
        ${input.expected_close_date}::date, ${input.priority ?? null}, ${input.description ?? null}, ${outcome},
        case when ${outcome} = 'open' then null else ${at}::timestamptz end, ${at}::timestamptz, ${ctx.userId},
        ${at}::timestamptz, ${at}::timestamptz
      from target t
      where ${dealTargetHolds('t', refs)}
      returning *`,
    after: {
      history: sql`insert into ${dealStageHistory} (organization_id, deal_id, from_stage_id, to_stage_id, changed_at, changed_by)
          select organization_id, id, null, stage_id, ${at}::timestamptz, ${ctx.userId} from written`,
      feed: feedEntriesFrom(ctx, {
        from: sql`written`,
        modelType: 'deal',
        modelId: sql`written.id`,
        action: 'deal_added',
        changes: sql`${JSON.stringify(createdChanges(input, input.stage_id))}::jsonb`,
      }),
    },
    closing: 'as_written',
  });
  // The write is the request's last statement: its COMMIT goes with it (a target that does not
  // hold writes nothing, so its 404 or 422 after the commit leaves nothing behind).
  ctx.commitWithNext?.();
  const [row] = await writingToTarget(refs, () =>
    ctx.db
      .with(target, ...ctes)
      .select({ ...selection, target: sql<DealTargetRow>`(select row_to_json(target) from target)` })
      .from(sql`(select 1) as one`)
      .leftJoin(deals, sql`true`),
  );
  const {
    target: checked,
    webhookIds,
    ...fields
  } = row as Record<string, unknown> & {
    target: DealTargetRow;
    webhookIds: number[];
  };
  if (fields.id === null) {
    judgeDealTarget(checked, refs);
    // The target held in judgeDealTarget but not in dealTargetHolds: the two are out of step.
    throw new Error('deal insert wrote no row for a target that holds');
  }
  sendWebhookDeliveries(ctx, webhookIds);
  return present(fields);
}

/** The deal.won or deal.lost deliveries of a deal that closed (`from` names it `d`; `where` filters it). */
function closedDealDeliveries(ctx: TenantContext, outcome: 'won' | 'lost', from: SQL, where?: SQL): SQL {
  return webhookDeliveriesSql(ctx, outcome === 'won' ? 'deal.won' : 'deal.lost', {
    from,
    where,
    data: sql`jsonb_build_object('deal_id', d.id, 'title', d.title, 'value', d.value, 'lead_id', d.lead_id,
      'pipeline_id', d.pipeline_id, 'stage_id', d.stage_id, 'owner_id', d.owner_id, 'closed_at', ${isoTimestampSql(sql`d.closed_at`)})`,
  });
}

/** The feed's `changes` of a creation: every field given, from null. */
function createdChanges(input: AddDealInput, stageId: number) {
  const given = { ...input, stage_id: stageId } as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(given)
      .filter(([, value]) => value !== undefined && value !== null)
      .map(([field, value]) => [field, { from: null, to: value }]),
  );
}

/** Every updatable field's column, keyed by wire name, for reading a deal's values before a change. */
const updatableSelection = Object.fromEntries(
  dealFields.updateColumns.map(([wire, column]) => [wire, (deals as unknown as Record<string, SQL>)[column]]),
);

/**
 * Locks the deal's lead (and the lead it moves to), then the deal, in one statement: the order of
 * every write that reaches a lead's deals (leads/row-locks.ts). The deal's outcome changes its
 * lead's deal counts (count_lead_deals locks the lead), and a change of the lead's company or its
 * deletion locks the lead, then writes its deals: with the deal locked first, a deal won while its
 * lead changed company each waited for the other (a deadlock, one of them refused).
 */
async function lockDealAndLeads(ctx: TenantContext, id: number, newLeadId: number | undefined) {
  const dealLead = sql`select d.lead_id from ${deals} d where d.organization_id = ${ctx.orgId} and d.id = ${id}`;
  const leadIds = newLeadId === undefined ? dealLead : sql`${dealLead} union all select ${newLeadId}::bigint`;
  const [row] = await ctx.db
    .select({
      ...updatableSelection,
      stageEnteredAt: deals.stageEnteredAt,
      outcome: deals.outcome,
      lockedLeadId: sql<string | null>`(${dealLead})`,
    })
    .from(deals)
    .where(tenantWhere(ctx, deals, eq(deals.id, id), leadRowsLocked(ctx.orgId, leadIds, 'no key update')))
    .for('update');
  if (!row) throw new NotFound('Deal', id);
  // Moved to another lead by an update that committed while this one waited: that lead too.
  const leadId = Number((row as Record<string, unknown>).lead_id);
  if (leadId !== Number(row.lockedLeadId) && leadId !== newLeadId)
    await lockLeadRows(ctx.db, ctx.orgId, sql`select ${leadId}::bigint`, 'no key update');
  return row;
}

export async function updateDeal(ctx: TenantContext, id: number, input: UpdateDealInput, now: Date) {
  const row = await lockDealAndLeads(ctx, id, input.lead_id);
  const before = row as Record<string, unknown>;
  const current = {
    pipelineId: Number(before.pipeline_id),
    stageId: Number(before.stage_id),
    value: Number(before.value),
    stageEnteredAt: before.stageEnteredAt as Date,
    outcome: before.outcome as 'open' | 'won' | 'lost',
  };
  const pipelineId = input.pipeline_id ?? current.pipelineId;
  if (pipelineId !== current.pipelineId && input.stage_id === undefined)
    throw ValidationFailed.field('stage_id', 'is required when pipeline_id changes (a stage of the new pipeline)');
  const stageId = input.stage_id ?? current.stageId;
  const stageChanged = stageId !== current.stageId;
  const enteringPipeline = pipelineId !== current.pipelineId;
  // The pipeline's cap applies to a different value sent and to a deal entering the pipeline with
  // its value; a deal staying in its pipeline keeps a value above a lowered cap, also when a client
  // sends that unchanged value back with the rest of the deal (docs/domains/pipelines-deals.md).
  const valueChanged = input.value !== undefined && input.value !== current.value;
  // Only a change of what the deal points at, or of a value the pipeline caps, is checked: a change
  // of its title, description, priority or date alone reads nothing more.
  const target =
    input.lead_id !== undefined || stageChanged || enteringPipeline || valueChanged
      ? await checkDealTarget(ctx, {
          leadId: input.lead_id,
          pipelineId,
          stageId,
          value: enteringPipeline ? (input.value ?? current.value) : valueChanged ? input.value : undefined,
          enteringPipeline,
        })
      : { pipelineId, stageId, isWon: current.outcome === 'won', isLost: current.outcome === 'lost' };
  const set: Record<string, unknown> = {};
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const [wire, column] of dealFields.updateColumns) {
    const value = (input as Record<string, unknown>)[wire];
    if (value === undefined) continue;
    set[column] = value;
    const previous = before[wire] === null ? null : wire === 'value' ? Number(before[wire]) : before[wire];
    if (JSON.stringify(previous) !== JSON.stringify(value)) changes[wire] = { from: previous, to: value };
  }
  // A move that changes the outcome closes (won, lost) or reopens the deal. A move between stages
  // of one outcome (a won deal into another pipeline's won stage) keeps it closed as it was: its
  // closed_at stays, and it is not announced again (docs/domains/pipelines-deals.md).
  const outcome = stageChanged ? outcomeOf(target) : current.outcome;
  const outcomeChanged = outcome !== current.outcome;
  if (stageChanged) Object.assign(set, { outcome, stageEnteredAt: now });
  if (outcomeChanged) Object.assign(set, { closedAt: outcome === 'open' ? null : now });
  // The update, the move (if any), the feed entry, the snapshot and the answer, in one statement (writtenDeal).
  const seconds = Math.max(0, Math.round((now.getTime() - current.stageEnteredAt.getTime()) / 1000));
  // A move that closes the deal announces its end (deal.won / deal.lost) in the same statement,
  // from the deal as the update wrote it.
  const closing = outcomeChanged ? outcome : 'open';
  const update = ctx.db
    .update(deals)
    .set({ ...set, updatedAt: now })
    .where(tenantWhere(ctx, deals, eq(deals.id, id)))
    .returning();
  ctx.commitWithNext?.();
  const result = await writingToTarget(target, () =>
    writtenDeal(ctx, now, {
      write: update.getSQL(),
      after: {
        history: sql`insert into ${dealStageHistory} (organization_id, deal_id, from_stage_id, to_stage_id, changed_at, changed_by, seconds_in_from_stage)
          select organization_id, id, ${current.stageId}, ${stageId}, ${now.toISOString()}::timestamptz, ${ctx.userId}, ${seconds}
          from written where ${stageChanged}`,
        feed: feedEntriesFrom(ctx, {
          from: sql`written`,
          modelType: 'deal',
          modelId: sql`written.id`,
          action: stageChanged ? 'deal_stage_changed' : 'deal_updated',
          changes: sql`${JSON.stringify(changes)}::jsonb`,
        }),
      },
      closing,
    }),
  );
  // The deal is locked since lockDealAndLeads: only a fault of ours leaves it out.
  if (!result) throw new NotFound('Deal', id);
  sendWebhookDeliveries(ctx, result.webhookIds);
  return result.deal;
}

/** Deletes deals of the organization (their history and forecasts with them); unknown ids change nothing. */
export async function deleteDeals(ctx: TenantContext, ids: number[]): Promise<number> {
  // Their leads before the deals (leads/row-locks.ts): a removed deal changes its lead's deal counts.
  const leadIds = sql`select d.lead_id from ${deals} d where d.organization_id = ${ctx.orgId} and d.id = any(${sql.param(ids)}::bigint[])`;
  const result = await ctx.db.execute(sql`
    with removed as (
      delete from ${deals} where ${tenantWhere(ctx, deals, inArray(deals.id, ids), leadRowsLocked(ctx.orgId, leadIds, 'no key update'))}
      returning id, title
    )
    ${feedEntriesFrom(ctx, {
      from: sql`removed`,
      modelType: 'deal',
      modelId: sql`removed.id`,
      action: 'deal_deleted',
      changes: sql`jsonb_build_object('title', jsonb_build_object('from', removed.title, 'to', null))`,
    })}`);
  return result.rowCount ?? 0;
}

export const dealList = defineList({
  sort: {
    id: deals.id,
    title: deals.title,
    value: deals.value,
    expected_close_date: deals.expectedCloseDate,
    created_at: deals.createdAt,
    updated_at: deals.updatedAt,
  },
  filters: dealListFilters,
  search: (term) => ilike(deals.title, containsPattern(term)),
  createdAt: deals.createdAt,
  // Pages in id order read the organization's own ids (its (organization_id, id desc nulls last) index; migration 0078).
  tenantIdOrder: true,
  // Unfiltered, the total is the organization's deals counter (migration 0079).
  counter: 'deals',
  base: (ctx, params) => ({
    rows: (columns) =>
      ctx.db
        .select({ ...dealFields.selection, ...columns })
        .from(deals)
        .$dynamic(),
    where: dealFilterWhere(ctx, params),
  }),
  present: (row) => present(row),
});
export const DealListQuery = dealList.query;

export const listDeals = dealList.run;
