/**
 * Companies: add (with an uploaded logo stored through the files module), view, list, update
 * and soft delete. Deleting a company leaves its contacts and leads as they are (they keep their
 * company_id and company name: their history); the company disappears from lists and views.
 * Every write records activity-feed entries (model_type company: created, updated with the
 * changed fields, deleted) in its own statement.
 */
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Queryable, Transaction } from '../../db/client';
import { pgError } from '../../db/errors';
import { lockOrganizationKeySql, writeCheckedKey } from '../../db/key-locks';
import { referencesExist } from '../../db/references';
import { companies, companyKeyScope, leads } from '../../db/schema';
import { companyNamedSql } from '../../db/company-names';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { Conflict, NotFound } from '../../core/errors';
import { defineList } from '../../core/list';
import { storedFileDownloadUrl, storeUpload } from '../files';
import { acceptUpload } from '../files';
import { leadRowLockClause, leadRowsLocked } from '../leads';
import { columnValues } from '../../core/field-table';
import { feedEntriesFrom, type FeedRecord, insertWithFeed, updateWithFeed } from '../feed';
import { type CompanyView, companyFields } from './fields';
import { companyFilterShape, companyFilterWhere, companySearch } from './filters';
import { websiteDomain } from './firmographics';
import type { AddCompanyInput, CompanyTarget, UpdateCompanyInput } from './schemas';

const NOT_STORED = new Set(['company_logo']);

/** A company's feed entries compare its writable fields (docs/domains/companies-contacts.md). */
export const companyRecord: FeedRecord = {
  table: companies,
  modelType: 'company',
  fields: companyFields.writableColumns.map(([wire, key]) => [wire, companies[key]] as const),
};

type CompanyRow = Parameters<typeof companyFields.present>[0];

/**
 * The 409 naming the live company (other than `exceptId`) that already has this name (any
 * letter case); null when none does. Asked before writing: a failed insert would abort the
 * request's transaction (the unique index still settles races).
 */
async function duplicateName(ctx: TenantContext, name: string, exceptId?: number): Promise<Conflict | null> {
  const [existing] = await ctx.db
    .select({ id: companyKeyScope.id })
    .from(companyKeyScope)
    .where(companyNamedSql(ctx.orgId, [name], exceptId));
  if (!existing) return null;
  return new Conflict(`A company named "${name}" already exists in this organization`, 'duplicate_company', {
    company_id: existing.id,
    field: 'company_name',
  });
}

/** An uploaded logo file, checked (an image by content, within the size limit); null when the logo is a URL or absent. */
async function logoUpload(logo: File | string | null | undefined) {
  return logo instanceof File ? await acceptUpload(logo, 'image', 'company_logo') : null;
}

/** A logo given as a URL (JSON, or a form's text field); null when it is a file or cleared. */
function logoUrl(logo: File | string | null | undefined): string | null | undefined {
  return logo instanceof File ? undefined : logo;
}

export async function addCompany(ctx: TenantContext, bucket: R2Bucket, input: AddCompanyInput): Promise<CompanyView> {
  await referencesExist(ctx, { assigned_to: input.assigned_to });
  const logo = await logoUpload(input.company_logo);
  const conflict = await duplicateName(ctx, input.company_name);
  if (conflict) throw conflict;
  const stored = logo ? await storeUpload(ctx, bucket, 'company_logo', logo) : null;
  const [row] = await insertWithFeed<CompanyRow>(
    ctx.db,
    ctx,
    companyRecord,
    ctx.db
      .insert(companies)
      .values({
        ...(columnValues(companyFields.writableColumns, input, NOT_STORED) as Partial<typeof companies.$inferInsert>),
        companyName: input.company_name,
        organizationId: ctx.orgId,
        websiteDomain: websiteDomain(input.website),
        companyLogo: stored ? storedFileDownloadUrl(stored.id) : (logoUrl(input.company_logo) ?? null),
        logoFileId: stored?.id ?? null,
        createdBy: ctx.userId,
      })
      // A concurrent add of the same name loses here without aborting the transaction.
      .onConflictDoNothing()
      .returning(companyFields.selection),
  );
  if (!row)
    throw (await duplicateName(ctx, input.company_name)) ?? new Error('company insert skipped without a conflict');
  return companyFields.present(row);
}

export async function readCompany(ctx: Pick<TenantContext, 'db' | 'orgId' | 'userId'>, id: number) {
  const [row] = await ctx.db
    .select(companyFields.selection)
    .from(companies)
    .where(and(companyFilterWhere(ctx, {}), eq(companies.id, id)));
  if (!row) throw new NotFound('Company', id);
  return companyFields.present(row);
}

