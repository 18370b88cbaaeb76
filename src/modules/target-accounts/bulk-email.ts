/**
 * POST /api/target-accounts/{id}/send-bulk-email. The request is validated in full (account,
 * recipients: live contacts of the account's company with an email, the stakeholders by default)
 * and then needs a mail account to send from. The system has none yet (the mail issue adds
 * them), so `findMailAccount` answers null and the request is a 422 `mail_not_configured`:
 * nothing is recorded and nothing is queued, so no send is ever pretended.
 *
 * The seam for the mail issue: `findMailAccount` returns the organization's sending account;
 * with one, `sendBulkEmail` records one outreach activity per recipient (or one per bcc email)
 * and enqueues a job message through the outbox (jobs/outbox.ts `enqueueJob`) naming those
 * records, which the mail sender's handler delivers idempotently.
 */
import { sql } from 'drizzle-orm';
import { targetAccounts, companies, contacts, targetAccountContacts } from '../../db/schema';
import type { TenantContext } from '../../db/tenant';
import { ApiError, NotFound, ValidationFailed } from '../../core/errors';
import type { SendBulkEmailInput } from './schemas';

/** A mailbox the organization sends from (the mail issue defines its fields). */
export interface MailAccount {
  id: number;
  fromAddress: string;
}

/** The organization's mail account to send from; none can exist until the mail issue adds them. */
export async function findMailAccount(_ctx: TenantContext): Promise<MailAccount | null> {
  return null;
}

export class MailNotConfigured extends ApiError {
  constructor() {
    super(
      422,
      'validation_error',
      'No mail account is configured for this organization: nothing was sent. Connect a mail account first',
      'mail_not_configured',
    );
  }
}

type Recipients = {
  found: boolean;
  recipients: { contact_id: number; email: string }[];
  refused: number[];
};

/** The recipients, checked in one statement: given ids must be live contacts of the account's company with an email. */
export async function resolveRecipients(ctx: TenantContext, accountId: number, contactIds: number[] | undefined) {
  const chosen = contactIds
    ? sql`select c.id, c.email from ${contacts} c, target where c.organization_id = ${ctx.orgId} and c.id = any(${sql.param(contactIds)}::bigint[])
        and c.company_id = target.company_id and c.deleted_at is null and c.email is not null`
    : sql`select c.id, c.email from ${contacts} c join ${targetAccountContacts} s on s.contact_id = c.id, target
        where s.target_account_id = target.id and c.deleted_at is null and c.email is not null`;
  const result = await ctx.db.execute<Recipients>(sql`
    with target as (
      select t.id, t.company_id from ${targetAccounts} t join ${companies} co on co.id = t.company_id and co.deleted_at is null
      where t.organization_id = ${ctx.orgId} and t.id = ${accountId}
    ), chosen as (${chosen})
    select exists (select 1 from target) as found,
      (select coalesce(json_agg(json_build_object('contact_id', id, 'email', email) order by id), '[]'::json) from chosen) as recipients,
      (select coalesce(json_agg(wanted order by wanted), '[]'::json)
        from unnest(${sql.param(contactIds ?? [])}::bigint[]) as wanted where wanted not in (select id from chosen)) as refused`);
  const row = result.rows[0];
  if (!row.found) throw new NotFound('Target account', accountId);
  if (row.refused.length > 0)
    throw ValidationFailed.field(
      'contact_ids',
      `not live contacts of the account’s company with an email: ${row.refused.map(Number).join(', ')}`,
    );
  if (row.recipients.length === 0)
    throw ValidationFailed.field('contact_ids', 'the account has no stakeholder with an email: give contact_ids');
  return row.recipients.map((recipient) => ({ contactId: Number(recipient.contact_id), email: recipient.email }));
}

export async function sendBulkEmail(ctx: TenantContext, accountId: number, input: SendBulkEmailInput) {
  await resolveRecipients(ctx, accountId, input.contact_ids);
  const account = await findMailAccount(ctx);
  if (!account) throw new MailNotConfigured();
  // Unreachable until the mail issue: it records the outreach activities and enqueues the send here.
  throw new Error(`sending from mail account ${account.id} is the mail issue's to build`);
}
