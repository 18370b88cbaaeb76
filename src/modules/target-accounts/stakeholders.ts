/**
 * Stakeholders of a target account: contacts of the account's company in its buying group.
 * Adding a contact already there is idempotent: it answers the existing record (200), with its
 * role replaced when a role is given; a new one answers 201.
 */
import { sql } from 'drizzle-orm';
import { targetAccountContacts, targetAccounts, contacts, companies } from '../../db/schema';
import type { TenantContext } from '../../db/tenant';
import { NotFound, ValidationFailed } from '../../core/errors';
import { isoTimestamp } from '../../core/schemas';
import type { AddStakeholderInput, STAKEHOLDER_ROLES } from './schemas';

export type StakeholderRow = {
  id: number | string;
  target_account_id: number | string;
  contact_id: number | string;
  contact_name: string;
  contact_email: string | null;
  designation: string | null;
  stakeholder_role: (typeof STAKEHOLDER_ROLES)[number] | null;
  created_at: string | Date;
  updated_at: string | Date;
};

export function presentStakeholder(row: StakeholderRow) {
  return {
    ...row,
    id: Number(row.id),
    target_account_id: Number(row.target_account_id),
    contact_id: Number(row.contact_id),
    created_at: isoTimestamp(row.created_at) as string,
    updated_at: isoTimestamp(row.updated_at) as string,
  };
}

/** The account's stakeholders as a JSON array (oldest first), for the select of one account. */
export const stakeholdersOf = sql<StakeholderRow[]>`(select coalesce(json_agg(json_build_object(
    'id', s.id, 'target_account_id', s.target_account_id, 'contact_id', s.contact_id, 'contact_name', c.name,
    'contact_email', c.email, 'designation', c.designation, 'stakeholder_role', s.stakeholder_role,
    'created_at', s.created_at, 'updated_at', s.updated_at) order by s.id), '[]'::json)
  from ${targetAccountContacts} s join ${contacts} c on c.id = s.contact_id
  where s.target_account_id = ${targetAccounts.id})`;

/**
 * The account (404 unless a live account of the organization) and whether the contact is a live
 * contact of its company (else 422 naming `field`), in one statement.
 */
export async function checkAccountContact(ctx: TenantContext, accountId: number, contactId: number, field: string) {
  const result = await ctx.db.execute<{ company_id: number | string; contact_ok: boolean }>(sql`
    select t.company_id, exists (
      select 1 from ${contacts} c where c.organization_id = ${ctx.orgId} and c.id = ${contactId}
        and c.company_id = t.company_id and c.deleted_at is null) as contact_ok
    from ${targetAccounts} t join ${companies} co on co.id = t.company_id and co.deleted_at is null
    where t.organization_id = ${ctx.orgId} and t.id = ${accountId}`);
  const row = result.rows[0];
  if (!row) throw new NotFound('Target account', accountId);
  if (!row.contact_ok)
    throw ValidationFailed.field(field, `contact ${contactId} is not a contact of the account’s company`);
}

export async function addStakeholder(ctx: TenantContext, accountId: number, input: AddStakeholderInput) {
  await checkAccountContact(ctx, accountId, input.contact_id, 'contact_id');
  const role = input.stakeholder_role ?? null;
  // xmax = 0 only on a row this statement inserted: how a new stakeholder (201) is told from an existing one (200).
  const result = await ctx.db.execute<StakeholderRow & { inserted: boolean }>(sql`
    with saved as (
      insert into ${targetAccountContacts} as s (organization_id, target_account_id, contact_id, stakeholder_role, created_by)
      values (${ctx.orgId}, ${accountId}, ${input.contact_id}, ${role}, ${ctx.userId})
      on conflict (target_account_id, contact_id) do update
        set stakeholder_role = coalesce(excluded.stakeholder_role, s.stakeholder_role),
          updated_at = case when excluded.stakeholder_role is null then s.updated_at else now() end
      returning s.*, (xmax = 0) as inserted
    )
    select saved.id, saved.target_account_id, saved.contact_id, c.name as contact_name, c.email as contact_email,
      c.designation, saved.stakeholder_role, saved.created_at, saved.updated_at, saved.inserted
    from saved join ${contacts} c on c.id = saved.contact_id`);
  const { inserted, ...row } = result.rows[0];
  return { stakeholder: presentStakeholder(row), inserted: inserted === true };
}
