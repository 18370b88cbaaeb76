/**
 * Companies written by an import from a third-party CRM, a page at a time, set-based (one read,
 * one insert, one update whatever the page's size). A record finds its company by, in order: the
 * CRM record id it was imported from before (`external_source`, `external_id`), its website's
 * domain (`website_domain`, the rule that matches leads and contacts to companies), its name (any
 * letter case: a live company's name is unique), or an earlier record of the page with the same
 * domain or name. Found: given values win over stored ones (an empty CRM value keeps the stored
 * one) and the company keeps its first CRM id; otherwise it is created with the record's id, so a
 * re-run updates and never duplicates. Each created company gets its `created` feed entry and
 * each changed one its `updated` entry (the fields it changed), in the statement that writes them.
 */
import { z } from '@hono/zod-openapi';
import { type SQL, sql } from 'drizzle-orm';
import { recordsetDefinition, tableColumn, type ColumnRef } from '../../core/field-columns';
import { companyNameKeyInSql, givenNameKeysSql } from '../../db/company-names';
import { companies, companyKeyScope } from '../../db/schema';
import type { TenantContext } from '../../db/tenant';
import { changedFieldsSql, feedEntriesFrom, fieldValuesSql } from '../feed';
import { companyFields } from './fields';
import { bandOfHeadcount, websiteDomain } from './firmographics';
import { companyRecord } from './service';

/** The company fields a CRM property may fill (the logo is a file; an owner is a user of ours, not the CRM's). */
export const COMPANY_IMPORT_FIELDS = [
  'company_name',
  'industry_type',
  'address',
  'city',
  'country',
  'employee_size',
  'rating',
  'contact_email',
  'phone_number',
  'website',
  'summary',
  'technologies',
] as const;
export type CompanyImportField = (typeof COMPANY_IMPORT_FIELDS)[number];

const shape = companyFields.createShape;
/** The add form's rules (values arrive as text, as a form's do). */
const CompanyImportRecord = z.object({
  company_name: shape.company_name,
  industry_type: shape.industry_type,
  address: shape.address,
  city: shape.city,
  country: shape.country,
  employee_size: shape.employee_size,
  rating: shape.rating,
  contact_email: shape.contact_email,
  phone_number: shape.phone_number,
  website: shape.website,
  summary: shape.summary,
  technologies: shape.technologies,
});
type CompanyValues = z.output<typeof CompanyImportRecord>;

export interface CompanyImportRow {
  rowNumber: number;
  externalId: string;
  /** Mapped values as the CRM gave them (text); empty ones absent. */
  values: Partial<Record<CompanyImportField, string>>;
}

export interface CompanyImportResult {
  /** Companies created (one per created company, whatever rows folded into it). */
  created: number;
  /** Rows that updated a company: an existing one, or one an earlier row of the page created. */
  updated: number;
  /** Rows folded into a company another row of the import also became (or found by domain or name). */
  merged: { rowNumber: number; companyId: number }[];
  skipped: { rowNumber: number; companyId: number | null; message: string }[];
  errors: { rowNumber: number; field: string; message: string }[];
}

/** Stored columns an import writes, keyed by their wire names, then the derived and provenance ones. */
const WRITTEN: ColumnRef[] = [
  ...COMPANY_IMPORT_FIELDS.map((field) => tableColumn(companies, companyFields.spec[field].column as never, field)),
  tableColumn(companies, 'websiteDomain', 'website_domain'),
  tableColumn(companies, 'externalSource', 'external_source'),
  tableColumn(companies, 'externalId', 'external_id'),
];
const PATCH: ColumnRef[] = [tableColumn(companies, 'id'), ...WRITTEN];

const assignments = sql.join(
  WRITTEN.map((c) => {
    const name = sql.identifier(c.sqlName);
    if (c.key === 'external_source' || c.key === 'external_id') {
      return sql`${name} = case when companies.external_id is null then p.${sql.identifier(c.key)} else companies.${name} end`;
    }
    return sql`${name} = coalesce(p.${sql.identifier(c.key)}, companies.${name})`;
  }),
  sql`, `,
);

function parse(
  row: CompanyImportRow,
): { ok: true; values: CompanyValues } | { ok: false; field: string; message: string } {
  const given: Record<string, string> = { ...row.values };
  // CRMs count employees; the company keeps a band.
  if (given.employee_size && /^\d+$/.test(given.employee_size)) {
    given.employee_size = bandOfHeadcount(Number(given.employee_size)) ?? given.employee_size;
  }
  if (given.company_name === undefined)
    return { ok: false, field: 'company_name', message: 'company_name: is required' };
  const parsed = CompanyImportRecord.safeParse(given);
  if (parsed.success) return { ok: true, values: parsed.data };
  const issue = parsed.error.issues[0];
  const field = issue.path.map(String).join('.') || 'row';
  return { ok: false, field, message: `${field}: ${issue.message}` };
}

