/**
 * The local mailbox: offline and deterministic, the default under `npm start` and the tests. What
 * it sends is the mail_messages row the send recorded (folder `sent`); what arrives is a row put
 * there by the local inbound route (folder `inbox`). Nothing leaves the machine. Message ids are
 * the rows' ids; a thread is named by its first message's Message-ID. Like Gmail and Graph it can
 * be asked whether it holds a message as sent (findSent): every recorded outbound row is.
 */
import { and, desc, eq, ilike, lt, or, sql, type SQL } from 'drizzle-orm';
import { containsPattern } from '../../core/list';
import type { Queryable } from '../../db/client';
import { mailMessages } from '../../db/schema';
import type { ConnectionRow } from '../connections';
import { ProviderFailure } from '../failures';
import { automatedKind, headerLookup } from './automated';
import { bounceFacts, failedRecipientsHeader, type BounceFacts } from './bounces';
import type { InboxMessage, InboxPage, InboxQuery, MailProvider, OutgoingMail } from './interface';

type MessageRow = typeof mailMessages.$inferSelect;

/** The thread a message belongs to: the first Message-ID of its references, else its own. */
export function threadOf(mail: Pick<OutgoingMail, 'messageId' | 'inReplyTo' | 'references'>): string {
  return mail.references[0] ?? mail.inReplyTo ?? mail.messageId;
}

/** The local mailbox keeps what a bounce's report said in lines of its own (it stores no body parts). */
const HARD_BOUNCED = 'X-Local-Hard-Bounced';
const BOUNCED_MESSAGE_ID = 'X-Local-Bounced-Message-ID';

export function localBounceHeaders(bounce: BounceFacts): string[] {
  return [
    `${HARD_BOUNCED}: ${bounce.hard_bounced.join(', ')}`,
    ...(bounce.original_message_id ? [`${BOUNCED_MESSAGE_ID}: ${bounce.original_message_id}`] : []),
  ];
}

function storedBounce(header: (name: string) => string | undefined): BounceFacts {
  const hard = header(HARD_BOUNCED);
  if (hard === undefined) return bounceFacts(header);
  return { hard_bounced: failedRecipientsHeader(hard), original_message_id: header(BOUNCED_MESSAGE_ID) ?? null };
}

export function presentLocalMessage(row: MessageRow, whole: boolean): InboxMessage {
  // An arrival keeps the headers that tell a bounce or an automatic reply, and its Reply-To (local-inbound.ts).
  const header = headerLookup(
    row.headers.map((line) => ({
      name: line.slice(0, line.indexOf(':')),
      value: line.slice(line.indexOf(':') + 1).trim(),
    })),
  );
  const replyTo = row.direction === 'inbound' ? header('Reply-To') : undefined;
  const automated =
    row.direction === 'inbound' ? automatedKind({ from: row.fromAddress, subject: row.subject, header }) : null;
  return {
    id: String(row.id),
    thread_id: row.providerThreadId,
    message_id: row.rfcMessageId,
    in_reply_to: row.inReplyTo,
    references: row.references,
    from: { address: row.fromAddress, name: row.fromName },
    to: row.toAddresses,
    cc: row.ccAddresses,
    reply_to: replyTo
      ? replyTo
          .split(',')
          .map((address) => address.trim())
          .filter(Boolean)
      : [],
    subject: row.subject,
    snippet: row.bodyText.replace(/\s+/g, ' ').trim().slice(0, 200),
    ...(whole ? { body_text: row.bodyText, body_html: row.bodyHtml } : {}),
    date: (row.sentAt ?? row.createdAt).toISOString(),
    is_read: row.direction === 'outbound' || row.isRead,
    automated,
    ...(automated === 'bounce' ? { bounce: storedBounce(header) } : {}),
    status: row.status,
  };
}

export function localMailbox(db: Queryable, connection: ConnectionRow): MailProvider {
  const scope = (...conditions: (SQL | undefined)[]) =>
    and(
      eq(mailMessages.organizationId, connection.organizationId),
      eq(mailMessages.connectionId, connection.id),
      ...conditions,
    );
  return {
    mailer: 'local',
    async verify() {
      return { address: connection.identity };
    },
    async send(mail) {
      // The recorded row is the sent message; the local mailbox only names it.
      return { providerMessageId: mail.messageId, providerThreadId: threadOf(mail) };
    },
    async findSent(messageId: string) {
      // Its sent folder is the recorded rows: a message sent from it is there once recorded.
      const [row] = await db
        .select({
          messageId: mailMessages.rfcMessageId,
          inReplyTo: mailMessages.inReplyTo,
          references: mailMessages.references,
        })
        .from(mailMessages)
        .where(scope(eq(mailMessages.direction, 'outbound'), eq(mailMessages.rfcMessageId, messageId)))
        .limit(1);
      return row ? { providerMessageId: row.messageId, providerThreadId: threadOf(row) } : null;
    },
    async list(query: InboxQuery): Promise<InboxPage> {
      if (query.folder !== 'inbox' && query.folder !== 'sent') return { messages: [], nextPageToken: null };
      const at = sql`coalesce(${mailMessages.sentAt}, ${mailMessages.createdAt})`;
      const before = query.pageToken && /^\d{1,18}$/.test(query.pageToken) ? Number(query.pageToken) : undefined;
      const rows = await db
        .select()
        .from(mailMessages)
        .where(
          scope(
            eq(mailMessages.direction, query.folder === 'inbox' ? 'inbound' : 'outbound'),
            query.unreadOnly ? and(eq(mailMessages.isRead, false), eq(mailMessages.direction, 'inbound')) : undefined,
            query.search
              ? or(
                  ilike(mailMessages.subject, containsPattern(query.search)),
                  ilike(mailMessages.bodyText, containsPattern(query.search)),
                  ilike(mailMessages.fromAddress, containsPattern(query.search)),
                )
              : undefined,
            query.after ? sql`${at} >= ${query.after}` : undefined,
            query.before ? sql`${at} < ${query.before}` : undefined,
            before ? lt(mailMessages.id, before) : undefined,
          ),
        )
        .orderBy(desc(mailMessages.id))
        .limit(query.limit + 1);
      const page = rows.slice(0, query.limit);
      return {
        messages: page.map((row) => presentLocalMessage(row, false)),
        nextPageToken: rows.length > query.limit ? String(page[page.length - 1].id) : null,
      };
    },
    async view(messageId: string) {
      const id = /^\d{1,18}$/.test(messageId) ? Number(messageId) : null;
      const [row] = id
        ? await db
            .select()
            .from(mailMessages)
            .where(scope(eq(mailMessages.id, id)))
        : [];
      if (!row) throw new ProviderFailure('not_found', 'local', 404, 'local mailbox has no such message');
      return presentLocalMessage(row, true);
    },
  };
}