export async function updateCompany(
  ctx: TenantContext,
  bucket: R2Bucket,
  id: number,
  input: UpdateCompanyInput,
): Promise<CompanyView> {
  await referencesExist(ctx, { assigned_to: input.assigned_to });
  const logo = await logoUpload(input.company_logo);
  const set: Record<string, unknown> = {
    ...columnValues(companyFields.writableColumns, input, NOT_STORED),
    updatedAt: sql`now()`,
  };
  if (input.website !== undefined) set.websiteDomain = websiteDomain(input.website);
  // A logo given as a URL replaces the uploaded one (its stored file stays with the organization's files).
  if (input.company_logo !== undefined && !logo) {
    set.companyLogo = logoUrl(input.company_logo) ?? null;
    set.logoFileId = null;
  }
  // A value a person sets is theirs now: it no longer counts as enriched.
  const personSet = Object.keys(input).filter((key) => (input as Record<string, unknown>)[key] !== undefined);
  if (personSet.length > 0) set.enrichment = sql`${companies.enrichment} - ${sql.param(personSet)}::text[]`;
  if (input.company_name) {
    // Two renames to one name: the second checks after the first committed (db/key-locks.ts).
    await lockOrganizationKeySql(ctx.db, ctx.orgId, 'company-name', sql`lower(${input.company_name}::text)`);
    const conflict = await duplicateName(ctx, input.company_name, id);
    if (conflict) throw conflict;
  }
  if (logo) {
    // Only a company of the organization gets the file: an unknown id stores nothing.
    await readCompany(ctx, id);
    const stored = await storeUpload(ctx, bucket, 'company_logo', logo);
    set.companyLogo = storedFileDownloadUrl(stored.id);
    set.logoFileId = stored.id;
  }
  // The update with its feed entry (the fields that changed), in one statement.
  const update = (db: Queryable) =>
    updateWithFeed<CompanyRow>(db, ctx, companyRecord, {
      where: and(companyFilterWhere(ctx, {}), eq(companies.id, id)) as SQL,
      set,
      returning: companyFields.selection,
    });
  const newName = input.company_name;
  // Without a rename the update is the request's last statement: its COMMIT goes with it.
  if (!newName) ctx.commitWithNext?.();
  // A concurrent add (or a lead naming a new company) takes no name lock and may commit the name
  // after the check: the index refuses the rename, answered as the check's 409 (writeCheckedKey).
  const [row] = newName
    ? await writeCheckedKey(ctx.db, ['companies_organization_name_key'], update, async () => {
        return (await duplicateName(ctx, newName, id)) ?? new Error('company rename refused without a holder');
      })
    : await update(ctx.db);
  if (!row) throw new NotFound('Company', id);
  // Leads show their linked company's name (they link by name), so a rename reaches them too. They
  // are locked in id order first, as every multi-lead writer locks them (leads/row-locks.ts): in the
  // order the plan read them, a rename and a scoring batch of the same leads could deadlock.
  if (input.company_name) {
    const renamed = sql`${leads.companyId} = ${id} and ${leads.company} is distinct from ${input.company_name}`;
    // The request's last statement: its COMMIT goes with it.
    ctx.commitWithNext?.();
    await ctx.db
      .update(leads)
      .set({ company: input.company_name })
      .where(
        tenantWhere(
          ctx,
          leads,
          renamed,
          leadRowsLocked(
            ctx.orgId,
            sql`select ${leads.id} from ${leads} where ${leads.organizationId} = ${ctx.orgId} and ${renamed}`,
            'no key update',
          ),
        ),
      );
  }
  return companyFields.present(row);
}

function targetWhere(ctx: TenantContext, target: CompanyTarget): SQL {
  if (target.select_all) return companyFilterWhere(ctx, target.filters ?? {});
  return and(companyFilterWhere(ctx, {}), sql`${companies.id} = any(${sql.param(target.ids ?? [])}::bigint[])`) as SQL;
}

/**
 * Soft-deletes the targeted companies; answers how many this request deleted. A company with open
 * deals (deals of its linked leads whose outcome is open) is not deleted unless `force`: then
 * nothing is deleted and the request is a 409 naming those companies.
 *
 * The check reads the open deals from the companies' leads as locked (their open_deals, which a
 * deal write recounts while it holds its lead: leads/row-locks.ts), not from the deals: a deal
 * reopened or added at the same moment holds its lead until it commits, and the statement's
 * snapshot (taken before the wait) does not see that deal, while a locked row is read as last
 * committed. The companies are locked first, in id order, as a rename locks its company and then
 * writes its leads (updateCompany); then their leads, in id order (lead before deal).
 *
 * A lead moved into a company holds the company FOR SHARE until it commits (loadLeadReferences),
 * and the delete must read the companies' leads after that commit: a statement that waited for
 * the company still reads the leads from its snapshot, where the lead is not yet the company's.
 * So the companies are locked NOWAIT in the one statement (no BEGIN/COMMIT) and, when one is held,
 * the delete locks them in a statement of its own, waiting, then reads and writes in another.
 */
