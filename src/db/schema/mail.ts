import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { contacts } from './companies';
import { connections } from './connections';
import { leads } from './leads';
import { organizations, users } from './organizations';
import { targetAccounts } from './target-accounts';
import { endedJobsIndex, jobRun, openJobsIndex } from './job-lease';
import { createdAt, id, organizationRef, tenantPolicy, updatedAt } from './tenancy';

/**
 * A batch of messages the mail-send job delivers (src/jobs lifecycle: claim, lease, finish,
 * fail); each message keeps its own delivery status in mail_messages.
 */
export const mailSendJobs = pgTable(
  'mail_send_jobs',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    createdBy: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    ...jobRun(),
  },
  (table) => [
    index('mail_send_jobs_organization_idx').on(table.organizationId, table.id),
    openJobsIndex('mail_send_jobs_open_lease_idx', table),
    endedJobsIndex('mail_send_jobs_ended_idx', table),
    tenantPolicy('mail_send_jobs'),
  ],
);

/**
 * queued → sending → sent | failed for what we send, or suppressed (every recipient went on the
 * suppression list after it was queued: not sent); sent → bounced when a delivery report in the
 * inbox says it failed for good for a recipient (modules/mail/bounces.ts); received for what
 * arrives in a local mailbox.
 */
export const MAIL_STATUSES = ['queued', 'sending', 'sent', 'failed', 'suppressed', 'bounced', 'received'] as const;
export type MailStatus = (typeof MAIL_STATUSES)[number];
/** one_to_one (inbox/send), reply (inbox/reply), bulk (target-account bulk email): bulk and one_to_one carry List-Unsubscribe. */
export const MAIL_KINDS = ['one_to_one', 'reply', 'bulk'] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

/**
 * Every message sent through a mail connection, recorded in the request's transaction (status
 * queued) and delivered by the mail-send job through the outbox; and, for the local provider, the
 * messages that arrive, so its inbox works offline. `rfc_message_id` is the Message-ID header
 * (with its angle brackets); a reply's `in_reply_to`/`references` thread it.
 */
export const mailMessages = pgTable(
  'mail_messages',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    connectionId: bigint({ mode: 'number' })
      .notNull()
      .references(() => connections.id, { onDelete: 'cascade' }),
    direction: text().$type<'outbound' | 'inbound'>().notNull(),
    status: text().$type<MailStatus>().notNull(),
    kind: text().$type<MailKind>().notNull().default('one_to_one'),
    rfcMessageId: text().notNull(),
    inReplyTo: text(),
    references: text().array().notNull().default(sql`'{}'::text[]`),
    providerMessageId: text(),
    providerThreadId: text(),
    /** The provider's id of the message a reply answers (Graph replies through messages/{id}/reply). */
    replyToProviderMessageId: text(),
    fromAddress: text().notNull(),
    fromName: text(),
    toAddresses: text().array().notNull(),
    ccAddresses: text().array().notNull().default(sql`'{}'::text[]`),
    bccAddresses: text().array().notNull().default(sql`'{}'::text[]`),
    subject: text().notNull(),
    bodyText: text().notNull(),
    /** What is sent: the body as HTML with the open pixel and click-rewritten links. */
    bodyHtml: text(),
    /** Extra headers sent (List-Unsubscribe, List-Unsubscribe-Post). */
    headers: text().array().notNull().default(sql`'{}'::text[]`),
    leadId: bigint({ mode: 'number' }).references(() => leads.id, { onDelete: 'set null' }),
    contactId: bigint({ mode: 'number' }).references(() => contacts.id, { onDelete: 'set null' }),
    targetAccountId: bigint({ mode: 'number' }).references(() => targetAccounts.id, { onDelete: 'set null' }),
    /** The mail-send job that delivers it; null once the ended job is deleted (src/jobs/ended-jobs.ts). */
    sendJobId: bigint({ mode: 'number' }).references(() => mailSendJobs.id, { onDelete: 'set null' }),
    /** Recipients left out because they are on the suppression list. */
    suppressed: text().array().notNull().default(sql`'{}'::text[]`),
    isRead: boolean().notNull().default(false),
    attempts: integer().notNull().default(0),
    failureReason: text(),
    createdBy: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    sentAt: timestamp({ withTimezone: true }),
  },
  (table) => [
    // Parent deletes find this table's rows by it (the foreign key's check or cascade): migration 0066.
    index('mail_messages_target_account_idx')
      .on(table.targetAccountId)
      .where(sql`${table.targetAccountId} is not null`),
    index('mail_messages_connection_idx').on(table.organizationId, table.connectionId, table.direction, table.id),
    index('mail_messages_rfc_id_idx').on(table.organizationId, table.rfcMessageId),
    // By the job alone: the job reads its messages by it, and deleting an ended job sets it null.
    index('mail_messages_send_job_idx').on(table.sendJobId).where(sql`${table.sendJobId} is not null`),
    index('mail_messages_thread_idx').on(table.organizationId, table.connectionId, table.providerThreadId),
    uniqueIndex('mail_messages_provider_id_key')
      .on(table.organizationId, table.connectionId, table.providerMessageId)
      .where(sql`${table.providerMessageId} is not null`),
    tenantPolicy('mail_messages'),
  ],
);

/** Addresses the organization never sends to again (unsubscribed, bounced, added by hand). */
export const mailSuppressions = pgTable(
  'mail_suppressions',
  {
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    /** Lower-cased. */
    address: text().notNull(),
    reason: text().notNull(),
    createdAt: createdAt(),
  },
  (table) => [primaryKey({ columns: [table.organizationId, table.address] }), tenantPolicy('mail_suppressions')],
);
