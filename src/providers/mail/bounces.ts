/**
 * Hard bounces: which recipients a delivery failure says can never be delivered to, so they go on
 * the organization's suppression list (modules/mail/bounces.ts, the mail-send job). Two sources:
 *   - the relay refusing a recipient while we send (SMTP `RCPT TO` answered 5xx): RecipientsRefused;
 *   - a delivery report arriving in the inbox (RFC 3464 `message/delivery-status`, one block per
 *     recipient with `Action` and `Status`; else Exim's and Gmail's `X-Failed-Recipients`).
 * Only a permanent failure of the address itself is hard, by its RFC 3463 enhanced status code:
 * 5.1.x about the recipient (no such mailbox 5.1.1, no such domain 5.1.2, bad syntax 5.1.3,
 * moved 5.1.6, null MX 5.1.10, other 5.1.0) and a disabled mailbox (5.2.1); without an enhanced
 * code, the basic 550, 551 and 553 a server answers to `RCPT TO`. Soft, never suppressed: every
 * 4xx (greylisting, a full disk, a delay report), a full mailbox (5.2.2), a message too big
 * (5.3.4), and policy refusals (5.7.x: blocked as spam, the sender not authorized), which are
 * about the sender or the message, not the address (SendGrid's "blocks", HubSpot's "policy"
 * bounces; suppressing them would lose good addresses whenever the sender is blocklisted).
 */
import { ProviderFailure } from '../failures';

const HARD_ENHANCED = /^5\.(1\.(0|1|2|3|6|10)|2\.1)$/;
const HARD_BASIC = new Set(['550', '551', '553']);
const ADDRESS = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+$/;

/** Whether a failure's codes say the address cannot be delivered to (the enhanced code decides when given). */
export function isHardFailure(basic: string | undefined, enhanced: string | undefined): boolean {
  if (enhanced) return HARD_ENHANCED.test(enhanced);
  return basic !== undefined && HARD_BASIC.has(basic);
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
    if (action !== 'failed' || !isHardFailure(undefined, status)) return [];
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
      `the recipient's mail server refused ${addresses.join(', ')} permanently (${[status, enhancedStatus].filter(Boolean).join(' ')}: no such mailbox or domain); nothing was sent, and the address is on the suppression list now`,
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