type Held = {
  kind: 'held' | 'key';
  id: number;
  external_id: string | null;
  website_domain: string | null;
  name_key: string;
};

/**
 * The organization's live companies an import batch's rows may be: the source's CRM records,
 * the website domains, the names. Through company_key_scope, so each of the three is an index's
 * condition inside the tenant transaction (on the table, row-level security kept
 * lower(company_name) a filter over every company of the organization). Rows of kind `held` are
 * the companies; rows of kind `key` give each of `names` its key (`id` = its 1-based position),
 * lowered by the database as the unique index lowers it: JavaScript's toLowerCase differs for
 * some letters (a final Σ, a dotted İ), and a row whose key differed would miss its company and
 * be refused by the index as a new one.
 */
export function heldCompaniesSql(
  orgId: number,
  source: string,
  keys: { externalIds: string[]; domains: string[]; names: string[] },
): SQL {
  return sql`select 'held' as kind, id, external_id, website_domain, name_key from ${companyKeyScope}
    where organization_id = ${orgId} and (
      (external_source = ${source} and external_id = any(${sql.param(keys.externalIds)}::text[]))
      or website_domain = any(${sql.param(keys.domains)}::text[])
      or ${companyNameKeyInSql(keys.names)})
    union all
    select 'key', k.position, null, null, k.name_key from ${givenNameKeysSql(keys.names)} as k
    order by kind, id`;
}

