/**
 * Bulk actions over explicit ids or `select_all` + the list filters (the same builder as the
 * list). Each action is ONE statement: data-modifying CTEs lock the target rows, change them,
 * and write a feed entry per changed lead (and, for assignment, the assignee's notification),
 * so 100 000 leads cost one round trip. The answer counts the leads that actually changed.
 */
import { and, sql, type SQL } from 'drizzle-orm';
import { referencesExist } from '../../db/references';
import { refreshStatisticsAfter, STATISTICS_REFRESH_ROWS } from '../../db/statistics';
import { leads, leadTags } from '../../db/schema';
import type { TenantContext } from '../../db/tenant';
import { leadAssignedData } from '../webhooks';
import { deliveryIdsOf, sendWebhookDeliveries, webhookDeliveriesSql } from '../webhooks';
import { ValidationFailed } from '../../core/errors';
import { leadFilterWhere } from './filters';
import { leadLookups } from './lead-lookups';
import { leadRowLockClause } from './row-locks';
import type { BulkTarget } from './schemas';
import { feedEntriesFrom } from '../feed';
import { leadAssignmentNotices } from '../notifications';

function targetWhere(ctx: TenantContext, target: BulkTarget): SQL {
  if (target.select_all) return leadFilterWhere(ctx, target.filters ?? {});
  return and(leadFilterWhere(ctx, {}), sql`${leads.id} = any(${sql.param(target.ids ?? [])}::bigint[])`) as SQL;
}

/**
 * The targeted leads (`where` narrows them), locked FOR NO KEY UPDATE in id order: the `target`
 * CTE of every bulk action. Every multi-lead writer locks in id order (a scoring batch, a deal
 * write's leads, a lead delete; row-locks.ts), so two of them that share leads wait, one for the
 * other. Locked in the order the plan read them (a bitmap scan's heap order, an index read
 * backwards), a bulk action and a scoring batch over the same leads each held what the other
 * needed: a deadlock, one of them refused. A locked row is read as last committed: `columns`
 * (each `, expression as name`) and `where` see a change that committed while the action waited.
 */
function lockedTarget(ctx: TenantContext, target: BulkTarget, columns: SQL = sql``, where: SQL = sql`true`): SQL {
  return sql`select ${leads.id} as id${columns} from ${leads}
      where ${targetWhere(ctx, target)} and ${where}
      order by ${leads.id} ${leadRowLockClause('no key update')}`;
}

async function updatedCount(ctx: TenantContext, statement: SQL): Promise<number> {
  const result = await ctx.db.execute<{ updated: number; webhook_ids?: number[]; tag_rows?: number }>(statement);
  // Statements that emit webhooks (assignment) return their deliveries' ids beside the count.
  sendWebhookDeliveries(ctx, result.rows[0]?.webhook_ids ?? []);
  // The tag actions return the lead_tags rows they inserted and deleted: many of them leave the
  // table's statistics blind to this organization's tags (src/db/statistics.ts).
  await refreshStatisticsAfter(ctx.db, Number(result.rows[0]?.tag_rows ?? 0), ['lead_tags']);
  return Number(result.rows[0]?.updated ?? 0);
}

export async function changeLeadStatus(ctx: TenantContext, target: BulkTarget, status: number): Promise<number> {
  const lookups = await leadLookups(ctx);
  if (!lookups.status.has(status))
    throw ValidationFailed.field('status', 'is not an active status of this organization');
  // The one statement is the request's last (no tag rows, so no statistics refresh follows): its
  // COMMIT goes with it.
  ctx.commitWithNext?.();
  return updatedCount(
    ctx,
    sql`
    with target as (
      ${lockedTarget(ctx, target, sql`, ${leads.status} as old`, sql`${leads.status} is distinct from ${status}::int`)}
    ), changed as (
      update ${leads} set status = ${status}::int, updated_at = now() from target
      where leads.id = target.id and leads.organization_id = ${ctx.orgId}
      returning leads.id, target.old
    ), feed as (
      ${feedEntriesFrom(ctx, {
        from: sql`changed`,
        modelType: 'lead',
        modelId: sql`id`,
        action: 'status_changed',
        changes: sql`jsonb_build_object('status', jsonb_build_object('from', old, 'to', ${status}::int))`,
      })}
    )
    select count(*)::int as updated from changed`,
  );
}

export async function assignLeads(ctx: TenantContext, target: BulkTarget, assignedTo: number | null): Promise<number> {
  await referencesExist(ctx, { assigned_to: assignedTo });
  // The one statement is the request's last (no tag rows, so no statistics refresh follows): its
  // COMMIT goes with it.
  ctx.commitWithNext?.();
  return updatedCount(
    ctx,
    sql`
    with target as (
      ${lockedTarget(ctx, target, sql`, ${leads.assignedTo} as old`, sql`${leads.assignedTo} is distinct from ${assignedTo}::bigint`)}
    ), changed as (
      update ${leads} set assigned_to = ${assignedTo}::bigint, updated_at = now() from target
      where leads.id = target.id and leads.organization_id = ${ctx.orgId}
      returning leads.id, target.old, leads.first_name || ' ' || leads.last_name as name
    ), feed as (
      ${feedEntriesFrom(ctx, {
        from: sql`changed`,
        modelType: 'lead',
        modelId: sql`id`,
        action: 'assigned',
        changes: sql`jsonb_build_object('assigned_to', jsonb_build_object('from', old, 'to', ${assignedTo}::bigint))`,
      })}
    ), notice as (
      ${leadAssignmentNotices(ctx, { from: sql`changed`, userId: sql`${assignedTo}::bigint`, leadId: sql`id`, leadName: sql`name` })}
    ), hooks as (
      ${webhookDeliveriesSql(ctx, 'lead.assigned', { from: sql`changed`, data: leadAssignedData(ctx, sql`id`, sql`name`, sql`${assignedTo}::bigint`), where: sql`${assignedTo}::bigint is not null` })}
    )
    select count(*)::int as updated, ${deliveryIdsOf('hooks')} as webhook_ids from changed`,
  );
}

