/**
 * Deleted leads and their way back: `GET /api/lead/deleted` lists the organization's soft-deleted
 * leads (newest deletion first by default), `POST /api/lead/restore` brings leads back. A delete
 * keeps the row (`deleted_at`), its deals, notes, calls, files and feed; what hides them while it
 * is deleted (lists, views, search, counters, the calls and files of the lead) reads `deleted_at`,
 * and the leads' triggers put it back into the counters and the search on restore.
 */
import { and, eq, isNotNull, or, type SQLWrapper, sql } from 'drizzle-orm';
import { leads, leadKeyScope } from '../../db/schema';
import type { TenantContext } from '../../db/tenant';
import { containsPattern, defineList } from '../../core/list';
import { restoreClashConflict, restoreStatementSql, runRestore } from '../../core/restore';
import { isoTimestamp } from '../../core/schemas';
import { deletedRecordSchema, restoreIdsBody } from '../../core/restore-contract';
import { feedEntriesFrom } from '../feed';
import { leadFields } from './fields';
import { leadSelection, presentLead } from './present';
import { leadExample } from './schemas';
import { leadRowLockClause } from './row-locks';

export const LEAD_NOUNS = { one: 'lead', many: 'leads', name: 'Leads' };

export const DeletedLeadSchema = deletedRecordSchema(
  leadFields.readShape,
  { one: 'lead', component: 'DeletedLead' },
  leadExample,
);

export const RestoreLeadsBody = restoreIdsBody(LEAD_NOUNS, [1, 2, 3]);

const ciContains = (column: SQLWrapper, term: string) => sql`${column} ilike ${containsPattern(term)}`;

/**
 * The organization's deleted leads. `search_value` matches the name, email, company and job title
 * (a substring, any case: the stored search documents hold live leads only); `start_date` and
 * `end_date` bound the creation date, as on every list.
 */
export const deletedLeadList = defineList({
  sort: { id: leads.id, deleted_at: leads.deletedAt, created_at: leads.createdAt },
  search: (term) =>
    or(
      ciContains(leads.firstName, term),
      ciContains(leads.lastName, term),
      ciContains(leads.email, term),
      ciContains(leads.company, term),
      ciContains(leads.jobTitle, term),
    ),
  createdAt: leads.createdAt,
  // leads_organization_deleted_idx (migration 0095) holds exactly these rows, in id order.
  base: (ctx) => ({
    rows: (columns) =>
      ctx.db
        .select({ ...leadSelection, deletedAt: leads.deletedAt, ...columns })
        .from(leads)
        .$dynamic(),
    where: and(eq(leads.organizationId, ctx.orgId), isNotNull(leads.deletedAt)),
  }),
  present: ({ deletedAt, ...row }) => ({ ...presentLead(row), deleted_at: isoTimestamp(deletedAt) as string }),
});
export const DeletedLeadListQuery = deletedLeadList.query;
export const listDeletedLeads = deletedLeadList.run;

type LeadKey = 'email' | 'profile_url' | 'external_id';

/**
 * One statement (core/restore.ts): locks the organization's deleted leads among `ids`, looks for a
 * live lead holding the email, profile URL or CRM record of one of them (the keys unique among
 * live leads that are not flagged duplicates, through lead_key_scope so the unique indexes serve it
 * under row-level security), or two of them sharing one, and restores them all only if none
 * clashes, writing a `restored` feed entry for each.
 */
function restoreStatement(ctx: TenantContext, ids: number[]) {
  const org = ctx.orgId;
  return restoreStatementSql({
    table: leads,
    orgId: org,
    candidates: sql`select l.id, lower(l.email) as email_key, l.profile_url_key as profile_key, l.external_source,
        l.external_id, l.duplicate_of
      from ${leads} l
      where l.organization_id = ${org} and l.deleted_at is not null and l.id = any(${sql.param(ids)}::bigint[])
      order by l.id ${leadRowLockClause('update')}`,
    clashes: sql`with originals as (select * from candidates where duplicate_of is null)
      select c.id, k.id as holder_id, 'email' as field from originals c
        join ${leadKeyScope} k on k.organization_id = ${org} and k.duplicate_of is null and k.email_key = c.email_key
      union all
      select c.id, k.id, 'profile_url' from originals c
        join ${leadKeyScope} k on k.organization_id = ${org} and k.duplicate_of is null and k.profile_key = c.profile_key
      union all
      select c.id, l.id, 'external_id' from candidates c
        join ${leads} l on l.organization_id = ${org} and l.deleted_at is null and l.external_id is not null
          and l.external_source = c.external_source and l.external_id = c.external_id
      union all
      select b.id, a.id, 'email' from originals a join originals b on a.id < b.id and a.email_key = b.email_key
      union all
      select b.id, a.id, 'profile_url' from originals a join originals b on a.id < b.id and a.profile_key = b.profile_key
      union all
      select b.id, a.id, 'external_id' from candidates a join candidates b on a.id < b.id
        and a.external_source = b.external_source and a.external_id = b.external_id`,
    feed: (from) => feedEntriesFrom(ctx, { from, modelType: 'lead', modelId: sql`id`, action: 'restored' }),
  });
}

/**
 * Restores the organization's deleted leads among `ids` and answers how many, or 409
 * `duplicate_lead` when one of them would hold a key a live lead holds (nothing restored).
 */
export async function restoreLeads(ctx: TenantContext, ids: number[]): Promise<number> {
  const { restored, clashes } = await runRestore<LeadKey>(ctx.db, restoreStatement(ctx, ids));
  if (clashes.length > 0)
    throw restoreClashConflict(clashes, {
      record: 'Lead',
      code: 'duplicate_lead',
      holder: 'lead_id',
      keyNames: { email: 'email', profile_url: 'profile URL', external_id: 'CRM record' },
    });
  return restored;
}
