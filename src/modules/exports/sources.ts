/**
 * What each export type reads: its columns, its filter schema, and pages of rows in keyset
 * order (id > last id, EXPORT_PAGE_ROWS at a time), so memory stays flat however many rows
 * match. `clients` are the leads whose status is the organization's "Converted" status lookup
 * (module lead, type status, name Converted, case-insensitive); without such a lookup there are
 * none. Lead columns come from the lead field table; the import reads them back, so an export
 * re-imports cleanly.
 */
import { z } from '@hono/zod-openapi';
import { and, asc, count, gt, ilike, isNull, or, sql, type SQL } from 'drizzle-orm';
import { companies, contacts, leads, lookups } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { containsPattern, dateRange, listParamsShape } from '../../core/list';
import { isoTimestamp } from '../../core/schemas';
import { LEAD_EXPORT_COLUMNS, leadExportSelection, presentField } from '../leads/field-derivations';
import { leadFilterWhere, leadFiltersObject, type LeadFilters } from '../leads/filters';
import { LEAD_LOOKUP_MODULE } from '../lookups/defaults';

export const EXPORT_TYPES = ['leads', 'companies', 'contacts', 'clients'] as const;
export type ExportType = (typeof EXPORT_TYPES)[number];
export const EXPORT_PAGE_ROWS = 1000;

export type Cell = string | number | null;

export interface ExportSource {
  columns: readonly string[];
  count(ctx: TenantContext): Promise<number>;
  /** The next page after `afterId`; rows as cells in `columns` order, plus the last id read. */
  page(ctx: TenantContext, afterId: number): Promise<{ rows: Cell[][]; lastId: number | null }>;
}

/** Filters of companies and contacts: the standard list filters that apply to any record. */
export const basicFiltersObject = z
  .object({
    search_value: listParamsShape.search_value,
    start_date: listParamsShape.start_date,
    end_date: listParamsShape.end_date,
  })
  .strict();

export function filterSchemaFor(type: ExportType) {
  return type === 'leads' || type === 'clients' ? leadFiltersObject : basicFiltersObject;
}

/** The lead file's columns: the field table's exportable fields (labels, tag names and custom fields resolved in the page's query). */
const LEAD_COLUMNS = LEAD_EXPORT_COLUMNS.map((column) => column.header);

/** `status = <the Converted status value>`, or a condition matching nothing. */
const convertedStatus = (ctx: TenantContext): SQL =>
  sql`${leads.status} = (select ${lookups.value} from ${lookups} where ${lookups.organizationId} = ${ctx.orgId} and ${lookups.moduleName} = ${LEAD_LOOKUP_MODULE} and ${lookups.type} = 'status' and lower(${lookups.name}) = 'converted' order by ${lookups.id} limit 1)`;

function leadSource(filters: LeadFilters, clientsOnly: boolean): ExportSource {
  const where = (ctx: TenantContext) =>
    and(leadFilterWhere(ctx, filters), clientsOnly ? convertedStatus(ctx) : undefined) as SQL;
  return {
    columns: LEAD_COLUMNS,
    count: async (ctx) => (await ctx.db.select({ n: count() }).from(leads).where(where(ctx)))[0].n,
    page: async (ctx, afterId) => {
      const rows = await ctx.db
        .select(leadExportSelection)
        .from(leads)
        .where(and(where(ctx), gt(leads.id, afterId)))
        .orderBy(asc(leads.id))
        .limit(EXPORT_PAGE_ROWS);
      const cells = rows.map((row): Cell[] =>
        LEAD_EXPORT_COLUMNS.map((column) => column.cell(presentField(column.field, row[column.field]))),
      );
      return { rows: cells, lastId: rows.length ? rows[rows.length - 1].id : null };
    },
  };
}

const COMPANY_COLUMNS = [
  'id',
  'company_name',
  'industry_type',
  'company_logo',
  'address',
  'city',
  'country',
  'employee_size',
  'rating',
  'contact_email',
  'phone_number',
  'website',
  'summary',
  'created_at',
  'updated_at',
] as const;

function companySource(filters: z.output<typeof basicFiltersObject>): ExportSource {
  const where = (ctx: TenantContext) =>
    tenantWhere(
      ctx,
      companies,
      isNull(companies.deletedAt),
      dateRange(companies.createdAt, filters),
      filters.search_value ? ilike(companies.companyName, containsPattern(filters.search_value)) : undefined,
    );
  return {
    columns: COMPANY_COLUMNS,
    count: async (ctx) => (await ctx.db.select({ n: count() }).from(companies).where(where(ctx)))[0].n,
    page: async (ctx, afterId) => {
      const rows = await ctx.db
        .select()
        .from(companies)
        .where(and(where(ctx), gt(companies.id, afterId)))
        .orderBy(asc(companies.id))
        .limit(EXPORT_PAGE_ROWS);
      const cells = rows.map((c): Cell[] => [
        c.id,
        c.companyName,
        c.industryType,
        c.companyLogo,
        c.address,
        c.city,
        c.country,
        c.employeeSize,
        c.rating,
        c.contactEmail,
        c.phoneNumber,
        c.website,
        c.summary,
        isoTimestamp(c.createdAt),
        isoTimestamp(c.updatedAt),
      ]);
      return { rows: cells, lastId: rows.length ? rows[rows.length - 1].id : null };
    },
  };
}

const CONTACT_COLUMNS = [
  'id',
  'name',
  'email',
  'phone_number',
  'company_id',
  'lead_id',
  'designation',
  'seniority',
  'decision_maker',
  'profile_url',
  'lead_score',
  'status',
  'created_at',
  'updated_at',
] as const;

function contactSource(filters: z.output<typeof basicFiltersObject>): ExportSource {
  const where = (ctx: TenantContext) =>
    tenantWhere(
      ctx,
      contacts,
      isNull(contacts.deletedAt),
      dateRange(contacts.createdAt, filters),
      filters.search_value
        ? or(
            ilike(contacts.name, containsPattern(filters.search_value)),
            ilike(contacts.email, containsPattern(filters.search_value)),
          )
        : undefined,
    );
  return {
    columns: CONTACT_COLUMNS,
    count: async (ctx) => (await ctx.db.select({ n: count() }).from(contacts).where(where(ctx)))[0].n,
    page: async (ctx, afterId) => {
      const rows = await ctx.db
        .select()
        .from(contacts)
        .where(and(where(ctx), gt(contacts.id, afterId)))
        .orderBy(asc(contacts.id))
        .limit(EXPORT_PAGE_ROWS);
      const cells = rows.map((c): Cell[] => [
        c.id,
        c.name,
        c.email,
        c.phoneNumber,
        c.companyId,
        c.leadId,
        c.designation,
        c.seniority,
        c.decisionMaker,
        c.profileUrl,
        c.leadScore,
        c.status,
        isoTimestamp(c.createdAt),
        isoTimestamp(c.updatedAt),
      ]);
      return { rows: cells, lastId: rows.length ? rows[rows.length - 1].id : null };
    },
  };
}

/** The source for a stored job; the stored filters are validated again (they were at create). */
export function exportSource(type: ExportType, rawFilters: Record<string, unknown>): ExportSource {
  if (type === 'leads' || type === 'clients')
    return leadSource(leadFiltersObject.parse(rawFilters), type === 'clients');
  const filters = basicFiltersObject.parse(rawFilters);
  return type === 'companies' ? companySource(filters) : contactSource(filters);
}
