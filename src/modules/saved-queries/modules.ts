/**
 * What a saved query may ask of each module: its filters (the module's own list filter schema and
 * WHERE builder, so a query counts exactly what the list shows), the columns it may group by
 * (with how a group's key reads as a label), the numeric fields it may sum or average and the
 * date columns it may bucket. Identifiers reach SQL only from these tables; values are bound.
 */
import { z } from '@hono/zod-openapi';
import { and, eq, ilike, sql, type SQL } from 'drizzle-orm';
import { containsPattern, dateRange, listParamsShape } from '../../core/list';
import {
  companies,
  contacts,
  deals,
  leadDayCounts,
  leadOwnerCounts,
  leads,
  MEETING_STATUSES,
  meetings,
  users,
  lookups,
  pipelines,
  stages,
} from '../../db/schema';
import { bare } from '../../db/sql-names';
import type { TenantContext } from '../../db/tenant';
import { companyFiltersObject, companyFilterWhere } from '../companies';
import { contactFiltersObject, contactFilterWhere } from '../contacts';
import { dealListFilters } from '../deals';
import { DEAL_OUTCOMES } from '../deals';
import { leadFiltersObject, leadFilterWhere, leadKeyFilters } from '../leads';
import { meetingFilters, meetingFilterWhere, type MeetingFilters } from '../meetings';

type Scope = Pick<TenantContext, 'orgId' | 'userId'>;

export interface GroupColumn {
  /** The grouped expression, over the module's table. */
  key: SQL;
  /** The group's label, from its key (the column `g.k` of the grouped rows); the key as text when absent. */
  label?: (ctx: Scope) => SQL;
}

/**
 * A rollup kept by the writes that answers the module's aggregates without reading its rows, when
 * a query asks only for what it holds: a count, or a sum or average of a field among `sums`;
 * filters among those `where` accepts; a group among `groups`; a bucket among `dates`. Each row
 * carries `delta`, a count to sum, and a summed column per field of `sums`.
 */
export interface QueryRollup {
  from: SQL;
  /** The WHERE for the filters, or null when a filter is one the rollup does not hold. */
  where: (ctx: Scope, filters: Record<string, unknown>) => SQL | null;
  groups: Record<string, SQL>;
  dates: Record<string, SQL>;
  /** The rollup's column for the module's createdAt (the default date range); null: it holds no date. */
  createdAt: SQL | null;
  delta: SQL;
  /** Numeric field → the rollup's column holding its sum over the row's records. */
  sums: Record<string, SQL>;
}

export interface QueryModule {
  from: SQL;
  filters: z.ZodType<Record<string, unknown>>;
  where: (ctx: Scope, filters: Record<string, unknown>) => SQL;
  groups: Record<string, GroupColumn>;
  numbers: Record<string, SQL>;
  /** Date columns (timestamptz or date) that may be bucketed and bound by start_date/end_date. */
  dates: Record<string, SQL>;
  createdAt: SQL;
  /** Tried in order; the first that holds the query answers it, else the module's rows do. */
  rollups?: QueryRollup[];
}

const groupKey = sql.raw('g.k');

function lookupLabel(type: 'status' | 'source' | 'priority') {
  return (ctx: Scope) =>
    sql`coalesce((select l.name from ${lookups} l where l.organization_id = ${ctx.orgId} and l.module_name = 'lead' and l.type = ${type} and l.value = ${groupKey}), ${groupKey}::text)`;
}

const userLabel = () =>
  sql`(select trim(u.first_name || ' ' || coalesce(u.last_name, '')) from ${users} u where u.id = ${groupKey})`;
const nameLabel = (name: typeof stages.name | typeof pipelines.name | typeof companies.companyName) => () =>
  sql`(select ${bare(name)} from ${name.table} t where t.id = ${groupKey})`;

const dealFilters = z
  .object({
    search_value: listParamsShape.search_value,
    start_date: listParamsShape.start_date,
    end_date: listParamsShape.end_date,
    ...dealListFilters,
    outcome: z
      .enum(DEAL_OUTCOMES)
      .optional()
      .openapi({ description: 'open, won or lost (a saved-query filter beyond the deal list’s)' }),
  })
  .strict();

/** The meeting list's filters (GET /api/meetings/list), with its search and creation range. */
const meetingQueryFilters = z
  .object({
    search_value: listParamsShape.search_value,
    start_date: listParamsShape.start_date,
    end_date: listParamsShape.end_date,
    ...meetingFilters,
  })
  .strict();

