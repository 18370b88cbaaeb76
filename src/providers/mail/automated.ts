/**
 * Mail no person wrote: delivery reports (bounces) and automatic replies (out of office,
 * vacation responders, ticket acknowledgements). Both usually answer our message in its thread
 * (In-Reply-To, References, Gmail's thread), so without this they would count as the lead's reply.
 * Read from the headers every provider gives (RFC 3834 Auto-Submitted, RFC 3464/6522
 * multipart/report, the de-facto X-Autoreply, X-Autorespond, Precedence and X-Failed-Recipients),
 * the sender (MAILER-DAEMON, postmaster) and, for Exchange's "Automatic reply:", the subject.
 */

export type Automated = 'bounce' | 'auto_reply';

/** The headers read here: Gmail's list asks for them by name (metadataHeaders). */
export const AUTOMATED_HEADERS = [
  'Auto-Submitted',
  'Content-Type',
  'X-Autoreply',
  'X-Autorespond',
  'Precedence',
  'X-Failed-Recipients',
] as const;

const DAEMON = /^(mailer-daemon|postmaster|mail-daemon|mailerdaemon)@/i;
const REPORT = /^\s*multipart\/report\b[\s\S]*\breport-type\s*=\s*"?(delivery-status|disposition-notification)/i;
const AUTO_SUBJECT =
  /^\s*(automatic reply|auto[- ]?reply|autoreply|out of (the )?office|abwesenheitsnotiz|réponse automatique)\b/i;

/**
 * Whether a message is a bounce or an automatic reply, else null. `header` answers a header's value
 * by name (any case), undefined when absent.
 */
export function automatedKind(message: {
  from: string | null | undefined;
  subject: string | null | undefined;
  header: (name: string) => string | undefined;
}): Automated | null {
  const contentType = message.header('Content-Type') ?? '';
  if (
    DAEMON.test(message.from ?? '') ||
    message.header('X-Failed-Recipients') !== undefined ||
    /^\s*multipart\/report\b[\s\S]*\breport-type\s*=\s*"?delivery-status/i.test(contentType)
  ) {
    return 'bounce';
  }
  const autoSubmitted = message.header('Auto-Submitted')?.trim().toLowerCase();
  const precedence = message.header('Precedence')?.trim().toLowerCase();
  if (
    (autoSubmitted !== undefined && autoSubmitted !== '' && !autoSubmitted.startsWith('no')) ||
    message.header('X-Autoreply') !== undefined ||
    message.header('X-Autorespond') !== undefined ||
    precedence === 'auto_reply' ||
    precedence === 'bulk' ||
    precedence === 'junk' ||
    REPORT.test(contentType) ||
    AUTO_SUBJECT.test(message.subject ?? '')
  ) {
    return 'auto_reply';
  }
  return null;
}

/** A header lookup over `name: value` pairs (case-insensitive names). */
export function headerLookup(pairs: Iterable<{ name: string; value: string }>): (name: string) => string | undefined {
  const map = new Map<string, string>();
  for (const { name, value } of pairs) if (!map.has(name.toLowerCase())) map.set(name.toLowerCase(), value);
  return (name) => map.get(name.toLowerCase());
}
