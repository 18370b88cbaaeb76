/**
 * Hard bounces: which recipients a delivery failure says can never be delivered to, so they go on
 * the organization's suppression list (modules/mail/bounces.ts, the mail-send job). Two sources:
 *   - the relay refusing a recipient while we send (SMTP `RCPT TO` answered 5xx): RecipientsRefused;
 *   - a delivery report arriving in the inbox (RFC 3464 `message/delivery-status`, one block per
 *     recipient with `Action`, `Status` and `Diagnostic-Code`; else Exim's and Gmail's
 *     `X-Failed-Recipients`).
 * Only a permanent failure of the address itself is hard (bounceClass, the table in
 * docs/domains/mail.md "Hard bounces"); a full mailbox, a message too big, a content or policy
 * refusal (SendGrid's "blocks", SES's transient MailboxFull / MessageTooLarge / ContentRejected,
 * Postmark's soft bounces) is about the message or the sender, not the address: suppressing it
 * would lose every good address the day the sending domain is blocklisted.
 */
import { ProviderFailure } from '../failures';

const ADDRESS = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+$/;

/**
 * RFC 3463 subject 1 (addressing) details that are not a failure of the recipient's address:
 * 5.1.5 "destination address valid", 5.1.7 and 5.1.8 the sender's address, 5.1.9 "relayed to a
 * non-compliant mailer" (RFC 3886); Exchange Online's 5.1.20 ("Multiple From addresses are not
 * allowed without Sender address": our message's From) and 5.1.90 ("you've reached your daily
 * limit for message recipients": the sending account's limit) are the sender's too (Microsoft,
 * "Email non-delivery reports and SMTP errors in Exchange Online"). Every other 5.1.x is the
 * recipient's address: 5.1.1 no such mailbox, 5.1.2 no such domain, 5.1.3 bad syntax, 5.1.4
 * ambiguous, 5.1.6 moved, 5.1.10 null MX (RFC 7505) and Exchange Online's "recipient not found";
 * 5.1.0 as SENDER_WORDS says.
 */
const NOT_THE_RECIPIENT = new Set(['5', '7', '8', '9', '20', '90']);

/**
 * Words that put a failure on the sender (our account, its domain), not on the recipient's
 * address. 5.1.0 is RFC 3463's "other address status", which does not say whose address: Exchange
 * Online writes `550 5.1.0 Sender denied` when the destination "won't accept messages from you
 * (the sender)" (a recipient's block list, the sending domain's SPF: its diagnostic reads
 * "Recipient address rejected: SPF Permanent Error"), so a 5.1.0 (or a bare 550/551/553) naming
 * the sender or a policy is soft, and any other 5.1.0 is the recipient's address, hard. Before
 * 2026-12-02 every 5.1.0 was hard: a sender refused by one recipient's server suppressed a good
 * recipient address for good.
 */
const SENDER_WORDS = /\b(sender|mail from)\b/i;

/**
 * Exchange's own words for a recipient that does not exist, whatever status it wrote beside them:
 * its resolver (`RESOLVER.ADR.RecipNotFound`, `ExRecipNotFound`, `RecipientNotFound`) and Exchange
 * Online's directory-based edge blocking (`550 5.4.1 Recipient address rejected: Access denied.
 * AS(201806281)`, where 5.4.1 would otherwise read "no answer from host").
 */
const EXCHANGE_NOT_FOUND =
  /\bRESOLVER\.ADR\.(Ex)?Recip(ient)?NotFound\b|\bRecipient address rejected: Access denied\. AS\(201806281\)/i;

/** A reply's words that make a bare 550/551/553 a refusal of the sender or the message, not of the address. */
const POLICY_WORDS =
  /\b(spam|blocked|block ?list|black ?list|deny ?list|policy|reputation|rate limit|too many|spf|dkim|dmarc|relay(ing)? (access )?denied|not permitted|authenticat\w*|virus|content)\b/i;

const ENHANCED = /(?:^|[\s;(])([245])\.(\d{1,3})\.(\d{1,3})(?=$|[\s;,).])/;

/**
 * Whether a failure says the address can never be delivered to (`hard`) or not (`soft`). `basic`
 * is the reply code (550), `enhanced` the RFC 3463 code (5.1.1) of the report's Status or the
 * reply, `text` the rest of what the server said (a report's Diagnostic-Code, the SMTP reply).
 *   - a transient class (4xx, 4.x.x) is soft, whatever the text says;
 *   - Exchange's "recipient not found" words are hard, whatever code it wrote beside them;
 *   - a generic enhanced code (x.0.0: Exchange writes its diagnostic 0 back as 5.0.0) gives way
 *     to a more precise one in the text (`smtp;550 5.1.10 RESOLVER...`);
 *   - 5.1.0 is hard unless its text names the sender or a policy (SENDER_WORDS); any other 5.1.x
 *     is hard but for the sender's ones (NOT_THE_RECIPIENT); 5.2.1 (mailbox disabled) is
 *     hard; every other 5.y.z is soft: 5.2.2 full, 5.2.3 and 5.3.4 too big, 5.4.x routing, 5.5.x
 *     protocol, 5.6.x content, 5.7.x policy (spam, SPF/DKIM/DMARC, blocked sender, restricted
 *     recipient);
 *   - 5.0.0 or no enhanced code: a 550, 551 or 553 is hard unless its text names a policy (spam,
 *     blocked, rate, relay denied ...) or the sender, any other code soft.
 */
