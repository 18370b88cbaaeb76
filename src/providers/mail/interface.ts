/**
 * What the rest of the code may ask of a mail provider: check the account, send one message,
 * list a folder page by page, read one message. Each provider (local.ts, gmail.ts, outlook.ts,
 * smtp.ts) speaks its own wire format behind this; failures are ProviderFailure
 * (providers/failures.ts), never the provider's own text.
 */
import type { Automated } from './automated';
import type { BounceFacts } from './bounces';

/** The mailers a mail configuration may use. */
export const MAILERS = ['gmail', 'outlook', 'smtp', 'local'] as const;
export type Mailer = (typeof MAILERS)[number];

/** Folders every provider maps onto its own (Gmail labels, Graph well-known folders, local direction). */
export const MAIL_FOLDERS = ['inbox', 'sent', 'drafts', 'spam', 'trash'] as const;
export type MailFolder = (typeof MAIL_FOLDERS)[number];

export interface OutgoingMail {
  from: { address: string; name: string | null };
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  text: string;
  html: string;
  /** The Message-ID header, angle brackets included: ours, so replies can be matched. */
  messageId: string;
  inReplyTo: string | null;
  references: string[];
  /** Extra headers (List-Unsubscribe, List-Unsubscribe-Post). */
  headers: Record<string, string>;
  /** Gmail: the thread a reply joins. */
  providerThreadId: string | null;
  /** Graph: the message a reply answers (sent through messages/{id}/reply). */
  replyToProviderMessageId: string | null;
}

export interface SentMail {
  /** The provider's id of the sent message, when it tells (Graph's sendMail answers 202 without one). */
  providerMessageId: string | null;
  providerThreadId: string | null;
}

export interface InboxQuery {
  folder: MailFolder;
  search?: string;
  unreadOnly: boolean;
  /** Messages at or after / before these instants. */
  after?: Date;
  before?: Date;
  limit: number;
  /** The provider's page token from the previous page. */
  pageToken?: string;
}

export interface InboxMessage {
  /** The provider's message id (what GET /api/inbox/view/{messageId} takes). */
  id: string;
  thread_id: string | null;
  /** The Message-ID header. */
  message_id: string | null;
  in_reply_to: string | null;
  references: string[];
  from: { address: string; name: string | null } | null;
  to: string[];
  cc: string[];
  /** The Reply-To addresses: where a reply goes instead of From, when the sender named any. */
  reply_to: string[];
  subject: string;
  snippet: string;
  /** Present when the message was read whole (view), absent in lists. */
  body_text?: string | null;
  body_html?: string | null;
  /** ISO 8601. */
  date: string | null;
  is_read: boolean;
  /** A delivery report (bounce) or an automatic reply (out of office): no person wrote it (automated.ts). */
  automated: Automated | null;
  /** A bounce only: the recipients it reports failed for good, and the Message-ID of ours it returns (bounces.ts). */
  bounce?: BounceFacts;
  /** Our delivery status, for messages we sent through a local mailbox. */
  status?: string;
}

export interface InboxPage {
  messages: InboxMessage[];
  nextPageToken: string | null;
}

export interface MailProvider {
  readonly mailer: Mailer;
  /** One cheap call proving the credential works; answers the account's address. */
  verify(): Promise<{ address: string }>;
  send(mail: OutgoingMail): Promise<SentMail>;
  /**
   * The message of ours with this Message-ID when the mailbox already holds it as sent, else null.
   * Asked before a send is tried again: a provider that failed (5xx, the connection lost) after
   * taking the message may have sent it. Absent where the provider cannot tell (SMTP). The
   * mail-send job tests for it (no list of providers of its own): with it, a delivery that died
   * after claiming a message is settled by asking; without it, that message fails, never resent.
   */
  findSent?(messageId: string): Promise<SentMail | null>;
  list(query: InboxQuery): Promise<InboxPage>;
  view(messageId: string): Promise<InboxMessage>;
}
