/**
 * The one lead filter builder. The list route, every bulk action (select_all + filters), saved
 * views and exports all turn the same filter object into the same SQL, so they never disagree.
 *
 * Values are typed for the query string (comma lists "1,2", flags "true", dates YYYY-MM-DD);
 * in JSON bodies (bulk `filters`, saved views) numbers, booleans and arrays are accepted too.
 */
import { z } from '@hono/zod-openapi';
import { and, eq, gte, inArray, isNull, lte, sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { containsPattern, dateRange, listParamsShape, refineDayRanges } from '../../core/list';
import { leads, leadSearchScope, leadTags } from '../../db/schema';
import type { TenantContext } from '../../db/tenant';
import { booleanFlag, dateInput, idList, parseIdList } from '../../core/schemas';

const scalar = z.union([z.string().max(2_000), z.number()]);

/** Scores are whole numbers in a Postgres integer: a filter outside that fails here, not in the database (or, for an export, in its job). */
const MAX_SCORE_FILTER = 2_147_483_647;

function scoreFilter(description: string) {
  return scalar
    .transform((value, ctx) => {
      const parsed = typeof value === 'number' ? value : value.trim() === '' ? Number.NaN : Number(value);
      if (!Number.isInteger(parsed) || Math.abs(parsed) > MAX_SCORE_FILTER) {
        ctx.addIssue({ code: 'custom', message: 'must be a whole number' });
        return z.NEVER;
      }
      return parsed;
    })
    .optional()
    .openapi({ description, type: 'integer' });
}

function dayFilter(description: string) {
  return dateInput().optional().openapi({ description, example: '2025-01-31' });
}

function textFilter(description: string) {
  return z.string().trim().max(200, 'must be at most 200 characters').optional().openapi({ description });
}

/** `assigned_to`: a user id, a comma list of ids, or `true` for the caller. */
const assignedToFilter = z
  .union([z.boolean(), scalar, z.array(scalar).max(1_000)])
  .transform((value, ctx): 'me' | number[] => {
    if (value === true || value === 'true') return 'me';
    const ids = value === false ? null : parseIdList(value);
    if (!ids) {
      ctx.addIssue({ code: 'custom', message: 'must be a user id, a comma-separated list of user ids, or true' });
      return z.NEVER;
    }
    return ids;
  })
  .optional()
  .openapi({
    description: 'A user id, comma-separated user ids, or `true` for the caller',
    type: 'string',
    example: 'true',
  });

export const leadFilterShape = {
  search_value: listParamsShape.search_value,
  start_date: listParamsShape.start_date,
  end_date: listParamsShape.end_date,
  score_min: scoreFilter('Score at least'),
  score_max: scoreFilter('Score at most'),
  assigned_to: assignedToFilter,
  unassigned: booleanFlag.openapi({ description: '`true`: only leads assigned to nobody' }),
  lead_source: idList('Source lookup values, comma-separated'),
  priority: idList('Priority lookup values, comma-separated'),
  state_id: idList('Status lookup values, comma-separated'),
  tags: idList('Tag lookup ids, comma-separated (a lead matches when it has any of them)'),
  company: textFilter('Company name (case-insensitive, exact)'),
  city: textFilter('City (case-insensitive, exact)'),
  state: textFilter('State (case-insensitive, exact)'),
  country: textFilter('Country (case-insensitive, exact)'),
  created_from: dayFilter('Created on or after this day (YYYY-MM-DD)'),
  created_to: dayFilter('Created on or before this day, inclusive (YYYY-MM-DD)'),
};

/** The `filters` object of bulk bodies, saved views and exports: unknown keys are refused. */
export const leadFiltersObject = z
  .object(leadFilterShape)
  .strict()
  // As on the list (400 there): a range that ends before it starts would select nothing.
  .superRefine((filters, ctx) => refineDayRanges(filters, ctx))
  .openapi('LeadFilters', {
    description:
      'Lead filters, the same as the query parameters of GET /api/lead/list; all given filters must match (AND). Unknown keys are refused',
    example: { state_id: '1,2', assigned_to: 'true', created_from: '2025-01-01' },
  });
export type LeadFilters = z.output<typeof leadFiltersObject>;

function equalsIgnoringCase(column: SQL | { getSQL(): SQL }, value: string): SQL {
  return sql`lower(${column}) = lower(${value})`;
}

/**
 * The filters on a lead's keys (owner, status, source) against the columns given: the lead's own,
 * or those of a rollup keyed the same way (saved-queries/modules.ts), so both read them alike.
 * Without `assignedTo` the owner filters are not built: a rollup without the owner says so first.
 */
export function leadKeyFilters(
  ctx: Pick<TenantContext, 'userId'>,
  f: Pick<LeadFilters, 'assigned_to' | 'unassigned' | 'state_id' | 'lead_source'>,
  columns: { assignedTo?: PgColumn; status: PgColumn; leadSource: PgColumn },
): (SQL | undefined)[] {
  const owner = columns.assignedTo;
  let assigned: SQL | undefined;
  if (owner && f.assigned_to) {
    if (f.assigned_to === 'me') assigned = ctx.userId === null ? sql`false` : eq(owner, ctx.userId);
    else assigned = inArray(owner, f.assigned_to);
  }
  return [
    assigned,
    owner && f.unassigned ? isNull(owner) : undefined,
    f.lead_source ? inArray(columns.leadSource, f.lead_source) : undefined,
    f.state_id ? inArray(columns.status, f.state_id) : undefined,
  ];
}

/**
 * `term` as a case-insensitive substring of a lead's search document (lower-cased; LIKE of the
 * lower-cased pattern is what ILIKE does). The trigram index is asked for the pattern without the
 * term's common words (`lead_search_index_pattern`, drizzle/0060_lead_search_words_sql.sql, in
 * PL/pgSQL since 0081): a word most leads share costs the index a pass over the whole organization
 * and excludes few candidates. As a sub-select it is computed once per statement; called directly
 * it would run again for every candidate the bitmap rechecks. `strpos` then checks the whole term,
 * and being no LIKE, the planner cannot fold it back into the index condition.
 */
function searchDocumentMatches(term: string): SQL {
  const document = leadSearchScope.searchDocument;
  return sql`${document} like (select lead_search_index_pattern(lower(${containsPattern(term)}))) and strpos(${document}, lower(${term})) > 0`;
}

/** The ids of the organization's live leads that `term` matches, through the trigram index (lead_search_scope). */
export function leadSearchMatches(ctx: Pick<TenantContext, 'db' | 'orgId'>, term: string) {
  return ctx.db
    .select({ id: leadSearchScope.id })
    .from(leadSearchScope)
    .where(sql`${leadSearchScope.organizationId} = ${ctx.orgId} and ${searchDocumentMatches(term)}`)
    .$dynamic();
}

/**
 * Every lead filter as one WHERE: always the caller's organization and live leads only.
 * search_value is a case-insensitive substring match (LIKE of the lower-cased pattern on the
 * lower-cased document, which is what ILIKE does) on the trigram-indexed search document, asked
 * of the `lead_search_scope` view so that `lead_search_documents_trgm_idx` serves it under
 * row-level security (drizzle/0004_lead_search_scope.sql, 0058_lead_search_documents_sql.sql).
 * `offset 0` keeps the planner from merging that subquery back into the outer scan of leads,
 * where RLS would demote the LIKE to a filter.
 */
export function leadFilterWhere(ctx: Pick<TenantContext, 'orgId' | 'userId'>, filters: LeadFilters): SQL {
  const f = filters;
  return and(
    eq(leads.organizationId, ctx.orgId),
    isNull(leads.deletedAt),
    f.search_value
      ? sql`${leads.id} in (select ${leadSearchScope.id} from ${leadSearchScope} where ${leadSearchScope.organizationId} = ${ctx.orgId} and ${searchDocumentMatches(f.search_value)} offset 0)`
      : undefined,
    dateRange(leads.createdAt, f),
    f.score_min !== undefined ? gte(leads.score, f.score_min) : undefined,
    f.score_max !== undefined ? lte(leads.score, f.score_max) : undefined,
    ...leadKeyFilters(ctx, f, { assignedTo: leads.assignedTo, status: leads.status, leadSource: leads.leadSource }),
    f.priority ? inArray(leads.priority, f.priority) : undefined,
    f.tags
      ? sql`exists (select 1 from ${leadTags} where ${leadTags.leadId} = ${leads.id} and ${leadTags.tagId} in ${f.tags})`
      : undefined,
    f.company ? equalsIgnoringCase(leads.company, f.company) : undefined,
    f.city ? equalsIgnoringCase(leads.city, f.city) : undefined,
    f.state ? equalsIgnoringCase(leads.state, f.state) : undefined,
    f.country ? equalsIgnoringCase(leads.country, f.country) : undefined,
    f.created_from ? sql`${leads.createdAt} >= ${f.created_from}::date` : undefined,
    f.created_to ? sql`${leads.createdAt} < (${f.created_to}::date + 1)` : undefined,
  ) as SQL;
}