export function bounceClass(basic: string | undefined, enhanced: string | undefined, text = ''): 'hard' | 'soft' {
  if (basic?.startsWith('4') || enhanced?.startsWith('4.')) return 'soft';
  if (EXCHANGE_NOT_FOUND.test(text)) return 'hard';
  let code = enhanced && /^[245]\.\d{1,3}\.\d{1,3}$/.test(enhanced) ? enhanced : undefined;
  const stated = ENHANCED.exec(text);
  if ((!code || code.endsWith('.0.0')) && stated && stated[1] === '5' && !(stated[2] === '0' && stated[3] === '0')) {
    code = `${stated[1]}.${stated[2]}.${stated[3]}`;
  }
  const reply = basic ?? /(?:^|[\s;])([245]\d\d)(?=[\s-]|$)/.exec(text)?.[1];
  if (code?.startsWith('4.') || reply?.startsWith('4')) return 'soft';
  if (code && code !== '5.0.0') {
    const [klass, subject, detail] = code.split('.');
    if (klass !== '5') return 'soft';
    if (subject === '1' && detail === '0') return SENDER_WORDS.test(text) || POLICY_WORDS.test(text) ? 'soft' : 'hard';
    if (subject === '1') return NOT_THE_RECIPIENT.has(detail) ? 'soft' : 'hard';
    return subject === '2' && detail === '1' ? 'hard' : 'soft';
  }
  return reply && ['550', '551', '553'].includes(reply) && !POLICY_WORDS.test(text) && !SENDER_WORDS.test(text)
    ? 'hard'
    : 'soft';
}

/** Whether a failure's codes (and the server's words) say the address cannot be delivered to. */
export function isHardFailure(basic: string | undefined, enhanced: string | undefined, text = ''): boolean {
  return bounceClass(basic, enhanced, text) === 'hard';
}

/** A plain address out of `rfc822; <a@b>` or `a@b`, lower-cased; null when it is none. */
function addressOf(value: string): string | null {
  const bare = value
    .replace(/^\s*rfc822\s*;/i, '')
    .trim()
    .replace(/^<|>$/g, '')
    .trim()
    .toLowerCase();
  return ADDRESS.test(bare) && bare.length <= 254 ? bare : null;
}

/** The fields of one block of a delivery-status part (folded lines joined), by lower-cased name. */
function fieldsOf(block: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) fields.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return fields;
}

/**
 * The recipients an RFC 3464 delivery-status part reports as failed for good; null when it holds
 * no recipient block (then the headers are read instead).
 */
export function hardFailedInReport(deliveryStatus: string): string[] | null {
  const blocks = deliveryStatus
    .split(/\r?\n\s*\r?\n/)
    .map(fieldsOf)
    .filter((fields) => fields.has('final-recipient') || fields.has('original-recipient'));
  if (blocks.length === 0) return null;
  const hard = blocks.flatMap((fields) => {
    const action = fields.get('action')?.toLowerCase();
    const status = /^\s*([245]\.\d{1,3}\.\d{1,3})/.exec(fields.get('status') ?? '')?.[1];
    // `smtp; 550 5.1.10 RESOLVER.ADR.RecipientNotFound; …`: what the recipient's server answered.
    const diagnostic = (fields.get('diagnostic-code') ?? '').replace(/^\s*[\w-]+\s*;/, ' ');
    if (action !== 'failed' || !isHardFailure(undefined, status, diagnostic)) return [];
    const address = addressOf(fields.get('final-recipient') ?? fields.get('original-recipient') ?? '');
    return address ? [address] : [];
  });
  return [...new Set(hard)];
}

/** `X-Failed-Recipients: a@b, c@d` (written on bounces for permanent failures), lower-cased. */
export function failedRecipientsHeader(value: string | undefined): string[] {
  if (!value) return [];
  return [...new Set(value.split(/[,\s]+/).flatMap((part) => addressOf(part) ?? []))];
}

/** The Message-ID in the returned headers of our message (text/rfc822-headers or message/rfc822). */
export function returnedMessageId(headers: string): string | null {
  const head = headers.split(/\r?\n\r?\n/, 1)[0];
  return /^message-id:[ \t]*(<[^<>\s]+>)/im.exec(head)?.[1] ?? null;
}

/**
 * The relay refused recipients of the message for good while we sent it (SMTP `RCPT TO`): nothing
 * was sent; the addresses go on the suppression list.
 */
