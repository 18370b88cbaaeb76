/**
 * Contacts: add, view, list, update, set-based bulk update and soft delete. A contact belongs
 * to a live company of the organization (404 otherwise); its email is unique among the
 * organization's live contacts (409 naming the contact that has it; the partial unique index
 * contacts_organization_email_key settles races). Every write records activity-feed entries
 * (model_type contact: created, updated with the changed fields, deleted) in its own statement.
 */
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Queryable } from '../../db/client';
import { lockOrganizationKeySql, writeCheckedKey } from '../../db/key-locks';
import { readReferences, referenceIssues } from '../../db/references';
import { contactKeyScope, contacts, lookups } from '../../db/schema';
import { type TenantContext, tenantWhere } from '../../db/tenant';
import { Conflict, NotFound, ValidationFailed } from '../../core/errors';
import { defineList } from '../../core/list';
import { LEAD_LOOKUP_MODULE } from '../lookups';
import { columnValues } from '../../core/field-table';
import { feedEntriesFrom, type FeedRecord, insertWithFeed, updateWithFeed } from '../feed';
import { type ContactView, contactFields } from './fields';
import { contactFilterShape, contactFilterWhere, contactSearch } from './filters';
import type { AddContactInput, ContactTarget, UpdateContactInput } from './schemas';

/** A contact's feed entries compare its writable fields (docs/domains/companies-contacts.md). */
export const contactRecord: FeedRecord = {
  table: contacts,
  modelType: 'contact',
  fields: contactFields.writableColumns.map(([wire, key]) => [wire, contacts[key]] as const),
};

type ContactRow = Parameters<typeof contactFields.present>[0];

interface References {
  company_id?: number | null;
  lead_id?: number | null;
  status?: number | null;
  email?: string | null;
}

/**
 * The id of the organization's live contact (other than `self`) holding `email`, compared without
 * case: through contact_key_scope, so the unique index contacts_organization_email_key serves it
 * inside the tenant transaction (on the table, row-level security kept lower() a filter over every
 * contact of the organization).
 */
export function contactEmailHolderSql(orgId: number, email: string | null, self: number | null = null): SQL {
  return sql`select ${contactKeyScope.id} from ${contactKeyScope}
    where ${contactKeyScope.organizationId} = ${orgId} and ${contactKeyScope.emailKey} = lower(${email}::text)
      and ${contactKeyScope.id} is distinct from ${self}::bigint
    limit 1`;
}

/** The 409 naming the live contact that holds the email. */
function duplicateContact(email: string, holderId: number): Conflict {
  return new Conflict(`A contact with the email ${email} already exists`, 'duplicate_contact', {
    contact_id: holderId,
    field: 'email',
  });
}

/**
 * The company, lead and status a contact names, and the live contact (other than this one)
 * already holding its email, checked in one statement before anything is written (a failed
 * write would abort the request's transaction; the unique index still settles races).
 */
async function checkReferences(ctx: TenantContext, input: References, self: number | null = null): Promise<void> {
  const refs = { company_id: input.company_id, lead_id: input.lead_id };
  const { found, values } = await readReferences(ctx, refs, {
    status: sql<boolean>`exists (select 1 from ${lookups} where ${tenantWhere(
      ctx,
      lookups,
      eq(lookups.moduleName, LEAD_LOOKUP_MODULE),
      eq(lookups.type, 'status'),
      eq(lookups.isActive, true),
      sql`${lookups.value} = ${input.status ?? null}::int`,
    )})`,
    emailHolder: sql<number | string | null>`(${contactEmailHolderSql(ctx.orgId, input.email ?? null, self)})`,
  });
  // A missing company is a 404 (the contact's parent), before the email's 409 and the 422s.
  const issues = referenceIssues(refs, found, { notFound: ['company_id'] });
  if (input.email && values.emailHolder !== null) throw duplicateContact(input.email, Number(values.emailHolder));
  if (input.status != null && !values.status)
    issues.push({ field: 'status', message: 'is not an active status of this organization' });
  if (issues.length > 0) throw new ValidationFailed(issues);
}

export async function addContact(ctx: TenantContext, input: AddContactInput): Promise<ContactView> {
  await checkReferences(ctx, input);
  const [row] = await insertWithFeed<ContactRow>(
    ctx.db,
    ctx,
    contactRecord,
    ctx.db
      .insert(contacts)
      .values({
        ...(columnValues(contactFields.writableColumns, input) as Partial<typeof contacts.$inferInsert>),
        name: input.name,
        organizationId: ctx.orgId,
        createdBy: ctx.userId,
      })
      // A concurrent add of the same email loses here without aborting the transaction.
      .onConflictDoNothing()
      .returning(contactFields.selection),
  );
  if (!row) {
    await checkReferences(ctx, input);
    throw new Error('contact insert skipped without a conflicting email');
  }
  return contactFields.present(row);
}

export async function readContact(ctx: Pick<TenantContext, 'db' | 'orgId' | 'userId'>, id: number) {
  const [row] = await ctx.db
    .select(contactFields.selection)
    .from(contacts)
    .where(and(contactFilterWhere(ctx, {}), eq(contacts.id, id)));
  if (!row) throw new NotFound('Contact', id);
  return contactFields.present(row);
}