export async function importCompaniesBatch(
  ctx: TenantContext,
  source: string,
  rows: CompanyImportRow[],
): Promise<CompanyImportResult> {
  const result: CompanyImportResult = { created: 0, updated: 0, merged: [], skipped: [], errors: [] };
  const valid: { row: CompanyImportRow; values: CompanyValues; domain: string | null; nameKey: string }[] = [];
  for (const row of rows) {
    const parsed = parse(row);
    if (!parsed.ok) result.errors.push({ rowNumber: row.rowNumber, field: parsed.field, message: parsed.message });
    else {
      const domain = websiteDomain(parsed.values.website);
      valid.push({ row, values: parsed.values, domain, nameKey: '' });
    }
  }
  if (valid.length === 0) return result;
  const held = await ctx.db.execute<Held>(
    heldCompaniesSql(ctx.orgId, source, {
      externalIds: valid.map((v) => v.row.externalId),
      domains: valid.flatMap((v) => (v.domain ? [v.domain] : [])),
      names: valid.map((v) => v.values.company_name),
    }),
  );
  for (const key of held.rows) if (key.kind === 'key') valid[Number(key.id) - 1].nameKey = key.name_key;
  const byExternal = new Map<string, number>();
  const byDomain = new Map<string, number>();
  const byName = new Map<string, number>();
  for (const company of held.rows) {
    if (company.kind !== 'held') continue;
    const id = Number(company.id);
    if (company.external_id) byExternal.set(company.external_id, id);
    if (company.website_domain && !byDomain.has(company.website_domain)) byDomain.set(company.website_domain, id);
    byName.set(company.name_key, id);
  }

  const updates = new Map<
    number,
    {
      values: CompanyValues;
      /** The key of the name the folded values carry (the last row's). */
      nameKey: string;
      externalId: string;
      rows: CompanyImportRow[];
      found: 'external' | 'match';
    }
  >();
  const creates: { values: CompanyValues; externalId: string; domain: string | null; rows: CompanyImportRow[] }[] = [];
  const pendingByDomain = new Map<string, (typeof creates)[number]>();
  const pendingByName = new Map<string, (typeof creates)[number]>();
  const fold = (base: CompanyValues, next: CompanyValues): CompanyValues => {
    const folded: Record<string, unknown> = { ...base };
    for (const [key, value] of Object.entries(next)) if (value !== null && value !== undefined) folded[key] = value;
    return folded as CompanyValues;
  };
  for (const entry of valid) {
    const existing =
      byExternal.get(entry.row.externalId) ??
      (entry.domain ? byDomain.get(entry.domain) : undefined) ??
      byName.get(entry.nameKey);
    if (existing !== undefined) {
      const found = byExternal.get(entry.row.externalId) === existing ? 'external' : 'match';
      const update = updates.get(existing);
      if (update) {
        update.values = fold(update.values, entry.values);
        update.nameKey = entry.nameKey;
        update.rows.push(entry.row);
        result.merged.push({ rowNumber: entry.row.rowNumber, companyId: existing });
      } else {
        updates.set(existing, {
          values: entry.values,
          nameKey: entry.nameKey,
          externalId: entry.row.externalId,
          rows: [entry.row],
          found,
        });
        if (found === 'match') result.merged.push({ rowNumber: entry.row.rowNumber, companyId: existing });
      }
      continue;
    }
    const pending = (entry.domain ? pendingByDomain.get(entry.domain) : undefined) ?? pendingByName.get(entry.nameKey);
    if (pending) {
      pending.values = fold(pending.values, entry.values);
      pending.rows.push(entry.row);
      continue;
    }
    const create = { values: entry.values, externalId: entry.row.externalId, domain: entry.domain, rows: [entry.row] };
    creates.push(create);
    if (entry.domain) pendingByDomain.set(entry.domain, create);
    pendingByName.set(entry.nameKey, create);
  }

  const record = (values: CompanyValues, externalId: string) => ({
    ...values,
    technologies: values.technologies ?? null,
    website_domain: websiteDomain(values.website),
    external_source: source,
    external_id: externalId,
  });

  if (creates.length > 0) {
    // Each created company's `created` entry is written in the same statement (as the add route's).
    const inserted = await ctx.db.execute<{ id: number; external_id: string }>(sql`
      with inserted as (
      insert into ${companies} (organization_id, created_by, ${sql.join(
        WRITTEN.map((c) => sql.identifier(c.sqlName)),
        sql`, `,
      )})
      select ${ctx.orgId}, ${ctx.userId}, ${sql.join(
        WRITTEN.map((c) =>
          c.key === 'technologies' ? sql`coalesce(r.technologies, '{}')` : sql`r.${sql.identifier(c.key)}`,
        ),
        sql`, `,
      )}
      from jsonb_to_recordset(${JSON.stringify(creates.map((c) => record(c.values, c.externalId)))}::jsonb) as r(${recordsetDefinition(WRITTEN)})
      on conflict do nothing
      returning *
      ), feed as (
        ${feedEntriesFrom(ctx, {
          from: sql`inserted`,
          modelType: companyRecord.modelType,
          modelId: sql`inserted.id`,
          action: 'created',
          changes: changedFieldsSql(null, fieldValuesSql('inserted', companyRecord.fields)),
        })}
      )
      select id, external_id from inserted`);
    const idOf = new Map(inserted.rows.map((row) => [row.external_id, Number(row.id)]));
    for (const create of creates) {
      const id = idOf.get(create.externalId);
      if (id === undefined) {
        // A concurrent writer took the name or the CRM id first.
        for (const row of create.rows)
          result.skipped.push({
            rowNumber: row.rowNumber,
            companyId: null,
            message: 'another company took this name or CRM record first',
          });
        continue;
      }
      result.created++;
      result.updated += create.rows.length - 1;
      for (const row of create.rows.slice(1)) result.merged.push({ rowNumber: row.rowNumber, companyId: id });
    }
  }

  if (updates.size > 0) {
    const patches = [...updates].map(([id, update]) => {
      const values = { ...update.values } as Record<string, unknown>;
      // Never rename onto another live company's name (the unique index would refuse the whole page).
      const holder = byName.get(update.nameKey);
      if (holder !== undefined && holder !== id) values.company_name = null;
      return { ...record(values as CompanyValues, update.externalId), id };
    });
    // Locked in id order first, as a company delete locks its companies: in the order the plan read
    // them, a page and a delete (or another page) of the same companies could deadlock.
    // Each company's `updated` entry (the fields that changed, from the values read under the
    // lock) is written in the same statement; a company the page left as it was gets none.
    await ctx.db.execute(sql`
      with locked as (
        select id, ${fieldValuesSql('companies', companyRecord.fields)} as before from ${companies}
        where organization_id = ${ctx.orgId} and id = any(${sql.param([...updates.keys()])}::bigint[])
        order by id for no key update
      ), updated as (
        update ${companies} set ${assignments}, updated_at = now()
        from jsonb_to_recordset(${JSON.stringify(patches)}::jsonb) as p(${recordsetDefinition(PATCH)})
        where companies.id = p.id and companies.organization_id = ${ctx.orgId} and companies.deleted_at is null
          and companies.id in (select id from locked)
        returning companies.*
      ), feed as (
        ${feedEntriesFrom(ctx, {
          from: sql`(select updated.id, ${changedFieldsSql(sql`locked.before`, fieldValuesSql('updated', companyRecord.fields))} as changes
            from updated join locked on locked.id = updated.id) as c where c.changes <> '{}'::jsonb`,
          modelType: companyRecord.modelType,
          modelId: sql`c.id`,
          action: 'updated',
          changes: sql`c.changes`,
        })}
      )
      select count(*) from updated`);
    for (const update of updates.values()) result.updated += update.rows.length;
  }
  result.merged.sort((a, b) => a.rowNumber - b.rowNumber);
  return result;
}