/** A meeting status value as its name (1 Scheduled … 5 No Show). */
const meetingStatusLabel = () =>
  sql`(case ${groupKey} ${sql.join(
    Object.entries(MEETING_STATUSES).map(([value, name]) => sql`when ${Number(value)} then ${name}`),
    sql` `,
  )} else ${groupKey}::text end)`;

/** Whether every given filter is one of `held`. */
const holdsFilters = (raw: Record<string, unknown>, held: Set<string>) =>
  Object.entries(raw).every(([key, value]) => value === undefined || held.has(key));

/** The lead filters lead_day_counts holds: status, source and creation days (whole UTC days). */
const LEAD_DAY_FILTERS = new Set(['state_id', 'lead_source', 'start_date', 'end_date', 'created_from', 'created_to']);

/** Live-lead counts by creation day, status and source (src/db/schema/counters.ts). */
const leadDayRollup: QueryRollup = {
  from: sql`${leadDayCounts}`,
  where: (ctx, raw) => {
    if (!holdsFilters(raw, LEAD_DAY_FILTERS)) return null;
    const f = raw as z.output<typeof leadFiltersObject>;
    return and(
      eq(leadDayCounts.organizationId, ctx.orgId),
      dateRange(leadDayCounts.day, f),
      ...leadKeyFilters(ctx, f, { status: leadDayCounts.status, leadSource: leadDayCounts.leadSource }),
      f.created_from ? sql`${leadDayCounts.day} >= ${f.created_from}::date` : undefined,
      f.created_to ? sql`${leadDayCounts.day} <= ${f.created_to}::date` : undefined,
    ) as SQL;
  },
  groups: { status: sql`${leadDayCounts.status}`, lead_source: sql`${leadDayCounts.leadSource}` },
  dates: { created_at: sql`${leadDayCounts.day}` },
  createdAt: sql`${leadDayCounts.day}`,
  delta: sql`${leadDayCounts.delta}`,
  sums: {},
};

/** The lead filters lead_owner_counts holds: owner, status and source (no date). */
const LEAD_OWNER_FILTERS = new Set(['assigned_to', 'unassigned', 'state_id', 'lead_source']);

/** Live-lead counts and score sums by owner, status and source (src/db/schema/counters.ts). */
const leadOwnerRollup: QueryRollup = {
  from: sql`${leadOwnerCounts}`,
  where: (ctx, raw) => {
    if (!holdsFilters(raw, LEAD_OWNER_FILTERS)) return null;
    const f = raw as z.output<typeof leadFiltersObject>;
    return and(
      eq(leadOwnerCounts.organizationId, ctx.orgId),
      ...leadKeyFilters(ctx, f, {
        assignedTo: leadOwnerCounts.assignedTo,
        status: leadOwnerCounts.status,
        leadSource: leadOwnerCounts.leadSource,
      }),
    ) as SQL;
  },
  groups: {
    assigned_to: sql`${leadOwnerCounts.assignedTo}`,
    status: sql`${leadOwnerCounts.status}`,
    lead_source: sql`${leadOwnerCounts.leadSource}`,
  },
  dates: {},
  createdAt: null,
  delta: sql`${leadOwnerCounts.delta}`,
  sums: { score: sql`${leadOwnerCounts.scoreSum}` },
};