export async function updateContact(ctx: TenantContext, id: number, input: UpdateContactInput): Promise<ContactView> {
  // Two updates giving one email: the second checks after the first committed (db/key-locks.ts).
  if (input.email) await lockOrganizationKeySql(ctx.db, ctx.orgId, 'contact-email', sql`lower(${input.email}::text)`);
  await checkReferences(ctx, input, id);
  // The update with its feed entry (the fields that changed), in one statement.
  const update = (db: Queryable) =>
    updateWithFeed<ContactRow>(db, ctx, contactRecord, {
      where: and(contactFilterWhere(ctx, {}), eq(contacts.id, id)) as SQL,
      set: { ...columnValues(contactFields.writableColumns, input), updatedAt: sql`now()` },
      returning: contactFields.selection,
    });
  const email = input.email;
  // Without a new email the update is the request's last statement: its COMMIT goes with it.
  if (!email) ctx.commitWithNext?.();
  // A concurrent add takes no email lock and may commit the email after the check: the index
  // refuses this update, answered as the check's 409 naming the holder (writeCheckedKey).
  const [row] = email
    ? await writeCheckedKey(ctx.db, ['contacts_organization_email_key'], update, async () => {
        const holder = await ctx.db.execute<{ id: number | string }>(contactEmailHolderSql(ctx.orgId, email, id));
        return holder.rows[0]
          ? duplicateContact(email, Number(holder.rows[0].id))
          : new Error('contact update refused without an email holder');
      })
    : await update(ctx.db);
  if (!row) throw new NotFound('Contact', id);
  return contactFields.present(row);
}

export function contactTargetWhere(ctx: TenantContext, target: ContactTarget): SQL {
  if (target.select_all) return contactFilterWhere(ctx, target.filters ?? {});
  const ids = target.contact_ids ?? target.ids ?? [];
  return and(contactFilterWhere(ctx, {}), sql`${contacts.id} = any(${sql.param(ids)}::bigint[])`) as SQL;
}

/**
 * A condition on the targeted contacts (`where` narrows them) that locks them FOR NO KEY UPDATE in
 * id order before the statement writes them: every multi-contact write (bulk update, delete) locks
 * in one order, so two that share contacts wait, one for the other. Locked in the order each plan
 * read them (a heap scan, an index), two of them could each hold what the other needed: a deadlock,
 * one refused. A locked row is read as last committed, so `where` sees a change made meanwhile.
 */
export function contactTargetLocked(ctx: TenantContext, target: ContactTarget, where: SQL = sql`true`): SQL {
  return sql`${contacts.id} in (select ${contacts.id} from ${contacts}
    where ${contactTargetWhere(ctx, target)} and ${where} order by ${contacts.id} for no key update)`;
}

/** Soft-deletes the targeted contacts in one statement, their `deleted` feed entries with it; answers how many this request deleted. */
export async function deleteContacts(ctx: TenantContext, target: ContactTarget): Promise<number> {
  const result = await ctx.db.execute<{ deleted: number }>(sql`
    with removed as (
      update ${contacts} set deleted_at = now(), updated_at = now()
      where ${contactTargetWhere(ctx, target)} and ${contactTargetLocked(ctx, target)}
      returning ${contacts.id}, ${contacts.name}
    ), feed as (
      ${feedEntriesFrom(ctx, {
        from: sql`removed`,
        modelType: 'contact',
        modelId: sql`removed.id`,
        action: 'deleted',
        changes: sql`jsonb_build_object('name', jsonb_build_object('from', removed.name, 'to', null))`,
      })}
    )
    select count(*)::int as deleted from removed`);
  return Number(result.rows[0]?.deleted ?? 0);
}

export async function deleteContact(ctx: TenantContext, id: number): Promise<{ id: number }> {
  if ((await deleteContacts(ctx, { ids: [id] })) === 0) throw new NotFound('Contact', id);
  return { id };
}

export const contactList = defineList({
  sort: {
    id: contacts.id,
    name: contacts.name,
    email: sql`coalesce(${contacts.email}, '')`,
    lead_score: sql`coalesce(${contacts.leadScore}, -1)`,
    created_at: contacts.createdAt,
    updated_at: contacts.updatedAt,
  },
  filters: contactFilterShape,
  search: (term) => contactSearch(term),
  createdAt: contacts.createdAt,
  // Pages in id order read the organization's own ids (its (organization_id, id desc nulls last) index; migration 0078).
  tenantIdOrder: true,
  // Unfiltered, the total is the organization's live contacts counter (migration 0079).
  counter: 'contacts',
  base: (ctx, params) => ({
    rows: (columns) =>
      ctx.db
        .select({ ...contactFields.selection, ...columns })
        .from(contacts)
        .$dynamic(),
    where: contactFilterWhere(ctx, { ...params, search_value: undefined, start_date: undefined, end_date: undefined }),
  }),
  present: (row) => contactFields.present(row),
});
export const ContactListQuery = contactList.query;

export const listContacts = contactList.run;
