/**
 * POST /api/target-accounts/{id}/send-bulk-email. The request is validated in full (account,
 * recipients: live contacts of the account's company with an email, the stakeholders by default),
 * then needs a mail account to send from: `findMailAccount` answers the caller's own active
 * account, else the organization's oldest active one. Without any, the request is a 422
 * `mail_not_configured` and nothing is recorded or queued.
 *
 * With one, the sends go through the same path as the inbox (modules/mail/compose.ts): one
 * message per recipient (`individual`), each recorded as the recipient contact's outreach
 * activity with the target account, or the recipients in Bcc (`bcc`: each gets a copy of their
 * own, seeing no other recipient, since each carries its own List-Unsubscribe link); each
 * carries List-Unsubscribe, suppressed addresses are skipped and reported, and the mail-send job
 * delivers them through the outbox.
 */
import { asc, eq, isNull, sql } from 'drizzle-orm';
import { companies, connections, contacts, targetAccountContacts, targetAccounts } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { ApiError, NotFound, ValidationFailed } from '../../core/errors';
import type { ConnectionRow } from '../../providers/connections';
import type { ComposeContext } from '../mail';
import { checkMergeFields, mergeForEach, recordSends, splitName } from '../mail';
import type { SendBulkEmailInput } from './schemas';

/** A mailbox the organization sends from: an active mail configuration. */
export type MailAccount = ConnectionRow;

/** The caller's own active mail account, else the organization's oldest active one; null when there is none. */
export async function findMailAccount(ctx: TenantContext): Promise<MailAccount | null> {
  const [account] = await ctx.db
    .select()
    .from(connections)
    .where(
      tenantWhere(
        ctx,
        connections,
        eq(connections.kind, 'mail'),
        eq(connections.state, 'active'),
        isNull(connections.deletedAt),
      ),
    )
    .orderBy(
      sql`(${connections.ownerId} is not distinct from ${ctx.userId}) desc`,
      asc(connections.createdAt),
      asc(connections.id),
    )
    .limit(1);
  return account ?? null;
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
  company_name: string | null;
  recipients: { contact_id: number; email: string; name: string | null; designation: string | null }[];
  refused: number[];
};

/** The recipients, checked in one statement: given ids must be live contacts of the account's company with an email. */
export async function resolveRecipients(ctx: TenantContext, accountId: number, contactIds: number[] | undefined) {
  const chosen = contactIds
    ? sql`select c.id, c.email, c.name, c.designation from ${contacts} c, target where c.organization_id = ${ctx.orgId} and c.id = any(${sql.param(contactIds)}::bigint[])
        and c.company_id = target.company_id and c.deleted_at is null and c.email is not null`
    : sql`select c.id, c.email, c.name, c.designation from ${contacts} c join ${targetAccountContacts} s on s.contact_id = c.id, target
        where s.target_account_id = target.id and c.deleted_at is null and c.email is not null`;
  const result = await ctx.db.execute<Recipients>(sql`
    with target as (
      select t.id, t.company_id, co.company_name from ${targetAccounts} t join ${companies} co on co.id = t.company_id and co.deleted_at is null
      where t.organization_id = ${ctx.orgId} and t.id = ${accountId}
    ), chosen as (${chosen})
    select exists (select 1 from target) as found, (select company_name from target) as company_name,
      (select coalesce(json_agg(json_build_object('contact_id', id, 'email', email, 'name', name, 'designation', designation) order by id), '[]'::json)
        from chosen) as recipients,
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
  return row.recipients.map((recipient) => ({
    contactId: Number(recipient.contact_id),
    email: recipient.email,
    name: recipient.name,
    designation: recipient.designation,
    company: row.company_name,
  }));
}

export async function sendBulkEmail(compose: ComposeContext, accountId: number, input: SendBulkEmailInput) {
  const { ctx } = compose;
  checkMergeFields({ subject: input.subject, body: input.body });
  const recipients = await resolveRecipients(ctx, accountId, input.contact_ids);
  const account = await findMailAccount(ctx);
  if (!account) throw new MailNotConfigured();
  // Each recipient's own subject and body, their merge fields filled (422 before anything is recorded).
  const merged = mergeForEach(
    { subject: input.subject, body: input.body },
    recipients.map((recipient) => ({ ...recipient, id: recipient.contactId })),
    (recipient) => {
      const { first, last } = splitName(recipient.name);
      return {
        first_name: first,
        last_name: last,
        full_name: recipient.name,
        email: recipient.email,
        company: recipient.company,
        job_title: recipient.designation,
        sender_name: account.displayName,
      };
    },
  );
  // bcc: each recipient gets a Bcc copy of their own (compose.ts perRecipientCopies), so each is a
  // draft of its own here, with its own merged text.
  const drafts = recipients.map((recipient, index) => ({
    kind: 'bulk' as const,
    subject: merged[index].subject,
    body: merged[index].body,
    bodyFormat: 'text' as const,
    to: input.mode === 'bcc' ? [] : [recipient.email],
    cc: [],
    bcc: input.mode === 'bcc' ? [recipient.email] : [],
    contactId: input.mode === 'bcc' ? null : recipient.contactId,
    targetAccountId: accountId,
  }));
  const result = await recordSends(compose, account, drafts);
  return { queued: result.messages.length, suppressed: result.suppressed, config_id: account.id };
}
