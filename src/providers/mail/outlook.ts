/**
 * Microsoft Graph (https://graph.microsoft.com/v1.0/me/…), with the connection's OAuth access
 * token: `/me` checks the account; `sendMail` takes the RFC 5322 message in MIME form (base64,
 * `Content-Type: text/plain`) so our Message-ID and List-Unsubscribe headers go out as built, and
 * answers 202 with no body; a reply goes through `messages/{id}/reply`, which threads it in the
 * conversation; `mailFolders/{folder}/messages` lists with `$top` and pages by `@odata.nextLink`,
 * which is followed only while it stays on graph.microsoft.com (it carries our token).
 *
 * Bounces: Graph's JSON of a non-delivery report carries neither its report part nor, from
 * Exchange's own transport, an X-Failed-Recipients header. Exchange files such a report with the
 * message class REPORT.IPM.Note.NDR (PidTagMessageClass, read with the list as the extended
 * property `String 0x001A`), and its MIME (`messages/{id}/$value`) is written by Exchange's MIME
 * writer as an RFC 3464 report: a `message/delivery-status` part with each recipient's
 * Final-Recipient, Action and Status ([MS-OXCMAIL] "Delivery Status Notifications"). So an NDR is
 * a bounce by its class, and its MIME is read for which recipients failed for good, as Gmail's
 * raw message is on a view (at most NDR_READS_PER_PAGE a list page, one by one: Outlook allows
 * four concurrent requests a mailbox).
 */
import { expectOk, failureOf, ProviderFailure, providerFetch } from '../failures';
import { type Automated, automatedKind, headerLookup } from './automated';
import { bounceFacts, type BounceFacts, SenderRefused } from './bounces';
import { parseMime, rawBase64 } from './mime';
import type { InboxMessage, InboxPage, InboxQuery, MailFolder, MailProvider, OutgoingMail } from './interface';

export const GRAPH_API = 'https://graph.microsoft.com/v1.0';

const FOLDERS: Record<MailFolder, string> = {
  inbox: 'inbox',
  sent: 'sentitems',
  drafts: 'drafts',
  spam: 'junkemail',
  trash: 'deleteditems',
};

// internetMessageHeaders carry In-Reply-To and References: how a reply to our mail is known on a list.
const SELECT =
  'id,conversationId,internetMessageId,subject,bodyPreview,from,toRecipients,ccRecipients,replyTo,receivedDateTime,isRead,internetMessageHeaders';
/** PidTagMessageClass ([MS-OXPROPS]: PtypString 0x001A), read as an extended property: how a report is told. */
const MESSAGE_CLASS = 'String 0x001A';
const EXPAND = `singleValueExtendedProperties($filter=id eq '${MESSAGE_CLASS}')`;
/** A non-delivery report's class: REPORT.<the class of the message it returns>.NDR (REPORT.IPM.Note.NDR). */
const NDR_CLASS = /^REPORT\..+\.NDR$/i;
/**
 * Delivery, relay and delay reports (`.DR`, `.Relayed.DR`, `.Delayed.DR`: bounces, never hard) and
 * read receipts (`.IPNRN`, `.IPNNRN`: automatic replies), by [MS-OXCMAIL] 2.2.3.7.1.1.
 */
const OTHER_REPORT_CLASS = /^REPORT\..+\.(DR|IPNRN|IPNNRN)$/i;
/** Non-delivery reports whose MIME a list page reads; any further one is read when it is viewed. */
export const NDR_READS_PER_PAGE = 5;

interface GraphRecipient {
  emailAddress?: { address?: string; name?: string };
}

interface GraphMessage {
  id: string;
  conversationId?: string;
  internetMessageId?: string;
  subject?: string;
  bodyPreview?: string;
  body?: { contentType?: string; content?: string };
  from?: GraphRecipient;
  toRecipients?: GraphRecipient[];
  ccRecipients?: GraphRecipient[];
  replyTo?: GraphRecipient[];
  receivedDateTime?: string;
  isRead?: boolean;
  internetMessageHeaders?: { name: string; value: string }[];
  singleValueExtendedProperties?: { id: string; value: string }[];
}

/** Its PidTagMessageClass, when the list or view expanded it (Graph answers the id as `String 0x1a`). */
function messageClass(message: GraphMessage): string | null {
  const property = message.singleValueExtendedProperties?.find(
    (entry) => entry.id.toLowerCase().replace(/0x0*/, '0x') === 'string 0x1a',
  );
  return property?.value ?? null;
}

function isNonDeliveryReport(message: GraphMessage): boolean {
  return NDR_CLASS.test(messageClass(message) ?? '');
}

/** A report by its class: a non-delivery, delivery or delay report is a bounce, a read receipt an automatic reply. */
function reportKind(messageClass: string): Automated | null {
  if (NDR_CLASS.test(messageClass)) return 'bounce';
  const kind = OTHER_REPORT_CLASS.exec(messageClass)?.[1]?.toUpperCase();
  if (!kind) return null;
  return kind.startsWith('IPN') ? 'auto_reply' : 'bounce';
}