async function requireTags(ctx: TenantContext, tags: number[]): Promise<number[]> {
  const lookups = await leadLookups(ctx);
  const issues = tags.flatMap((tag, index) =>
    lookups.tags.has(tag) ? [] : [{ field: `tags.${index}`, message: 'is not an active tag of this organization' }],
  );
  if (issues.length > 0) throw new ValidationFailed(issues);
  return [...new Set(tags)].sort((a, b) => a - b);
}

/**
 * Adds tags; a lead counts as changed when it gained at least one. The feed's before/after
 * come from one grouped pass over the inserted pairs plus the changed leads' existing pairs
 * (no per-lead subquery and no join between CTEs, whose row estimates are guesses).
 */
export async function addTagsToLeads(ctx: TenantContext, target: BulkTarget, tags: number[]): Promise<number> {
  const tagIds = await requireTags(ctx, tags);
  // Leads named by id can gain at most a row per lead and tag: below the statistics refresh's
  // threshold none follows, so the one statement is the request's last and its COMMIT goes with it.
  if (!target.select_all && (target.ids?.length ?? 0) * tagIds.length < STATISTICS_REFRESH_ROWS) ctx.commitWithNext?.();
  return updatedCount(
    ctx,
    sql`
    with target as (
      ${lockedTarget(ctx, target)}
    ), added as (
      insert into ${leadTags} (organization_id, lead_id, tag_id)
      select ${ctx.orgId}, target.id, tag from target cross join unnest(${sql.param(tagIds)}::bigint[]) as tag
      on conflict do nothing
      returning lead_id, tag_id
    ), existing as (
      select lt.lead_id, lt.tag_id from ${leadTags} lt
      where lt.organization_id = ${ctx.orgId} and lt.lead_id in (select lead_id from added)
    ), changes as (
      select lead_id as id,
        coalesce(jsonb_agg(tag_id order by tag_id) filter (where not is_new), '[]'::jsonb) as before,
        jsonb_agg(tag_id order by tag_id) as after
      from (select lead_id, tag_id, true as is_new from added union all select lead_id, tag_id, false from existing) as pairs
      group by lead_id
    ), touched as (
      update ${leads} set updated_at = now() where leads.organization_id = ${ctx.orgId} and leads.id in (select id from changes)
    ), feed as (
      ${feedEntriesFrom(ctx, {
        from: sql`changes`,
        modelType: 'lead',
        modelId: sql`id`,
        action: 'tags_added',
        changes: sql`jsonb_build_object('tags', jsonb_build_object('from', before, 'to', after))`,
      })}
    )
    select count(*)::int as updated, (select count(*)::int from added) as tag_rows from changes`,
  );
}

/**
 * Replaces tags; a lead counts as changed when it lost or gained a tag. The tags it had before
 * are the removed ones plus the wanted ones it already had (wanted minus added).
 */
export async function setLeadTags(ctx: TenantContext, target: BulkTarget, tags: number[]): Promise<number> {
  const tagIds = await requireTags(ctx, tags);
  const wanted = sql`${sql.param(tagIds)}::bigint[]`;
  return updatedCount(
    ctx,
    sql`
    with target as (
      ${lockedTarget(ctx, target)}
    ), removed as (
      delete from ${leadTags}
      where lead_tags.organization_id = ${ctx.orgId} and lead_tags.lead_id in (select id from target) and not (lead_tags.tag_id = any(${wanted}))
      returning lead_id, tag_id
    ), added as (
      insert into ${leadTags} (organization_id, lead_id, tag_id)
      select ${ctx.orgId}, target.id, tag from target cross join unnest(${wanted}) as tag
      on conflict do nothing
      returning lead_id, tag_id
    ), changes as (
      select lead_id as id,
        coalesce(array_agg(tag_id) filter (where is_removed), '{}') as removed,
        coalesce(array_agg(tag_id) filter (where not is_removed), '{}') as added
      from (select lead_id, tag_id, true as is_removed from removed union all select lead_id, tag_id, false from added) as pairs
      group by lead_id
    ), touched as (
      update ${leads} set updated_at = now() where leads.organization_id = ${ctx.orgId} and leads.id in (select id from changes)
    ), feed as (
      ${feedEntriesFrom(ctx, {
        from: sql`changes`,
        modelType: 'lead',
        modelId: sql`id`,
        action: 'tags_set',
        changes: sql`jsonb_build_object('tags', jsonb_build_object(
          'from', (select coalesce(jsonb_agg(tag order by tag), '[]'::jsonb) from (
            select unnest(removed) as tag union select kept from unnest(${wanted}) as kept where not (kept = any(added))
          ) as before),
          'to', to_jsonb(${wanted})))`,
      })}
    )
    select count(*)::int as updated, (select count(*)::int from removed) + (select count(*)::int from added) as tag_rows
    from changes`,
  );
}