export const queryModules: Record<'leads' | 'deals' | 'companies' | 'contacts' | 'meetings', QueryModule> = {
  leads: {
    from: sql`${leads}`,
    filters: leadFiltersObject as unknown as z.ZodType<Record<string, unknown>>,
    where: (ctx, filters) => leadFilterWhere(ctx, filters as z.output<typeof leadFiltersObject>),
    groups: {
      status: { key: sql`${leads.status}`, label: lookupLabel('status') },
      lead_source: { key: sql`${leads.leadSource}`, label: lookupLabel('source') },
      priority: { key: sql`${leads.priority}`, label: lookupLabel('priority') },
      assigned_to: { key: sql`${leads.assignedTo}`, label: userLabel },
      country: { key: sql`${leads.country}` },
      city: { key: sql`${leads.city}` },
      industry: { key: sql`${leads.industry}` },
      company: { key: sql`${leads.company}` },
    },
    numbers: { score: sql`${leads.score}`, estimated_value: sql`${leads.estimatedValue}` },
    dates: {
      created_at: sql`${leads.createdAt}`,
      updated_at: sql`${leads.updatedAt}`,
      last_activity_at: sql`${leads.lastActivityAt}`,
    },
    createdAt: sql`${leads.createdAt}`,
    rollups: [leadDayRollup, leadOwnerRollup],
  },
  deals: {
    from: sql`${deals}`,
    filters: dealFilters as unknown as z.ZodType<Record<string, unknown>>,
    where: (ctx, raw) => {
      const f = raw as z.output<typeof dealFilters>;
      return and(
        eq(deals.organizationId, ctx.orgId),
        f.search_value ? ilike(deals.title, containsPattern(f.search_value)) : undefined,
        dateRange(deals.createdAt, f),
        f.lead_id !== undefined ? eq(deals.leadId, f.lead_id) : undefined,
        f.pipeline_id !== undefined ? eq(deals.pipelineId, f.pipeline_id) : undefined,
        f.status !== undefined ? eq(deals.stageId, f.status) : undefined,
        f.outcome ? eq(deals.outcome, f.outcome) : undefined,
      ) as SQL;
    },
    groups: {
      stage: { key: sql`${deals.stageId}`, label: nameLabel(stages.name) },
      pipeline: { key: sql`${deals.pipelineId}`, label: nameLabel(pipelines.name) },
      outcome: { key: sql`${deals.outcome}` },
      owner: { key: sql`${deals.ownerId}`, label: userLabel },
      priority: { key: sql`${deals.priority}` },
    },
    numbers: { value: sql`${deals.value}` },
    dates: {
      created_at: sql`${deals.createdAt}`,
      closed_at: sql`${deals.closedAt}`,
      expected_close_date: sql`${deals.expectedCloseDate}`,
      stage_entered_at: sql`${deals.stageEnteredAt}`,
    },
    createdAt: sql`${deals.createdAt}`,
  },
  companies: {
    from: sql`${companies}`,
    filters: companyFiltersObject as unknown as z.ZodType<Record<string, unknown>>,
    where: (ctx, filters) => companyFilterWhere(ctx, filters as z.output<typeof companyFiltersObject>),
    groups: {
      industry: { key: sql`${companies.industryType}` },
      country: { key: sql`${companies.country}` },
      employee_size: { key: sql`${companies.employeeSize}` },
      assigned_to: { key: sql`${companies.assignedTo}`, label: userLabel },
    },
    numbers: {},
    dates: { created_at: sql`${companies.createdAt}`, updated_at: sql`${companies.updatedAt}` },
    createdAt: sql`${companies.createdAt}`,
  },
  contacts: {
    from: sql`${contacts}`,
    filters: contactFiltersObject as unknown as z.ZodType<Record<string, unknown>>,
    where: (ctx, filters) => contactFilterWhere(ctx, filters as z.output<typeof contactFiltersObject>),
    groups: {
      company: { key: sql`${contacts.companyId}`, label: nameLabel(companies.companyName) },
      designation: { key: sql`${contacts.designation}` },
      seniority: { key: sql`${contacts.seniority}` },
      decision_maker: { key: sql`${contacts.decisionMaker}` },
      created_by: { key: sql`${contacts.createdBy}`, label: userLabel },
    },
    numbers: { lead_score: sql`${contacts.leadScore}` },
    dates: { created_at: sql`${contacts.createdAt}`, updated_at: sql`${contacts.updatedAt}` },
    createdAt: sql`${contacts.createdAt}`,
  },
  meetings: {
    from: sql`${meetings}`,
    filters: meetingQueryFilters as unknown as z.ZodType<Record<string, unknown>>,
    where: (ctx, raw) => {
      const f = raw as z.output<typeof meetingQueryFilters>;
      return and(
        meetingFilterWhere(ctx, f as MeetingFilters),
        f.search_value ? ilike(meetings.title, containsPattern(f.search_value)) : undefined,
        dateRange(meetings.createdAt, f),
      ) as SQL;
    },
    groups: {
      status: { key: sql`${meetings.status}`, label: meetingStatusLabel },
      rep: { key: sql`${meetings.userId}`, label: userLabel },
      company: { key: sql`${meetings.companyId}`, label: nameLabel(companies.companyName) },
      meeting_tool: { key: sql`${meetings.meetingTool}` },
      source: { key: sql`${meetings.source}` },
    },
    numbers: { duration_minutes: sql`(extract(epoch from ${meetings.endTime} - ${meetings.startTime}) / 60)` },
    dates: { start_time: sql`${meetings.startTime}`, created_at: sql`${meetings.createdAt}` },
    createdAt: sql`${meetings.createdAt}`,
  },
};

export type QueryModuleName = keyof typeof queryModules;
export const QUERY_MODULES = Object.keys(queryModules) as [QueryModuleName, ...QueryModuleName[]];
export const METRIC_OPS = ['count', 'sum', 'avg'] as const;
export const BUCKET_UNITS = ['day', 'week', 'month', 'quarter'] as const;