/** `report`: what the report's MIME says (read for a non-delivery report), else its headers decide. */
function present(message: GraphMessage, whole: boolean, report?: BounceFacts): InboxMessage {
  const headerOf = headerLookup(message.internetMessageHeaders ?? []);
  const html = message.body?.contentType?.toLowerCase() === 'html' ? (message.body.content ?? null) : null;
  const text = message.body?.contentType?.toLowerCase() === 'text' ? (message.body.content ?? null) : null;
  const automated =
    reportKind(messageClass(message) ?? '') ??
    automatedKind({ from: message.from?.emailAddress?.address, subject: message.subject, header: headerOf });
  return {
    id: message.id,
    thread_id: message.conversationId ?? null,
    message_id: message.internetMessageId ?? null,
    in_reply_to: headerOf('In-Reply-To')?.trim() ?? null,
    references: headerOf('References')?.match(/<[^<>\s]+>/g) ?? [],
    from: message.from?.emailAddress?.address
      ? { address: message.from.emailAddress.address, name: message.from.emailAddress.name || null }
      : null,
    to: (message.toRecipients ?? []).map((entry) => entry.emailAddress?.address ?? '').filter(Boolean),
    cc: (message.ccRecipients ?? []).map((entry) => entry.emailAddress?.address ?? '').filter(Boolean),
    reply_to: (message.replyTo ?? []).map((entry) => entry.emailAddress?.address ?? '').filter(Boolean),
    subject: message.subject ?? '',
    snippet: message.bodyPreview ?? '',
    ...(whole ? { body_text: text, body_html: html } : {}),
    date: message.receivedDateTime ?? null,
    is_read: message.isRead ?? false,
    automated,
    ...(automated === 'bounce' ? { bounce: report ?? bounceFacts(headerOf) } : {}),
  };
}

/** A day for KQL's `received` (the date of the instant, UTC). */
function kqlDay(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}

/**
 * The list's URL: the filters as `$filter`, or, with a search, in the `$search` itself (Graph
 * cannot combine `$search` with `$filter` on messages): the days as KQL `received` restrictions.
 * KQL has no read state: with a search, unreadOnly is applied to the page (graphList), which may
 * then hold fewer than `$top`; `next_cursor` still leads on.
 */
