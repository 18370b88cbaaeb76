/**
 * Gmail API (https://gmail.googleapis.com/gmail/v1/users/me/…), with the connection's OAuth
 * access token: `profile` checks the account, `messages/send` sends `raw` (base64url of the RFC
 * 5322 message, built in mime.ts) with the `threadId` a reply joins, `messages` lists a label page
 * by page (pageToken) and `messages/{id}` reads one: metadata for lists, `raw` parsed with
 * postal-mime for a view.
 */
import { expectOk, providerFetch } from '../failures';
import { AUTOMATED_HEADERS, automatedKind } from './automated';
import { bounceFacts } from './bounces';
import { parseMime, rawBase64Url } from './mime';
import type { InboxMessage, InboxPage, InboxQuery, MailFolder, MailProvider, OutgoingMail } from './interface';

export const GMAIL_API = 'https://gmail.googleapis.com/gmail/v1/users/me';

const LABELS: Record<MailFolder, string> = {
  inbox: 'INBOX',
  sent: 'SENT',
  drafts: 'DRAFT',
  spam: 'SPAM',
  trash: 'TRASH',
};

const LIST_HEADERS = [
  'From',
  'To',
  'Cc',
  'Subject',
  'Date',
  'Message-ID',
  'In-Reply-To',
  'References',
  'Reply-To',
  ...AUTOMATED_HEADERS,
];

interface GmailHeader {
  name: string;
  value: string;
}

interface GmailMessage {
  id: string;
  threadId?: string;
  labelIds?: string[];
  snippet?: string;
  internalDate?: string;
  payload?: { headers?: GmailHeader[] };
  raw?: string;
}

function header(message: GmailMessage, name: string): string | undefined {
  return message.payload?.headers?.find((entry) => entry.name.toLowerCase() === name.toLowerCase())?.value;
}

/** "Ada <ada@example.com>" or "ada@example.com" → address and name. */
export function parseAddress(value: string | undefined): { address: string; name: string | null } | null {
  if (!value) return null;
  const match = /^\s*"?([^"<]*?)"?\s*<([^>]+)>\s*$/.exec(value);
  if (match) return { address: match[2].trim(), name: match[1].trim() || null };
  return { address: value.trim(), name: null };
}

function addressList(value: string | undefined): string[] {
  if (!value) return [];
  return value
    .split(',')
    .map((part) => parseAddress(part)?.address ?? '')
    .filter((address) => address.length > 0);
}

function presentMetadata(message: GmailMessage): InboxMessage {
  const date = message.internalDate ? new Date(Number(message.internalDate)).toISOString() : null;
  const from = parseAddress(header(message, 'From'));
  const automated = automatedKind({
    from: from?.address,
    subject: header(message, 'Subject'),
    header: (name) => header(message, name),
  });
  return {
    id: message.id,
    thread_id: message.threadId ?? null,
    message_id: header(message, 'Message-ID') ?? null,
    in_reply_to: header(message, 'In-Reply-To')?.trim() ?? null,
    references: header(message, 'References')?.match(/<[^<>\s]+>/g) ?? [],
    from,
    to: addressList(header(message, 'To')),
    cc: addressList(header(message, 'Cc')),
    reply_to: addressList(header(message, 'Reply-To')),
    subject: header(message, 'Subject') ?? '',
    snippet: message.snippet ?? '',
    date,
    is_read: !(message.labelIds ?? []).includes('UNREAD'),
    automated,
    // The list reads headers only: X-Failed-Recipients names the hard bounces (a view reads the report itself).
    ...(automated === 'bounce' ? { bounce: bounceFacts((name) => header(message, name)) } : {}),
  };
}

/** Gmail's search operators for the query's filters (dates as epoch seconds, which Gmail reads as instants). */
export function gmailQuery(query: InboxQuery): string {
  const terms: string[] = [];
  if (query.search) terms.push(query.search);
  if (query.unreadOnly) terms.push('is:unread');
  if (query.after) terms.push(`after:${Math.floor(query.after.getTime() / 1000)}`);
  if (query.before) terms.push(`before:${Math.floor(query.before.getTime() / 1000)}`);
  return terms.join(' ');
}

export function gmailMailbox(token: () => Promise<string>): MailProvider {
  async function call(path: string, what: string, init: RequestInit = {}): Promise<Response> {
    const response = await providerFetch('gmail', `${GMAIL_API}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${await token()}`, ...(init.headers ?? {}) },
    });
    return expectOk('gmail', response, what);
  }
  return {
    mailer: 'gmail',
    async verify() {
      const profile = (await (await call('/profile', 'profile')).json()) as { emailAddress: string };
      return { address: profile.emailAddress };
    },
    async send(mail: OutgoingMail) {
      const body = { raw: rawBase64Url(mail), ...(mail.providerThreadId ? { threadId: mail.providerThreadId } : {}) };
      const sent = (await (
        await call('/messages/send', 'message', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json()) as GmailMessage;
      return { providerMessageId: sent.id, providerThreadId: sent.threadId ?? null };
    },
    async findSent(messageId: string) {
      const params = new URLSearchParams({
        q: `rfc822msgid:${messageId.replace(/^<|>$/g, '')}`,
        labelIds: 'SENT',
        maxResults: '1',
      });
      const page = (await (await call(`/messages?${params}`, 'message list')).json()) as {
        messages?: { id: string; threadId?: string }[];
      };
      const [found] = page.messages ?? [];
      return found ? { providerMessageId: found.id, providerThreadId: found.threadId ?? null } : null;
    },
    async list(query: InboxQuery): Promise<InboxPage> {
      const params = new URLSearchParams({ maxResults: String(query.limit), labelIds: LABELS[query.folder] });
      const q = gmailQuery(query);
      if (q) params.set('q', q);
      if (query.pageToken) params.set('pageToken', query.pageToken);
      const page = (await (await call(`/messages?${params}`, 'message list')).json()) as {
        messages?: { id: string; threadId: string }[];
        nextPageToken?: string;
      };
      const metadata = new URLSearchParams({ format: 'metadata' });
      for (const name of LIST_HEADERS) metadata.append('metadataHeaders', name);
      const messages = await Promise.all(
        (page.messages ?? []).map(async (entry) =>
          presentMetadata(
            (await (
              await call(`/messages/${encodeURIComponent(entry.id)}?${metadata}`, 'message')
            ).json()) as GmailMessage,
          ),
        ),
      );
      return { messages, nextPageToken: page.nextPageToken ?? null };
    },
    async view(messageId: string) {
      const message = (await (
        await call(`/messages/${encodeURIComponent(messageId)}?format=raw`, 'message')
      ).json()) as GmailMessage;
      const raw = Uint8Array.from(atob((message.raw ?? '').replace(/-/g, '+').replace(/_/g, '/')), (char) =>
        char.charCodeAt(0),
      );
      return parseMime(raw, {
        id: message.id,
        thread_id: message.threadId ?? null,
        is_read: !(message.labelIds ?? []).includes('UNREAD'),
      });
    },
  };
}
