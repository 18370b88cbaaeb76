/**
 * Microsoft Graph (https://graph.microsoft.com/v1.0/me/…), with the connection's OAuth access
 * token: `/me` checks the account; `sendMail` takes the RFC 5322 message in MIME form (base64,
 * `Content-Type: text/plain`) so our Message-ID and List-Unsubscribe headers go out as built, and
 * answers 202 with no body; a reply goes through `messages/{id}/reply`, which threads it in the
 * conversation; `mailFolders/{folder}/messages` lists with `$top` and pages by `@odata.nextLink`,
 * which is followed only while it stays on graph.microsoft.com (it carries our token).
 */
import { expectOk, ProviderFailure, providerFetch } from '../failures';
import { automatedKind, headerLookup } from './automated';
import { bounceFacts } from './bounces';
import { rawBase64 } from './mime';
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
}

function present(message: GraphMessage, whole: boolean): InboxMessage {
  const headerOf = headerLookup(message.internetMessageHeaders ?? []);
  const html = message.body?.contentType?.toLowerCase() === 'html' ? (message.body.content ?? null) : null;
  const text = message.body?.contentType?.toLowerCase() === 'text' ? (message.body.content ?? null) : null;
  const automated = automatedKind({
    from: message.from?.emailAddress?.address,
    subject: message.subject,
    header: headerOf,
  });
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
    ...(automated === 'bounce' ? { bounce: bounceFacts(headerOf) } : {}),
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
  const params = new URLSearchParams({ $top: String(query.limit), $select: SELECT });
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

export function outlookMailbox(token: () => Promise<string>): MailProvider {
  async function call(url: string, what: string, init: RequestInit = {}): Promise<Response> {
    const response = await providerFetch('outlook', url, {
      ...init,
      headers: { authorization: `Bearer ${await token()}`, ...(init.headers ?? {}) },
    });
    return expectOk('outlook', response, what);
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
        await call(`${GRAPH_API}/me/messages/${encodeURIComponent(mail.replyToProviderMessageId)}/reply`, 'reply', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ message: { body: { contentType: 'HTML', content: mail.html } } }),
        });
      } else {
        await call(`${GRAPH_API}/me/sendMail`, 'message', {
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
        messages: (page.value ?? [])
          .filter((message) => !unreadOnly || message.isRead === false)
          .map((message) => present(message, false)),
        nextPageToken: page['@odata.nextLink'] ?? null,
      };
    },
    async view(messageId: string) {
      const params = new URLSearchParams({ $select: `${SELECT},body` });
      const message = (await (
        await call(`${GRAPH_API}/me/messages/${encodeURIComponent(messageId)}?${params}`, 'message')
      ).json()) as GraphMessage;
      return present(message, true);
    },
  };
}