export function graphListUrl(query: InboxQuery): string {
  const params = new URLSearchParams({ $top: String(query.limit), $select: SELECT, $expand: EXPAND });
  if (query.search) {
    const terms = [query.search.replace(/"/g, '')];
    if (query.after) terms.push(`received>=${kqlDay(query.after)}`);
    if (query.before) terms.push(`received<${kqlDay(query.before)}`);
    params.set('$search', `"${terms.join(' AND ')}"`);
  } else {
    const filters: string[] = [];
    if (query.unreadOnly) filters.push('isRead eq false');
    if (query.after) filters.push(`receivedDateTime ge ${query.after.toISOString()}`);
    if (query.before) filters.push(`receivedDateTime lt ${query.before.toISOString()}`);
    if (filters.length > 0) params.set('$filter', filters.join(' and '));
    params.set('$orderby', 'receivedDateTime desc');
  }
  return `${GRAPH_API}/me/mailFolders/${FOLDERS[query.folder]}/messages?${params}`;
}

/** A nextLink we may follow with the token: Graph's own host, over https. */
export function isGraphLink(link: string): boolean {
  try {
    const url = new URL(link);
    return url.protocol === 'https:' && url.host === 'graph.microsoft.com';
  } catch {
    return false;
  }
}

/**
 * Graph's error codes for a send refused because the account may not send as the message's From
 * (a 403 whose token is fine: `{"error":{"code":"ErrorSendAsDenied","message":"The user account
 * which was used to submit this request does not have the right to send mail on behalf of the
 * specified sending account., Cannot submit message."}}`, Exchange's SendAsDenied behind sendMail).
 */
const SEND_AS_DENIED = new Set(['ErrorSendAsDenied']);

/**
 * The `error.code` of a Graph error answer (an identifier Graph documents, never its message, which
 * is not kept), read from a copy, at most 4 KB; null when it has none.
 */
async function graphErrorCode(response: Response): Promise<string | null> {
  try {
    const text = await response.clone().text();
    if (text.length > 4096) return null;
    const code = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
    return typeof code === 'string' && /^\w{1,64}$/.test(code) ? code : null;
  } catch {
    return null;
  }
}

export function outlookMailbox(token: () => Promise<string>): MailProvider {
  async function call(url: string, what: string, init: RequestInit = {}): Promise<Response> {
    const response = await providerFetch('outlook', url, {
      ...init,
      headers: { authorization: `Bearer ${await token()}`, ...(init.headers ?? {}) },
    });
    return expectOk('outlook', response, what);
  }
  /**
   * A send: a 403 ErrorSendAsDenied refuses the sender (SenderRefused), not the token; any other
   * failure as every call's.
   */
  async function sendCall(url: string, what: string, from: string, init: RequestInit): Promise<void> {
    const response = await providerFetch('outlook', url, {
      ...init,
      headers: { authorization: `Bearer ${await token()}`, ...(init.headers ?? {}) },
    });
    if (response.ok) return void (await response.body?.cancel().catch(() => undefined));
    const code = response.status === 403 ? await graphErrorCode(response) : null;
    const failure = await failureOf('outlook', response, what);
    if (code && SEND_AS_DENIED.has(code)) throw new SenderRefused('outlook', from, 403, code);
    throw failure;
  }
  /**
   * What a non-delivery report's MIME says (its delivery-status part, its returned headers); null
   * when it cannot be read now (the headers decide then, and a later list or view reads it again).
   * Refused credentials are not swallowed: the account needs reconnecting whatever it reads.
   */
  async function reportOf(message: GraphMessage): Promise<BounceFacts | null> {
    try {
      const mime = await call(`${GRAPH_API}/me/messages/${encodeURIComponent(message.id)}/$value`, 'message');
      const parsed = await parseMime(new Uint8Array(await mime.arrayBuffer()), {
        id: message.id,
        thread_id: null,
        is_read: false,
      });
      return parsed.bounce ?? null;
    } catch (error) {
      if (error instanceof ProviderFailure && error.kind === 'auth') throw error;
      return null;
    }
  }
  /** Each message presented, the first NDR_READS_PER_PAGE non-delivery reports by their MIME (one at a time). */
  async function presentAll(messages: GraphMessage[], whole: boolean): Promise<InboxMessage[]> {
    const presented: InboxMessage[] = [];
    let reads = 0;
    for (const message of messages) {
      const report = isNonDeliveryReport(message) && reads++ < NDR_READS_PER_PAGE ? await reportOf(message) : null;
      presented.push(present(message, whole, report ?? undefined));
    }
    return presented;
  }
  return {
    mailer: 'outlook',
    async verify() {
      const me = (await (await call(`${GRAPH_API}/me`, 'profile')).json()) as {
        mail?: string | null;
        userPrincipalName?: string;
      };
      return { address: me.mail ?? me.userPrincipalName ?? '' };
    },
    async send(mail: OutgoingMail) {
      if (mail.replyToProviderMessageId) {
        await sendCall(
          `${GRAPH_API}/me/messages/${encodeURIComponent(mail.replyToProviderMessageId)}/reply`,
          'reply',
          mail.from.address,
          {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ message: { body: { contentType: 'HTML', content: mail.html } } }),
          },
        );
      } else {
        await sendCall(`${GRAPH_API}/me/sendMail`, 'message', mail.from.address, {
          method: 'POST',
          headers: { 'content-type': 'text/plain' },
          body: rawBase64(mail),
        });
      }
      // 202 Accepted, no body: Graph names no id for what it sent.
      return { providerMessageId: null, providerThreadId: null };
    },
    async findSent(messageId: string) {
      const params = new URLSearchParams({
        $filter: `internetMessageId eq '${messageId.replace(/'/g, "''")}'`,
        $select: 'id,conversationId',
        $top: '1',
      });
      const page = (await (
        await call(`${GRAPH_API}/me/mailFolders/sentitems/messages?${params}`, 'message list')
      ).json()) as { value?: GraphMessage[] };
      const [found] = page.value ?? [];
      return found ? { providerMessageId: found.id, providerThreadId: found.conversationId ?? null } : null;
    },
    async list(query: InboxQuery): Promise<InboxPage> {
      if (query.pageToken && !isGraphLink(query.pageToken)) {
        throw new ProviderFailure('rejected', 'outlook', 400, 'outlook page cursor is not a Microsoft Graph link');
      }
      const url = query.pageToken ?? graphListUrl(query);
      const page = (await (await call(url, 'message list')).json()) as {
        value?: GraphMessage[];
        '@odata.nextLink'?: string;
      };
      // A search's page carries read messages too (graphListUrl): unreadOnly is applied here.
      const searched = !!query.search || /[?&](\$|%24)search=/i.test(query.pageToken ?? '');
      const unreadOnly = query.unreadOnly && searched;
      return {
        messages: await presentAll(
          (page.value ?? []).filter((message) => !unreadOnly || message.isRead === false),
          false,
        ),
        nextPageToken: page['@odata.nextLink'] ?? null,
      };
    },
    async view(messageId: string) {
      const params = new URLSearchParams({ $select: `${SELECT},body`, $expand: EXPAND });
      const message = (await (
        await call(`${GRAPH_API}/me/messages/${encodeURIComponent(messageId)}?${params}`, 'message')
      ).json()) as GraphMessage;
      const [presented] = await presentAll([message], true);
      return presented;
    },
  };
}
