/**
 * Deleted companies and their way back, as for leads and contacts: `GET /api/company/deleted`
 * lists the organization's soft-deleted companies, `POST /api/company/restore` brings them back
 * unless a live company now has one's name or CRM record (409 `duplicate_company`, nothing
 * restored). A delete never touched the company's leads, contacts or deals, so a restore brings
 * back the company's figures (stats, top accounts, account health, similarity) with it.
 */
import { and, eq, isNotNull, sql } from 'drizzle-orm';
import { companies, companyKeyScope } from '../../db/schema';
import type { TenantContext } from '../../db/tenant';
import { defineList } from '../../core/list';
import { restoreClashConflict, restoreStatementSql, runRestore } from '../../core/restore';
import { isoTimestamp } from '../../core/schemas';
import { deletedRecordSchema, restoreIdsBody } from '../../core/restore-contract';
import { feedEntriesFrom } from '../feed';
import { companyFields } from './fields';
import { companySearch } from './filters';
import { companyExample } from './schemas';

export const COMPANY_NOUNS = { one: 'company', many: 'companies', name: 'Companies' };

export const DeletedCompanySchema = deletedRecordSchema(
  companyFields.readShape,
  { one: 'company', component: 'DeletedCompany' },
  companyExample,
);

export const RestoreCompaniesBody = restoreIdsBody(COMPANY_NOUNS, [3, 4]);

/** The organization's deleted companies; `search_value` as on the company list. */
export const deletedCompanyList = defineList({
  sort: { id: companies.id, deleted_at: companies.deletedAt, created_at: companies.createdAt },
  search: (term) => companySearch(term),
  createdAt: companies.createdAt,
  // companies_organization_deleted_idx (migration 0100) holds exactly these rows, in id order.
  base: (ctx) => ({
    rows: (columns) =>
      ctx.db
        .select({ ...companyFields.selection, deletedAt: companies.deletedAt, ...columns })
        .from(companies)
        .$dynamic(),
    where: and(eq(companies.organizationId, ctx.orgId), isNotNull(companies.deletedAt)),
  }),
  present: ({ deletedAt, ...row }) => ({
    ...companyFields.present(row),
    deleted_at: isoTimestamp(deletedAt) as string,
  }),
});
export const DeletedCompanyListQuery = deletedCompanyList.query;
export const listDeletedCompanies = deletedCompanyList.run;

type CompanyKey = 'company_name' | 'external_id';

/**
 * One statement (core/restore.ts): locks the organization's deleted companies among `ids` in id
 * order, looks for a live company with the name (any letter case) or CRM record of one of them
 * (through company_key_scope, so the unique indexes serve it under row-level security) or two of
 * them sharing one, and restores them all only if none clashes, with a `restored` feed entry each.
 */
function restoreStatement(ctx: TenantContext, ids: number[]) {
  const org = ctx.orgId;
  return restoreStatementSql({
    table: companies,
    orgId: org,
    candidates: sql`select c.id, lower(c.company_name) as name_key, c.external_source, c.external_id
      from ${companies} c
      where c.organization_id = ${org} and c.deleted_at is not null and c.id = any(${sql.param(ids)}::bigint[])
      order by c.id for no key update`,
    clashes: sql`select c.id, k.id as holder_id, 'company_name' as field from candidates c
        join ${companyKeyScope} k on k.organization_id = ${org} and k.name_key = c.name_key
      union all
      select c.id, k.id, 'external_id' from candidates c
        join ${companyKeyScope} k on k.organization_id = ${org} and k.external_id is not null
          and k.external_source = c.external_source and k.external_id = c.external_id
      union all
      select b.id, a.id, 'company_name' from candidates a join candidates b on a.id < b.id and a.name_key = b.name_key
      union all
      select b.id, a.id, 'external_id' from candidates a join candidates b on a.id < b.id
        and a.external_source = b.external_source and a.external_id = b.external_id`,
    feed: (from) => feedEntriesFrom(ctx, { from, modelType: 'company', modelId: sql`id`, action: 'restored' }),
  });
}

/** Restores the organization's deleted companies among `ids` and answers how many, or 409 `duplicate_company`. */
export async function restoreCompanies(ctx: TenantContext, ids: number[]): Promise<number> {
  const { restored, clashes } = await runRestore<CompanyKey>(ctx.db, restoreStatement(ctx, ids));
  if (clashes.length > 0)
    throw restoreClashConflict(clashes, {
      record: 'Company',
      code: 'duplicate_company',
      holder: 'company_id',
      keyNames: { company_name: 'name', external_id: 'CRM record' },
    });
  return restored;
}