export class RecipientsRefused extends ProviderFailure {
  constructor(
    provider: string,
    readonly addresses: string[],
    status: number,
    /** The enhanced status code, when the relay gave one (`5.1.1`). */
    readonly enhancedStatus: string | null,
  ) {
    super(
      'rejected',
      provider,
      status,
      `the recipient's mail server refused ${addresses.join(', ')} permanently (${[status, enhancedStatus].filter(Boolean).join(' ')}: no such mailbox or domain, or the mailbox is disabled); nothing was sent, and the address is on the suppression list now`,
    );
  }
}

/**
 * Enhanced codes with which the account's own submission service (the SMTP relay it logs in to,
 * Graph, Gmail) refuses the SENDER, not a recipient: Exchange Online's 5.7.60 ("SMTP; Client does
 * not have permissions to send as this sender") and 5.7.57 ("Client was not authenticated to send
 * anonymous mail during MAIL FROM"), RFC 3463's 5.1.7 (bad sender's mailbox address) and 5.1.8
 * (bad sender's system address; Exchange Online's "Access denied, bad outbound sender", an account
 * blocked from sending). Microsoft, "Email non-delivery reports and SMTP errors in Exchange Online".
 */
const SENDER_REFUSED_CODES = new Set(['5.7.60', '5.7.57', '5.1.7', '5.1.8']);

/**
 * The words of a submission service refusing the account as the sender, whatever code beside them:
 * Exchange's `550 5.1.0 Sender denied` and its send-as refusal (SmtpResponse.SendAsDenied, "Client
 * does not have permission(s) to send as this sender", `SendAsDeniedException` after DATA), Postfix's
 * `553 5.7.1 <a@b>: Sender address rejected: not owned by user` (reject_sender_login_mismatch,
 * answered at RCPT TO), Gmail's and other relays' "not allowed to send as" / "not authorized to
 * send from", and Exchange Online's "bad outbound sender".
 */
const SENDER_REFUSED_WORDS =
  /\b(sender denied|sender address rejected|send ?as ?denied|permissions? to send as|not (allowed|authori[sz]ed|permitted) to send (mail )?(as|from|on behalf)|not owned by (auth )?user|not authenticated to send|bad outbound sender)/i;

/**
 * Whether a permanent refusal by the account's own submission service (never a report from a
 * recipient's server: there the same words are that server's block of us, bounceClass's soft
 * 5.1.0, and the account is fine for every other recipient) says the account may not send as its
 * address: a 5xx with a sender-refusal code or words (above), or any 550/551/553/554 answering
 * MAIL FROM itself (our sender is all that command names) that is not about size (5.2.x, 5.3.x) or
 * syntax (5.5.x). A transient (4xx) refusal is retried, never a sender refusal.
 */
export function isSenderRefusal(
  reply: string | undefined,
  enhanced: string | undefined,
  text: string,
  command: 'mail' | 'rcpt' | 'data' | null = null,
): boolean {
  if (!reply?.startsWith('5') && !enhanced?.startsWith('5.')) return false;
  if (enhanced && SENDER_REFUSED_CODES.has(enhanced)) return true;
  if (SENDER_REFUSED_WORDS.test(text)) return true;
  return (
    command === 'mail' && ['550', '551', '553', '554'].includes(reply ?? '') && !/^5\.[235]\./.test(enhanced ?? '')
  );
}

/**
 * The account's own mail service refused to send as its address (SMTP MAIL FROM or a send-as
 * check, Graph's ErrorSendAsDenied): nothing was sent, no recipient is at fault (none is
 * suppressed), and every later send from the account would fail the same way, so the mail-send
 * job marks the account needs_reconnect with this reason and tells its owner once.
 */
export class SenderRefused extends ProviderFailure {
  constructor(
    provider: string,
    readonly address: string,
    status: number,
    /** The enhanced status code or the provider's error code, when it gave one (`5.7.60`, `ErrorSendAsDenied`). */
    readonly code: string | null,
  ) {
    super(
      'rejected',
      provider,
      status,
      `${provider} refused to send as ${address} (${[status, code].filter(Boolean).join(' ')}): the account is not allowed to send as this address, or its sending is blocked`,
    );
  }
}

/** What a bounce tells (InboxMessage.bounce): the addresses it reports failed for good, and which message of ours it returns. */
export interface BounceFacts {
  hard_bounced: string[];
  original_message_id: string | null;
}

/**
 * The facts of a bounce from its headers and, when the whole message was read, its report parts:
 * the delivery-status part decides which recipients failed for good (a delay or a policy refusal
 * there is not hard, whatever X-Failed-Recipients says); without one, X-Failed-Recipients does.
 */
export function bounceFacts(
  header: (name: string) => string | undefined,
  parts: { deliveryStatus?: string | null; returnedHeaders?: string | null } = {},
): BounceFacts {
  const reported = parts.deliveryStatus ? hardFailedInReport(parts.deliveryStatus) : null;
  return {
    hard_bounced: reported ?? failedRecipientsHeader(header('X-Failed-Recipients')),
    original_message_id: parts.returnedHeaders ? returnedMessageId(parts.returnedHeaders) : null,
  };
}