export async function deleteCompanies(ctx: TenantContext, target: CompanyTarget, force = false): Promise<number> {
  let row: { deleted: number; blocked: (number | string)[] };
  if (isTransaction(ctx.db)) {
    row = await deleteLockedCompanies(ctx.db, ctx, target, force);
  } else {
    try {
      row = await deleteCompaniesStatement(ctx.db, ctx, targetLocked(ctx, target, sql`nowait`), force);
    } catch (error) {
      if (pgError(error)?.code !== '55P03') throw error;
      row = await ctx.db.transaction((tx) => deleteLockedCompanies(tx, ctx, target, force));
    }
  }
  if (!force && row.blocked.length > 0) {
    const companyIds = row.blocked.map(Number);
    throw new Conflict(
      `${companyIds.length === 1 ? 'The company has' : 'Companies have'} open deals; move or close them first, or send force: true`,
      'company_has_open_deals',
      { company_ids: companyIds },
    );
  }
  return Number(row.deleted);
}

function isTransaction(db: Queryable): db is Transaction {
  return 'rollback' in db;
}

/** The targeted live companies, locked FOR NO KEY UPDATE in id order (`wait`: nowait, or nothing to wait). */
function targetLocked(ctx: TenantContext, target: CompanyTarget, wait: SQL = sql``): SQL {
  return sql`select ${companies.id} as id from ${companies} where ${targetWhere(ctx, target)}
    order by ${companies.id} for no key update ${wait}`;
}

/** The delete inside a transaction: the companies locked (waiting) first, then read and written with a snapshot taken after. */
async function deleteLockedCompanies(db: Queryable, ctx: TenantContext, target: CompanyTarget, force: boolean) {
  const locked = await db.execute<{ id: string }>(targetLocked(ctx, target));
  const ids = locked.rows.map((company) => Number(company.id));
  return deleteCompaniesStatement(db, ctx, targetLocked(ctx, { ids }), force);
}

/** The delete of the companies `lockedTarget` selects (and locks), with the open deals check, in one statement. */
async function deleteCompaniesStatement(db: Queryable, ctx: TenantContext, lockedTarget: SQL, force: boolean) {
  const result = await db.execute<{ deleted: number; blocked: (number | string)[] }>(sql`
    with target as (${lockedTarget}), held as (
      select l.company_id, l.open_deals from ${leads} l
      where l.organization_id = ${ctx.orgId} and l.company_id in (select id from target)
      order by l.id ${leadRowLockClause('no key update')}
    ), blocked as (
      select distinct company_id from held where open_deals > 0
    ), deleted as (
      update ${companies} set deleted_at = now(), updated_at = now()
      where ${companies.id} in (select id from target) and (${force} or not exists (select 1 from blocked))
      returning ${companies.id}, ${companies.companyName}
    ), feed as (
      ${feedEntriesFrom(ctx, {
        from: sql`deleted`,
        modelType: 'company',
        modelId: sql`deleted.id`,
        action: 'deleted',
        changes: sql`jsonb_build_object('company_name', jsonb_build_object('from', deleted.company_name, 'to', null))`,
      })}
    )
    select (select count(*)::int from deleted) as deleted,
      (select coalesce(json_agg(company_id order by company_id), '[]'::json) from blocked) as blocked`);
  return result.rows[0];
}

export async function deleteCompany(ctx: TenantContext, id: number, force = false): Promise<{ id: number }> {
  const deleted = await deleteCompanies(ctx, { ids: [id] }, force);
  if (deleted === 0) throw new NotFound('Company', id);
  return { id };
}

const sortColumns = {
  id: companies.id,
  company_name: companies.companyName,
  industry_type: sql`coalesce(${companies.industryType}, '')`,
  country: sql`coalesce(${companies.country}, '')`,
  rating: sql`coalesce(${companies.rating}, 0)`,
  created_at: companies.createdAt,
  updated_at: companies.updatedAt,
};

export const companyList = defineList({
  sort: sortColumns,
  filters: companyFilterShape,
  search: (term) => companySearch(term),
  createdAt: companies.createdAt,
  // Pages in id order read the organization's own ids (its (organization_id, id desc nulls last) index; migration 0078).
  tenantIdOrder: true,
  // Unfiltered, the total is the organization's live companies counter (migration 0079).
  counter: 'companies',
  base: (ctx, params) => ({
    rows: (columns) =>
      ctx.db
        .select({ ...companyFields.selection, ...columns })
        .from(companies)
        .$dynamic(),
    where: companyFilterWhere(ctx, { ...params, search_value: undefined, start_date: undefined, end_date: undefined }),
  }),
  present: (row) => companyFields.present(row),
});
export const CompanyListQuery = companyList.query;

export const listCompanies = companyList.run;
