/**
 * What each export type reads: its columns, its filter schema, and pages of rows in keyset
 * order (id > last id, EXPORT_PAGE_ROWS at a time), so memory stays flat however many rows
 * match. `clients` are the leads whose status is the organization's "Converted" status lookup
 * (module lead, type status, name Converted, case-insensitive); without such a lookup there are
 * none. Lead columns come from the lead field table; the import reads them back, so an export
 * re-imports cleanly.
 */
import { and, asc, count, gt, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { companies, contacts, leads, lookups } from '../../db/schema';
import type { TenantContext } from '../../db/tenant';
import { companyFields } from '../companies';
import { companyFilterWhere, companyFiltersObject, type CompanyFilters } from '../companies';
import { contactFields } from '../contacts';
import { contactFilterWhere, contactFiltersObject, type ContactFilters } from '../contacts';
import { leadFields } from '../leads';
import { leadFilterWhere, leadFiltersObject, type LeadFilters } from '../leads';
import { LEAD_LOOKUP_MODULE } from '../lookups';

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

/** Each type's filters: those of its list (GET /api/lead/list, /api/company/list, /api/contact/list). */
export function filterSchemaFor(type: ExportType) {
  if (type === 'companies') return companyFiltersObject;
  if (type === 'contacts') return contactFiltersObject;
  return leadFiltersObject;
}

/** The lead file's columns: the field table's exportable fields (labels, tag names and custom fields resolved in the page's query). */
const LEAD_COLUMNS = leadFields.exportColumns.map((column) => column.header);

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
        .select(leadFields.exportSelection)
        .from(leads)
        .where(and(where(ctx), gt(leads.id, afterId)))
        .orderBy(asc(leads.id))
        .limit(EXPORT_PAGE_ROWS);
      const cells = rows.map((row): Cell[] =>
        leadFields.exportColumns.map((column) => column.cell(leadFields.presentField(column.field, row[column.field]))),
      );
      return { rows: cells, lastId: rows.length ? rows[rows.length - 1].id : null };
    },
  };
}

/** A presented field as a cell: lists (technologies, tags) as "a, b"; other objects as JSON. */
function recordCell(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' || typeof value === 'string') return value;
  if (Array.isArray(value)) return value.join(', ');
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return JSON.stringify(value);
}

/**
 * A company or contact file: every field of the resource's field table but those named in
 * `leaveOut`, in table order, read with the table's selection and presenter, filtered by the
 * resource's own list filter builder (so an export matches the list with the same filters).
 */
function recordSource<T extends PgTable & { id: PgColumn }>(
  table: T,
  fields: { selection: Record<string, SQL | PgColumn>; present(row: Record<string, unknown>): object },
  leaveOut: readonly string[],
  where: (ctx: TenantContext) => SQL,
): ExportSource {
  const columns = Object.keys(fields.selection).filter((wire) => !leaveOut.includes(wire));
  return {
    columns,
    count: async (ctx) =>
      (
        await ctx.db
          .select({ n: count() })
          .from(table as PgTable)
          .where(where(ctx))
      )[0].n,
    page: async (ctx, afterId) => {
      const rows = (await ctx.db
        .select(fields.selection)
        .from(table as PgTable)
        .where(and(where(ctx), gt(table.id, afterId)))
        .orderBy(asc(table.id))
        .limit(EXPORT_PAGE_ROWS)) as Record<string, unknown>[];
      const cells = rows.map((row): Cell[] => {
        const view = fields.present(row) as Record<string, unknown>;
        return columns.map((wire) => recordCell(view[wire]));
      });
      return { rows: cells, lastId: rows.length ? Number(rows[rows.length - 1].id) : null };
    },
  };
}

/** Company files leave out `enrichment` (the per-field provenance object; the values are in their own columns). */
const companySource = (filters: CompanyFilters) =>
  recordSource(companies, companyFields, ['enrichment'], (ctx) => companyFilterWhere(ctx, filters));

const contactSource = (filters: ContactFilters) =>
  recordSource(contacts, contactFields, [], (ctx) => contactFilterWhere(ctx, filters));

/** The source for a stored job; the stored filters are validated again (they were at create). */
export function exportSource(type: ExportType, rawFilters: Record<string, unknown>): ExportSource {
  if (type === 'leads' || type === 'clients')
    return leadSource(leadFiltersObject.parse(rawFilters), type === 'clients');
  return type === 'companies'
    ? companySource(companyFiltersObject.parse(rawFilters))
    : contactSource(contactFiltersObject.parse(rawFilters));
}
