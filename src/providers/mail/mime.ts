/**
 * RFC 5322 messages: built with mimetext (its browser build: no Node APIs) and parsed with
 * postal-mime, never by hand. Bodies travel base64-encoded so any text survives any relay.
 */
import { createMimeMessage } from 'mimetext/browser';
import PostalMime, { type Email } from 'postal-mime';
import { base64url } from 'jose';
import { AUTOMATED_HEADERS, automatedKind, headerLookup } from './automated';
import { bounceFacts } from './bounces';
import type { InboxMessage, OutgoingMail } from './interface';

function utf8Base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * Text for a header (a subject, a display name) on one line: a CR, LF or other control
 * character, or a run of them with the spaces around, becomes one space, so no value can end a
 * header and start another (or the body).
 */
export function headerText(value: string): string {
  return value.replace(/\s*[\p{Cc}\u2028\u2029]+\s*/gu, ' ').trim();
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * An unstructured header value by RFC 2047: printable ASCII as it is; anything else as UTF-8
 * "B" encoded-words of at most 75 characters (45 bytes each, never splitting a character),
 * folded one to a line, so no line of the header comes near RFC 5322's 998.
 */
export function encodeHeaderWords(value: string): string {
  const text = headerText(value);
  if (PRINTABLE_ASCII.test(text)) return text;
  const encoder = new TextEncoder();
  const words: string[] = [];
  let chunk = '';
  for (const char of text) {
    if (chunk && encoder.encode(chunk + char).length > 45) {
      words.push(chunk);
      chunk = '';
    }
    chunk += char;
  }
  if (chunk) words.push(chunk);
  return words.map((word) => `=?UTF-8?B?${utf8Base64(word)}?=`).join('\r\n ');
}

/** `"Name" <address>` (quotes and backslashes escaped; encoded-words when not ASCII), or the bare address. */
export function mailboxHeader(address: string, name: string | null): string {
  const display = name ? headerText(name) : '';
  if (!display) return address;
  if (PRINTABLE_ASCII.test(display)) return `"${display.replace(/["\\]/g, '\\$&')}" <${address}>`;
  return `${encodeHeaderWords(display)} <${address}>`;
}

/** The message as RFC 5322 text (CRLF line ends). */
export function buildMime(mail: OutgoingMail): string {
  const message = createMimeMessage();
  const name = mail.from.name ? headerText(mail.from.name) : '';
  message.setSender(name ? { name, addr: mail.from.address } : mail.from.address);
  message.setTo(mail.to);
  if (mail.cc.length > 0) message.setCc(mail.cc);
  if (mail.bcc.length > 0) message.setBcc(mail.bcc);
  message.setSubject(headerText(mail.subject));
  message.setHeader('Message-ID', mail.messageId);
  if (mail.inReplyTo) message.setHeader('In-Reply-To', mail.inReplyTo);
  if (mail.references.length > 0) message.setHeader('References', mail.references.join(' '));
  for (const [name, value] of Object.entries(mail.headers)) message.setHeader(name, value);
  message.addMessage({ contentType: 'text/plain', encoding: 'base64', data: utf8Base64(mail.text) });
  message.addMessage({ contentType: 'text/html', encoding: 'base64', data: utf8Base64(mail.html) });
  return message.asRaw();
}

/** base64url of the message, as Gmail's messages.send takes it in `raw`. */
export function rawBase64Url(mail: OutgoingMail): string {
  return base64url.encode(new TextEncoder().encode(buildMime(mail)));
}

/** base64 of the message, as Graph's sendMail takes it in MIME form. */
export function rawBase64(mail: OutgoingMail): string {
  return utf8Base64(buildMime(mail));
}

function idList(value: string | undefined): string[] {
  return value ? (value.match(/<[^<>\s]+>/g) ?? []) : [];
}

/** A parsed raw message as an inbox message (id, thread and read state come from the provider). */
export async function parseMime(
  raw: string | ArrayBuffer | Uint8Array,
  known: { id: string; thread_id: string | null; is_read: boolean },
): Promise<InboxMessage> {
  return (await parseMimeWithHeaders(raw, known)).message;
}

/** The text of the message's first part of one of these types (a delivery report's parts), else null. */
function partText(email: Email, types: string[]): string | null {
  const part = email.attachments.find((attachment) => types.includes(attachment.mimeType.toLowerCase()));
  if (!part) return null;
  return typeof part.content === 'string' ? part.content : new TextDecoder().decode(part.content);
}

/**
 * parseMime, and the header lines (`Name: value`) that tell a bounce or an automatic reply
 * (automated.ts), for a mailbox that keeps the message to present it again (the local one).
 */
export async function parseMimeWithHeaders(
  raw: string | ArrayBuffer | Uint8Array,
  known: { id: string; thread_id: string | null; is_read: boolean },
): Promise<{ message: InboxMessage; automatedHeaders: string[] }> {
  const email = await PostalMime.parse(raw);
  const header = headerLookup(email.headers.map((entry) => ({ name: entry.key, value: entry.value })));
  const automated = automatedKind({ from: email.from?.address, subject: email.subject, header });
  const automatedHeaders = AUTOMATED_HEADERS.flatMap((name) => {
    const value = header(name);
    return value === undefined ? [] : [`${name}: ${headerText(value)}`];
  });
  const addresses = (list: typeof email.to) =>
    (list ?? []).flatMap((entry) =>
      'group' in entry && entry.group ? entry.group.map((member) => member.address) : [entry.address ?? ''],
    );
  const text = email.text ?? null;
  const message: InboxMessage = {
    id: known.id,
    thread_id: known.thread_id,
    message_id: email.messageId ?? null,
    in_reply_to: idList(email.inReplyTo)[0] ?? null,
    references: idList(email.references),
    from: email.from?.address ? { address: email.from.address, name: email.from.name || null } : null,
    to: addresses(email.to).filter(Boolean),
    cc: addresses(email.cc).filter(Boolean),
    reply_to: addresses(email.replyTo).filter(Boolean),
    subject: email.subject ?? '',
    snippet: (text ?? '').replace(/\s+/g, ' ').trim().slice(0, 200),
    body_text: text,
    body_html: email.html ?? null,
    date: email.date ? new Date(email.date).toISOString() : null,
    is_read: known.is_read,
    automated,
    // A delivery report (RFC 3464): which recipients failed for good, and the Message-ID of ours it returns.
    ...(automated === 'bounce'
      ? {
          bounce: bounceFacts(header, {
            deliveryStatus: partText(email, ['message/delivery-status', 'message/global-delivery-status']),
            returnedHeaders: partText(email, ['text/rfc822-headers', 'message/rfc822', 'message/global']),
          }),
        }
      : {}),
  };
  return { message, automatedHeaders };
}
