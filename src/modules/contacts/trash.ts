/**
 * Deleted contacts and their way back, as for leads (leads/trash.ts): `GET /api/contact/deleted`
 * lists the organization's soft-deleted contacts, `POST /api/contact/restore` brings them back
 * unless a live contact now holds one's email (409 `duplicate_contact`, nothing restored).
 */
import { and, eq, isNotNull, sql } from 'drizzle-orm';
import { contactKeyScope, contacts } from '../../db/schema';
import type { TenantContext } from '../../db/tenant';
import { defineList } from '../../core/list';
import { restoreClashConflict, restoreStatementSql, runRestore } from '../../core/restore';
import { isoTimestamp } from '../../core/schemas';
import { deletedRecordSchema, restoreIdsBody } from '../../core/restore-contract';
import { feedEntriesFrom } from '../feed';
import { contactFields } from './fields';
import { contactSearch } from './filters';
import { contactExample } from './schemas';

export const CONTACT_NOUNS = { one: 'contact', many: 'contacts', name: 'Contacts' };

export const DeletedContactSchema = deletedRecordSchema(
  contactFields.readShape,
  { one: 'contact', component: 'DeletedContact' },
  contactExample,
);

export const RestoreContactsBody = restoreIdsBody(CONTACT_NOUNS, [5, 6]);

/** The organization's deleted contacts; `search_value` as on the contact list (name, email, phone, designation). */
export const deletedContactList = defineList({
  sort: { id: contacts.id, deleted_at: contacts.deletedAt, created_at: contacts.createdAt },
  search: (term) => contactSearch(term),
  createdAt: contacts.createdAt,
  // contacts_organization_deleted_idx (migration 0095) holds exactly these rows, in id order.
  base: (ctx) => ({
    rows: (columns) =>
      ctx.db
        .select({ ...contactFields.selection, deletedAt: contacts.deletedAt, ...columns })
        .from(contacts)
        .$dynamic(),
    where: and(eq(contacts.organizationId, ctx.orgId), isNotNull(contacts.deletedAt)),
  }),
  present: ({ deletedAt, ...row }) => ({
    ...contactFields.present(row),
    deleted_at: isoTimestamp(deletedAt) as string,
  }),
});
export const DeletedContactListQuery = deletedContactList.query;
export const listDeletedContacts = deletedContactList.run;

/**
 * One statement (core/restore.ts): locks the organization's deleted contacts among `ids` in id
 * order (as every multi-contact write does), looks for a live contact holding the email of one of
 * them (through contact_key_scope, so the unique index serves it under row-level security) or two
 * of them sharing one, and restores them all only if none clashes, with a `restored` feed entry each.
 */
function restoreStatement(ctx: TenantContext, ids: number[]) {
  const org = ctx.orgId;
  return restoreStatementSql({
    table: contacts,
    orgId: org,
    candidates: sql`select c.id, lower(c.email) as email_key
      from ${contacts} c
      where c.organization_id = ${org} and c.deleted_at is not null and c.id = any(${sql.param(ids)}::bigint[])
      order by c.id for no key update`,
    clashes: sql`select c.id, k.id as holder_id, 'email' as field from candidates c
        join ${contactKeyScope} k on k.organization_id = ${org} and k.email_key = c.email_key
      union all
      select b.id, a.id, 'email' from candidates a join candidates b on a.id < b.id and a.email_key = b.email_key`,
    feed: (from) => feedEntriesFrom(ctx, { from, modelType: 'contact', modelId: sql`id`, action: 'restored' }),
  });
}

/** Restores the organization's deleted contacts among `ids` and answers how many, or 409 `duplicate_contact`. */
export async function restoreContacts(ctx: TenantContext, ids: number[]): Promise<number> {
  const { restored, clashes } = await runRestore<'email'>(ctx.db, restoreStatement(ctx, ids));
  if (clashes.length > 0)
    throw restoreClashConflict(clashes, {
      record: 'Contact',
      code: 'duplicate_contact',
      holder: 'contact_id',
      keyNames: { email: 'email' },
    });
  return restored;
}
